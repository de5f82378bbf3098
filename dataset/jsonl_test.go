package dataset

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func jsonlSpec(path string, edit func(*JSONL)) Spec {
	cfg := DefaultJSONL()
	cfg.Path = path
	if edit != nil {
		edit(&cfg)
	}
	return Spec{Name: "test", JSONL: &cfg}
}

func TestJSONLErrors(t *testing.T) {
	tests := []struct {
		file string
		edit func(*JSONL)
		want string
	}{
		{"missing.jsonl", nil, "no such file"},
		{"not-json.jsonl", nil, "not-json.jsonl: line 2: not valid JSON at column 16: unexpected end of JSON input"},
		{"array-line.jsonl", nil, "array-line.jsonl: line 3: line is an array, not a JSON object"},
		{"prompt-not-string.jsonl", nil, "prompt-not-string.jsonl: line 1: \"prompt\" is a number, not a string"},
		{"no-prompt.jsonl", nil, "no-prompt.jsonl: line 1: no string \"prompt\" field and no \"messages\" array"},
		{"good.jsonl", func(c *JSONL) { c.PromptField = "text" }, "good.jsonl: line 1: no string \"text\" field and no \"messages\" array"},
		{"messages-not-array.jsonl", nil, "messages-not-array.jsonl: line 1: \"messages\" is a string, not an array"},
		{"message-without-content.jsonl", nil, "message-without-content.jsonl: line 1: messages[1] has no string \"content\""},
		{"messages-empty.jsonl", nil, "messages-empty.jsonl: line 1: \"messages\" is empty"},
		{"blank.jsonl", nil, "blank.jsonl: no entries"},
		{"output-len-fraction.jsonl", func(c *JSONL) { c.OutputLenField = "max_tokens" }, "output-len-fraction.jsonl: line 1: \"max_tokens\" is 1.5, not a positive integer"},
		{"output-len-string.jsonl", func(c *JSONL) { c.OutputLenField = "max_tokens" }, "output-len-string.jsonl: line 1: \"max_tokens\" is \"7\", not a positive integer"},
		{"good.jsonl", func(c *JSONL) { c.OutputLen = 0 }, "output_len must be at least 1"},
		{"good.jsonl", func(c *JSONL) { c.NumPrompts = -1 }, "num_prompts must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, err := Load(jsonlSpec(filepath.Join("testdata", "jsonl", tt.file), tt.edit), wordTokenizer{bos: true})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestJSONL(t *testing.T) {
	chat := []Message{{Role: "system", Content: "w6"}, {Role: "user", Content: "w7 w8"}}
	// Each request of good.jsonl, by line (from 0), with max_tokens read and
	// the default output length 256 otherwise.
	byLine := map[int]Request{
		0: {Index: 0, Prompt: "w1 w2 w3", PromptLen: 4, OutputLen: 10},
		1: {Index: 1, Prompt: "w4 w5", PromptLen: 3, OutputLen: 256},
		3: {Index: 3, Prompt: "w6\nw7 w8", Messages: chat, PromptLen: 4, OutputLen: 5},
		4: {Index: 4, Prompt: "w9 \"x\" w10 w11", PromptLen: 5, OutputLen: 256},
		5: {Index: 5, Prompt: "w13 w14 w15 w16 w17", PromptLen: 6, OutputLen: 256},
		7: {Index: 7, Prompt: "", PromptLen: 1, OutputLen: 1},
	}
	tests := []struct {
		name  string
		edit  func(*JSONL)
		lines []int // orders from CPython: random.seed(s); random.shuffle(non-blank line numbers)
		fixed bool  // output lengths are the default (no output_len_field)
	}{
		{"all, seed 0", func(c *JSONL) { c.NumPrompts = 0 }, []int{5, 3, 1, 0, 7, 4}, false},
		{"3, seed 7", func(c *JSONL) { c.NumPrompts = 3; c.Seed = 7 }, []int{5, 0, 7}, false},
		{"more than there are", func(c *JSONL) { c.NumPrompts = 100; c.Seed = 7 }, []int{5, 0, 7, 4, 1, 3}, false},
		{"file order", func(c *JSONL) { c.NumPrompts = 4; c.Shuffle = false }, []int{0, 1, 3, 4}, false},
		{"no output_len_field", func(c *JSONL) { c.NumPrompts = 2; c.Shuffle = false; c.OutputLenField = "" }, []int{0, 1}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := jsonlSpec("testdata/jsonl/good.jsonl", func(c *JSONL) {
				c.AllowEmptyPrompts = true // line 8
				c.OutputLenField = "max_tokens"
				tt.edit(c)
			})
			ds, err := Load(spec, wordTokenizer{bos: true})
			if err != nil {
				t.Fatal(err)
			}
			var want []Request
			for _, l := range tt.lines {
				r := byLine[l]
				if tt.fixed {
					r.OutputLen = 256
				}
				// A JSONL prompt's bytes are its text's (no images here).
				r.PromptBytes = len(r.Prompt)
				want = append(want, r)
			}
			if diff := cmp.Diff(want, ds.Requests); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
			if ds.Stats.Read != 6 || ds.Stats.Skipped[skipBlankLine] != 2 || ds.Stats.Examined != len(want) || ds.Stats.Sampled != len(want) {
				t.Errorf("stats read %d, blank %d, examined %d, sampled %d; want 6, 2, %d, %d",
					ds.Stats.Read, ds.Stats.Skipped[skipBlankLine], ds.Stats.Examined, ds.Stats.Sampled, len(want), len(want))
			}
		})
	}
}
