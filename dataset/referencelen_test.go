package dataset

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestShareGPTReferenceLen: a ShareGPT request carries its recorded
// reply's token count, whether the output length is the reply's (vLLM's
// default) or fixed by the scenario; a session carries each turn's.
func TestShareGPTReferenceLen(t *testing.T) {
	tok := wordTokenizer{bos: true}
	raw, err := os.ReadFile("testdata/sharegpt/rules.json")
	if err != nil {
		t.Fatal(err)
	}
	var entries []struct {
		Conversations []struct{ Value string } `json:"conversations"`
	}
	if err := json.Unmarshal(raw, &entries); err != nil {
		t.Fatal(err)
	}
	// The reply's count as the test tokenizer gives it: its words and BOS.
	replyLen := func(index int) int { return len(strings.Fields(entries[index].Conversations[1].Value)) + 1 }

	for _, outputLen := range []int{0, 3} {
		ds, err := Load(sharegptSpec("testdata/sharegpt/rules.json", func(c *ShareGPT) { c.NumPrompts = 40; c.OutputLen = outputLen }), tok)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range ds.Requests {
			if want := replyLen(r.Index); r.ReferenceLen != want {
				t.Errorf("output_len %d: entry %d: ReferenceLen %d, want the reply's %d tokens", outputLen, r.Index, r.ReferenceLen, want)
			}
			if outputLen == 0 && r.OutputLen != r.ReferenceLen {
				t.Errorf("entry %d: OutputLen %d, want the reference length %d", r.Index, r.OutputLen, r.ReferenceLen)
			}
		}
	}

	for _, tt := range []struct {
		name      string
		outputLen int
		want      map[int][]int // each turn's ReferenceLen, by entry index
	}{
		// a: replies of 5, 4 and 6 words (plus BOS); b: one answered turn.
		{"replies' lengths", 0, map[int][]int{0: {6, 5, 7}, 1: {5}}},
		// b's unanswered last question is kept, with no reference.
		{"fixed output", 3, map[int][]int{0: {6, 5, 7}, 1: {5, 0}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultShareGPT()
			cfg.Path, cfg.NumPrompts, cfg.MultiTurn, cfg.Oversample, cfg.OutputLen = "testdata/sharegpt/multi-turn.json", 10, true, false, tt.outputLen
			ds, err := Load(Spec{Name: "s", ShareGPT: &cfg}, tok)
			if err != nil {
				t.Fatal(err)
			}
			got := map[int][]int{}
			for _, r := range ds.Requests {
				for _, turn := range r.Turns {
					got[r.Index] = append(got[r.Index], turn.ReferenceLen)
				}
				if r.ReferenceLen != r.Turns[0].ReferenceLen {
					t.Errorf("entry %d: ReferenceLen %d, want the first turn's %d", r.Index, r.ReferenceLen, r.Turns[0].ReferenceLen)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("turns' reference lengths (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNoReferenceLen: sources that record no answer leave ReferenceLen 0.
func TestNoReferenceLen(t *testing.T) {
	jsonl := DefaultJSONL()
	jsonl.Path, jsonl.AllowEmptyPrompts = "testdata/jsonl/good.jsonl", true
	random := DefaultRandom()
	random.NumPrompts, random.InputLen, random.OutputLen = 3, 8, 8
	for name, spec := range map[string]Spec{
		"jsonl":  {Name: "j", JSONL: &jsonl},
		"random": {Name: "r", Random: &random},
	} {
		ds, err := Load(spec, wordTokenizer{bos: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, r := range ds.Requests {
			if r.ReferenceLen != 0 {
				t.Errorf("%s: entry %d: ReferenceLen %d, want 0", name, r.Index, r.ReferenceLen)
			}
		}
	}
}
