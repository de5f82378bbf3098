package dataset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileFiles: inputs that used to load, or to be read whole before
// failing, are refused with the file and the record.
func TestHostileFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A big file of zero bytes is refused at byte 0 from its first bytes,
	// not read whole (the bound is lowered to 1 MiB here; the check reads
	// 4 KiB whatever the size).
	bigFile = 1 << 20
	t.Cleanup(func() { bigFile = 64 << 20 })
	zeros := write("zeros.json", strings.Repeat("\x00", 1<<20))
	if _, _, err := loadShareGPT(ShareGPT{Path: zeros, NumPrompts: 1, MaxTotalTokens: 100}, nil); err == nil ||
		!strings.Contains(err.Error(), "zeros.json: byte 0: not JSON: starts with byte 0x00") {
		t.Errorf("zeros: %v", err)
	}
	// Big files that start like JSON but are no ShareGPT array: refused
	// from the first entry, decoded in bounded memory (the entry's bound
	// is 16 MiB; these files are 1 MiB, so their end stands for it).
	for name, tc := range map[string]struct{ data, want string }{
		"[ then zeros":     {"[" + strings.Repeat("\x00", 1<<20), "byte 1: the first entry is not a JSON object: invalid character"},
		"[ then blanks":    {"[" + strings.Repeat(" ", 1<<20), "no entry within its first 16 MiB"},
		"one huge string":  {`[{"conversations": "` + strings.Repeat("x", 1<<20), "the first entry does not end within its first 16 MiB"},
		"an object":        {`{"conversations": []}` + strings.Repeat(" ", 1<<20), "top-level value starts with '{', not an array"},
		"an array of ints": {"[1, " + strings.Repeat("2, ", 1<<19) + "3]", "the first entry is not a JSON object"},
	} {
		p := write("big.json", tc.data)
		if _, _, err := loadShareGPT(ShareGPT{Path: p, NumPrompts: 1, MaxTotalTokens: 100}, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", name, err, tc.want)
		}
	}
	for name, tc := range map[string]struct{ data, want string }{
		"invalid UTF-8": {"{\"prompt\": \"ok\"}\n{\"prompt\": \"caf\xe9\"}\n", "bad.jsonl: line 2: not valid UTF-8 at column 16"},
		"empty prompt":  {"{\"prompt\": \"ok\"}\n{\"prompt\": \"  \"}\n", "bad.jsonl: line 2: the prompt is empty"},
	} {
		p := write("bad.jsonl", tc.data)
		_, _, err := loadJSONL(JSONL{Path: p, PromptField: "prompt", OutputLen: 4}, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", name, err, tc.want)
		}
	}
}
