package dataset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestJSONLTools: an entry's tools and tool_choice are read as written,
// with their functions' names, for each request (and each session).
func TestJSONLTools(t *testing.T) {
	reqs, err := Load(jsonlSpec(filepath.Join("testdata", "jsonl", "tools.jsonl"), nil), wordTokenizer{bos: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int][]string{}
	choice := map[int]string{}
	for _, r := range reqs.Requests {
		if r.Tools != nil {
			got[r.Index] = r.Tools.Names
			choice[r.Index] = string(r.Tools.Choice)
		}
	}
	want := map[int][]string{0: {"search", "get_time"}, 1: {"search"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools by line (-want +got):\n%s", diff)
	}
	if choice[0] != `"auto"` || !strings.Contains(choice[1], `"name": "search"`) {
		t.Errorf("tool_choice %v", choice)
	}
	sessions, err := Load(jsonlSpec(filepath.Join("testdata", "jsonl", "tools.jsonl"), func(c *JSONL) { c.MultiTurn = true }), wordTokenizer{bos: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sessions.Requests {
		if s.Index == 0 && (s.Tools == nil || len(s.Turns) == 0) {
			t.Errorf("session of line 1: tools %v, %d turns", s.Tools, len(s.Turns))
		}
	}
}

// TestJSONLToolsErrors: a bad tools entry is refused with the file and
// line, and why.
func TestJSONLToolsErrors(t *testing.T) {
	for _, tt := range []struct {
		line, want string
	}{
		{`{"prompt": "x", "tools": {"type": "function"}}`, `line 1: "tools" is an object, not an array of function tools`},
		{`{"prompt": "x", "tools": []}`, `line 1: "tools" is empty`},
		{`{"prompt": "x", "tools": [{"type": "retrieval"}]}`, `line 1: tools[0] has type "retrieval"`},
		{`{"prompt": "x", "tools": [{"type": "function", "function": {}}]}`, `line 1: tools[0] has no function.name`},
		{`{"prompt": "x", "tools": [{"type": "function", "function": {"name": "a"}}, {"type": "function", "function": {"name": "a"}}]}`, `line 1: tools[1]: a second function named "a"`},
		{`{"prompt": "x", "tools": [{"type": "function", "function": {"name": "a", "parameters": "any"}}]}`, `function.parameters is a string, not a JSON schema object`},
		{`{"prompt": "x", "tool_choice": "auto"}`, `"tool_choice" without "tools"`},
		{`{"prompt": "x", "tools": [{"type": "function", "function": {"name": "a"}}], "tool_choice": "sometimes"}`, `"tool_choice" is "sometimes"`},
		{`{"prompt": "x", "tools": [{"type": "function", "function": {"name": "a"}}], "tool_choice": {"type": "function", "function": {"name": "b"}}}`, `names function "b", which "tools" does not offer`},
		{`{"prompt": "x", "tools": [{"type": "function", "function": {"name": "a"}}], "tool_choice": 3}`, `"tool_choice" is a number`},
	} {
		path := filepath.Join(t.TempDir(), "bad.jsonl")
		if err := os.WriteFile(path, []byte(tt.line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(jsonlSpec(path, nil), wordTokenizer{bos: true})
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "bad.jsonl") {
			t.Errorf("%s: error %v, want one naming the file and %q", tt.line, err, tt.want)
		}
	}
}
