package dataset

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestExpected(t *testing.T) {
	tests := []struct {
		field   string // the "expected" value, as JSON
		answer  string
		pass    bool
		wantErr string
	}{
		{`"Paris"`, " The capital is Paris.", true, ""},
		{`"Paris"`, " It is Lyon.", false, ""},
		{`{"contains": "4"}`, " 2 + 2 = 4", true, ""},
		{`{"equals": "4"}`, "  4\n", true, ""}, // white space at the ends aside
		{`{"equals": "4"}`, " 4 apples", false, ""},
		{`{"regex": "^\\s*(yes|Yes)\\b"}`, " Yes, it is.", true, ""},
		{`{"regex": "^\\s*(yes|Yes)\\b"}`, " No.", false, ""},
		{`""`, "", false, "empty"},
		{`{"contains": ""}`, "", false, "empty"},
		{`{"regex": "("}`, "", false, "regex"},
		{`{"equals": "a", "regex": "b"}`, "", false, "exactly one"},
		{`{}`, "", false, "exactly one"},
		{`{"starts": "a"}`, "", false, `"starts"`},
		{`{"equals": 4}`, "", false, "not a string"},
		{`4`, "", false, "want a string"},
	}
	for _, tt := range tests {
		e, err := parseExpected(gjson.Parse(tt.field))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("expected %s: error %v, want one naming %q", tt.field, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("expected %s: %v", tt.field, err)
			continue
		}
		if got := e.Judge(tt.answer); got != tt.pass {
			t.Errorf("expected %s, answer %q: %v, want %v", tt.field, tt.answer, got, tt.pass)
		}
	}
}

// TestExpectedJSONL: a JSONL line's "expected" reaches its request, and a
// bad one is named by file and line.
func TestExpectedJSONL(t *testing.T) {
	src := `{"prompt": "Capital of France?", "expected": "Paris"}
{"prompt": "No expectation"}
`
	reqs, _, err := readJSONL(JSONL{Path: "qa.jsonl", PromptField: "prompt", OutputLen: 8}, strings.NewReader(src), wordTokenizer{bos: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 || reqs[0].Expected == nil || reqs[0].Expected.Contains != "Paris" || reqs[1].Expected != nil {
		t.Fatalf("requests %+v", reqs)
	}
	_, _, err = readJSONL(JSONL{Path: "qa.jsonl", PromptField: "prompt", OutputLen: 8}, strings.NewReader(src+`{"prompt": "x", "expected": {"regex": "("}}`+"\n"), wordTokenizer{bos: true})
	if err == nil || !strings.Contains(err.Error(), "qa.jsonl: line 3") || !strings.Contains(err.Error(), "regex") {
		t.Errorf("a bad regex: %v, want the file, line 3 and the regex named", err)
	}
}
