package dataset

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmload/llmload/tokenizer"
)

// checkRandom checks the properties every random dataset must have: prompts
// re-encode to exactly PromptLen tokens, lengths lie in vLLM's ranges,
// indexes follow the order, and the prompts share a prefix of PrefixLen tokens.
func checkRandom(t *testing.T, cfg Random, tok tokenizer.Tokenizer, reqs []Request) {
	t.Helper()
	if len(reqs) != cfg.NumPrompts {
		t.Fatalf("%d requests, want %d", len(reqs), cfg.NumPrompts)
	}
	special := len(tok.Encode("", true)) - len(tok.Encode("", false))
	real := float64(max(0, cfg.InputLen-special))
	r := cfg.RangeRatio
	inLow, inHigh := int(math.Floor(real*(1-r))), int(math.Ceil(real*(1+r)))
	outLow, outHigh := max(1, int(math.Floor(float64(cfg.OutputLen)*(1-r)))), max(1, int(math.Ceil(float64(cfg.OutputLen)*(1+r))))
	common := reqs[0].Prompt
	for i, req := range reqs {
		if got := len(tok.Encode(req.Prompt, true)); got != req.PromptLen {
			t.Errorf("request %d: prompt re-encodes to %d tokens, PromptLen is %d", i, got, req.PromptLen)
		}
		if in := req.PromptLen - special - cfg.PrefixLen; in < inLow || in > inHigh {
			t.Errorf("request %d: sampled input length %d outside [%d, %d]", i, in, inLow, inHigh)
		}
		if req.OutputLen < outLow || req.OutputLen > outHigh {
			t.Errorf("request %d: output length %d outside [%d, %d]", i, req.OutputLen, outLow, outHigh)
		}
		if req.Index != i {
			t.Errorf("request %d: Index %d, want %d", i, req.Index, i)
		}
		for !strings.HasPrefix(req.Prompt, common) {
			common = common[:len(common)-1]
		}
	}
	// The shared text may lose its last token to a merge at the boundary.
	if shared := len(tok.Encode(common, false)); len(reqs) > 1 && shared < cfg.PrefixLen-1 {
		t.Errorf("prompts share %q (%d tokens), want a prefix of about %d tokens", common, shared, cfg.PrefixLen)
	}
}

func TestRandom(t *testing.T) {
	toks := []tokenizer.Tokenizer{wordTokenizer{bos: true}, pairTokenizer{}, tokenizer.Approximate(), sizeless{tokenizer.Approximate()}}
	cfgs := map[string]Random{
		"fixed lengths":     {InputLen: 100, OutputLen: 20, NumPrompts: 20, Seed: 1},
		"spread and prefix": {InputLen: 64, OutputLen: 16, RangeRatio: 0.5, PrefixLen: 10, NumPrompts: 50, Seed: 2},
		"tiny":              {InputLen: 3, OutputLen: 1, RangeRatio: 0.9, PrefixLen: 3, NumPrompts: 10},
	}
	for _, tok := range toks {
		for name, cfg := range cfgs {
			t.Run(tok.Name()+"/"+name, func(t *testing.T) {
				ds, err := Load(Spec{Name: "r", Random: &cfg}, tok)
				if err != nil {
					t.Fatal(err)
				}
				checkRandom(t, cfg, tok, ds.Requests)
				if ds.Stats.Approximate != !tok.Exact() || ds.Stats.Source != "random" || ds.Stats.Sampled != cfg.NumPrompts {
					t.Errorf("stats %+v", ds.Stats)
				}
				if cfg.RangeRatio > 0.1 && ds.Stats.PromptLen.Min == ds.Stats.PromptLen.Max {
					t.Errorf("range_ratio %v: every prompt has %d tokens", cfg.RangeRatio, ds.Stats.PromptLen.Min)
				}
			})
		}
	}
}

func TestRandomSeed(t *testing.T) {
	load := func(seed int64) []Request {
		cfg := Random{InputLen: 30, OutputLen: 10, RangeRatio: 0.3, NumPrompts: 5, Seed: seed}
		ds, err := Load(Spec{Random: &cfg}, wordTokenizer{})
		if err != nil {
			t.Fatal(err)
		}
		return ds.Requests
	}
	if diff := cmp.Diff(load(7), load(7)); diff != "" {
		t.Errorf("same seed, different requests (-first +second):\n%s", diff)
	}
	if cmp.Equal(load(7), load(8)) {
		t.Errorf("seeds 7 and 8 give the same requests")
	}
}

func TestRandomErrors(t *testing.T) {
	tests := []struct {
		cfg  Random
		tok  tokenizer.Tokenizer
		want string
	}{
		{Random{InputLen: 10, OutputLen: 10, NumPrompts: 0}, wordTokenizer{}, "num_prompts must be at least 1"},
		{Random{InputLen: 10, OutputLen: 0, NumPrompts: 1}, wordTokenizer{}, "output_len must be at least 1"},
		{Random{InputLen: 10, OutputLen: 10, NumPrompts: 1, RangeRatio: 1}, wordTokenizer{}, "range_ratio must be in [0, 1)"},
		{Random{InputLen: 10, OutputLen: 10, NumPrompts: 1, RangeRatio: math.NaN()}, wordTokenizer{}, "range_ratio must be in [0, 1)"},
		{Random{InputLen: 1, OutputLen: 10, NumPrompts: 1}, wordTokenizer{bos: true}, "input_len 1 is too small"},
		{Random{InputLen: 10, OutputLen: 10, NumPrompts: 1}, failingTokenizer{}, "tokenizer server: POST /tokenize: connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, err := Load(Spec{Random: &tt.cfg}, tt.tok)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestRandomPrefixGroups: with a prefix block, the prompts fall into
// num_prefixes groups of equal size sharing exactly their first
// prefix_len + shared_prefix_len tokens, and keep their lengths.
func TestRandomPrefixGroups(t *testing.T) {
	for _, groups := range []int{1, 3, 7} {
		cfg := Random{InputLen: 20, OutputLen: 4, PrefixLen: 5, NumPrompts: 20, Seed: 2, Prefix: &Prefix{Len: 30, Groups: groups}}
		tok := tokenizer.Approximate()
		ds, err := Load(Spec{Name: "r", Random: &cfg}, tok)
		if err != nil {
			t.Fatal(err)
		}
		checkGroups(t, ds.Requests, 35, groups)
		for i, r := range ds.Requests {
			if got := len(tok.Encode(r.Prompt, true)); got != r.PromptLen || r.PromptLen != 55 {
				t.Errorf("%d groups: request %d has %d tokens (PromptLen %d), want 5 + 30 + 20", groups, i, got, r.PromptLen)
			}
		}
	}
	if _, err := Load(Spec{Name: "r", Random: &Random{InputLen: 8, OutputLen: 1, NumPrompts: 2, Prefix: &Prefix{Len: 4, Groups: 3}}}, nil); err == nil {
		t.Error("3 prefix groups for 2 prompts: no error")
	}
}
