package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func sharegptSpec(path string, edit func(*ShareGPT)) Spec {
	cfg := DefaultShareGPT()
	cfg.Path = path
	if edit != nil {
		edit(&cfg)
	}
	return Spec{Name: "test", ShareGPT: &cfg}
}

func TestShareGPTErrors(t *testing.T) {
	dir := filepath.Join("testdata", "sharegpt")
	tests := []struct {
		file string
		edit func(*ShareGPT)
		want []string // substrings of the error
	}{
		{file: "missing.json", want: []string{"missing.json", "no such file"}},
		{file: "empty.json", want: []string{"empty.json: file is empty"}},
		{file: "whitespace.json", want: []string{"whitespace.json: file is empty"}},
		{file: "not-json.json", want: []string{"not-json.json: byte 0: not valid JSON", "invalid character"}},
		{file: "truncated.json", want: []string{"truncated.json: byte 104: not valid JSON", "unexpected end of JSON input"}},
		{file: "trailing-data.json", want: []string{"trailing-data.json: byte 106: not valid JSON", "after top-level value"}},
		{file: "object.json", want: []string{"object.json: byte 0: top-level value is an object, not an array"}},
		{file: "empty-array.json", want: []string{"empty-array.json: the array is empty"}},
		{file: "entry-not-object.json", want: []string{"entry-not-object.json: record 1: entry is a number, not an object"}},
		{file: "conversations-not-array.json", want: []string{"conversations-not-array.json: record 1: \"conversations\" is a string, not an array"}},
		{file: "turn-value-not-string.json", edit: func(c *ShareGPT) { c.NumPrompts = 2 }, want: []string{"turn-value-not-string.json: record 1: turn 1 has no string \"value\""}},
		{file: "turn-without-value.json", want: []string{"turn-without-value.json: record 0: turn 0 has no string \"value\""}},
		{file: "no-usable-entry.json", want: []string{"no-usable-entry.json: no usable entry: none of the 3 entries has a \"conversations\" array of at least 2 turns"}},
		{file: "all-too-short.json", want: []string{"all-too-short.json: no usable entry: 2 read, 2 examined, skipped prompt_too_short=2"}},
		{file: "rules.json", edit: func(c *ShareGPT) { c.NumPrompts = 0 }, want: []string{"num_prompts must be at least 1"}},
		{file: "rules.json", edit: func(c *ShareGPT) { c.MaxPromptTokens = 2 }, want: []string{"max_prompt_tokens (2) is below min_prompt_tokens (4)"}},
		{file: "rules.json", edit: func(c *ShareGPT) { c.OutputLen = -1 }, want: []string{"output_len must not be negative"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			ds, err := Load(sharegptSpec(filepath.Join(dir, tt.file), tt.edit), wordTokenizer{bos: true})
			if err == nil {
				t.Fatalf("Load succeeded with %d requests, want an error containing %q", len(ds.Requests), tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// TestShareGPTErrorOnlyWhenExamined: a bad turn in an entry the sampling
// never reaches is not an error (only what is used is validated).
func TestShareGPTErrorOnlyWhenExamined(t *testing.T) {
	// turn-value-not-string.json: record 0 is fine, record 1 is bad; with
	// seed 0 the shuffle puts record 0 first.
	ds, err := Load(sharegptSpec("testdata/sharegpt/turn-value-not-string.json", func(c *ShareGPT) { c.NumPrompts = 1 }), wordTokenizer{bos: true})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Stats.Examined != 1 || len(ds.Requests) != 1 || ds.Requests[0].Index != 0 {
		t.Errorf("examined %d, requests %+v; want 1 examined, one request for record 0", ds.Stats.Examined, ds.Requests)
	}
}

// TestShareGPTRules compares with rules-reference.json, computed by
// make_reference.py with CPython's random and vLLM's rules.
func TestShareGPTRules(t *testing.T) {
	raw, err := os.ReadFile("testdata/sharegpt/rules-reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Seed            int64          `json:"seed"`
		NumPrompts      int            `json:"num_prompts"`
		OutputLen       int            `json:"output_len"`
		Oversample      bool           `json:"oversample"`
		MinPromptTokens int            `json:"min_prompt_tokens"`
		MinOutputTokens int            `json:"min_output_tokens"`
		MaxPromptTokens int            `json:"max_prompt_tokens"`
		MaxTotalTokens  int            `json:"max_total_tokens"`
		Read            int            `json:"read"`
		Examined        int            `json:"examined"`
		Oversampled     int            `json:"oversampled"`
		Skipped         map[string]int `json:"skipped"`
		Samples         []refSample    `json:"samples"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		cfg := ShareGPT{
			Path: "testdata/sharegpt/rules.json", NumPrompts: c.NumPrompts, Seed: c.Seed, OutputLen: c.OutputLen,
			MinPromptTokens: c.MinPromptTokens, MinOutputTokens: c.MinOutputTokens,
			MaxPromptTokens: c.MaxPromptTokens, MaxTotalTokens: c.MaxTotalTokens, Oversample: c.Oversample,
		}
		name := fmt.Sprintf("seed=%d/n=%d/output_len=%d/oversample=%v/bounds=%d,%d,%d,%d", c.Seed, c.NumPrompts, c.OutputLen, c.Oversample,
			c.MinPromptTokens, c.MinOutputTokens, c.MaxPromptTokens, c.MaxTotalTokens)
		t.Run(name, func(t *testing.T) {
			ds, err := Load(Spec{Name: "rules", ShareGPT: &cfg}, wordTokenizer{bos: true})
			if err != nil {
				t.Fatal(err)
			}
			got := make([]refSample, len(ds.Requests))
			for i, r := range ds.Requests {
				got[i] = refSample{r.Index, r.PromptLen, r.OutputLen}
				if len(r.Messages) != 0 {
					t.Errorf("request %d: Messages %v; want none", i, r.Messages)
				}
			}
			if diff := cmp.Diff(c.Samples, got); diff != "" {
				t.Errorf("samples (-want +got):\n%s", diff)
			}
			wantStats := Stats{
				Source: "sharegpt", Path: cfg.Path, Read: c.Read, Skipped: c.Skipped, Examined: c.Examined,
				Sampled: len(c.Samples), Oversampled: c.Oversampled, Tokenizer: "words",
				PromptLen: ds.Stats.PromptLen, OutputLen: ds.Stats.OutputLen, // checked in TestLengthStats
				PrefixTokens: ds.Stats.PrefixTokens, // checked in TestMarkPrefixes
			}
			if diff := cmp.Diff(wantStats, ds.Stats); diff != "" {
				t.Errorf("stats (-want +got):\n%s", diff)
			}
		})
	}
}

// TestShareGPTPrompt: the prompt is the first turn's text, unescaped.
func TestShareGPTPrompt(t *testing.T) {
	ds, err := Load(sharegptSpec("testdata/sharegpt/rules.json", func(c *ShareGPT) { c.NumPrompts = 40 }), wordTokenizer{bos: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range ds.Requests {
		if r.Index == 9 {
			if want := "w1 \"quoted\" w2\nw3\tw4 été"; r.Prompt != want {
				t.Errorf("prompt of record 9 = %q, want %q", r.Prompt, want)
			}
			return
		}
	}
	t.Errorf("record 9 not sampled")
}

func TestShareGPTTokenizerFailure(t *testing.T) {
	_, err := Load(sharegptSpec("testdata/sharegpt/rules.json", nil), failingTokenizer{})
	if err == nil || !strings.Contains(err.Error(), "tokenizer server: POST /tokenize: connection refused") {
		t.Errorf("error = %v, want the tokenizer's failure", err)
	}
}

// TestDumpGolden writes a sampling with WriteJSONL and compares it with
// testdata/sharegpt/rules-dump.golden.jsonl (refresh with -update).
func TestDumpGolden(t *testing.T) {
	ds, err := Load(sharegptSpec("testdata/sharegpt/rules.json", func(c *ShareGPT) { c.NumPrompts = 5; c.Seed = 3 }), wordTokenizer{bos: true})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, ds.Requests); err != nil {
		t.Fatal(err)
	}
	golden := "testdata/sharegpt/rules-dump.golden.jsonl"
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), buf.String()); diff != "" {
		t.Errorf("dump (-want +got):\n%s", diff)
	}
}
