package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/llmload/llmload/internal/testshared"
)

const sharedShareGPT = "../../shared/data/sharegpt"

// TestShareGPTReferenceCounts checks Encode(text, true) against the token
// counts of the reference samplings (vLLM counts tokenizer(text).input_ids,
// special tokens included: BOS for Mistral, none for this Llama-3 file).
func TestShareGPTReferenceCounts(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(sharedShareGPT, "reference", "samples.json"))
	if err != nil {
		testshared.Skipf(t, "sharegpt reference: %v", err)
	}
	var cases []struct {
		File      string `json:"file"`
		Tokenizer string `json:"tokenizer"`
		Seed      int    `json:"seed"`
		OutputLen *int   `json:"output_len"`
		Samples   []struct {
			Index     int `json:"index"`
			PromptLen int `json:"prompt_len"`
			OutputLen int `json:"output_len"`
		} `json:"samples"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatalf("samples.json: %v", err)
	}
	toks := map[string]*HF{}
	for _, c := range cases {
		tok := toks[c.Tokenizer]
		if tok == nil {
			tok, _ = loadShared(t, c.Tokenizer)
			toks[c.Tokenizer] = tok
		}
		convs := readConversations(t, filepath.Join(sharedShareGPT, c.File))
		checked := 0
		for _, s := range c.Samples {
			conv := convs[s.Index]
			if got := len(tok.Encode(conv[0], true)); got != s.PromptLen {
				t.Errorf("%s %s seed %d entry %d: prompt has %d tokens, want %d", c.File, c.Tokenizer, c.Seed, s.Index, got, s.PromptLen)
			}
			if c.OutputLen == nil {
				if got := len(tok.Encode(conv[1], true)); got != s.OutputLen {
					t.Errorf("%s %s seed %d entry %d: reply has %d tokens, want %d", c.File, c.Tokenizer, c.Seed, s.Index, got, s.OutputLen)
				}
			}
			checked++
		}
		t.Logf("%s %s seed %d: %d samples checked", c.File, c.Tokenizer, c.Seed, checked)
	}
}

// readConversations returns the turn texts of each entry of a ShareGPT file.
func readConversations(t testing.TB, path string) [][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		testshared.Skipf(t, "%v", err)
	}
	var entries []struct {
		Conversations []struct {
			Value string `json:"value"`
		} `json:"conversations"`
	}
	if err := json.Unmarshal(data, &entries); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := make([][]string, len(entries))
	for i, e := range entries {
		for _, c := range e.Conversations {
			out[i] = append(out[i], c.Value)
		}
	}
	return out
}
