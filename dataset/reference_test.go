package dataset

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmload/llmload/internal/testshared"
	"github.com/llmload/llmload/tokenizer"
)

const sharedSharegpt = "../../shared/data/sharegpt"

// readShared reads a file from ../shared, skipping the test when the folder
// is absent.
func readShared(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		testshared.Skipf(t, "reading %s: %v", path, err)
	}
	return data
}

// TestShuffleReference checks the order of the usable entries after the
// shuffle against CPython's (reference/shuffle-FILE.json: seed -> original
// array indices in shuffled order).
func TestShuffleReference(t *testing.T) {
	refs, _ := filepath.Glob(filepath.Join(sharedSharegpt, "reference", "shuffle-*.json"))
	if len(refs) == 0 {
		testshared.Skipf(t, "no %s/reference/shuffle-*.json", sharedSharegpt)
	}
	for _, ref := range refs {
		file := strings.TrimPrefix(filepath.Base(ref), "shuffle-")
		var orders map[string][]int
		if err := json.Unmarshal(readShared(t, ref), &orders); err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		data := readShared(t, filepath.Join(sharedSharegpt, file))
		for seed, want := range orders {
			t.Run(file+"/"+seed, func(t *testing.T) {
				s, err := strconv.ParseInt(seed, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				entries, err := scanShareGPT(file, data, &Stats{Skipped: map[string]int{}})
				if err != nil {
					t.Fatal(err)
				}
				newPyRandom(s).shuffle(len(entries), func(i, j int) { entries[i], entries[j] = entries[j], entries[i] })
				got := make([]int, len(entries))
				for i, e := range entries {
					got[i] = e.index
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("shuffled order (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestSamplesReference runs whole samplings (vLLM's rules, CPython's
// shuffle and oversampling, Hugging Face token counts) from
// reference/samples.json with the exact tokenizer.
func TestSamplesReference(t *testing.T) {
	var cases []struct {
		File       string      `json:"file"`
		Tokenizer  string      `json:"tokenizer"`
		Seed       int64       `json:"seed"`
		NumPrompts int         `json:"num_prompts"`
		OutputLen  *int        `json:"output_len"`
		Samples    []refSample `json:"samples"`
	}
	if err := json.Unmarshal(readShared(t, filepath.Join(sharedSharegpt, "reference", "samples.json")), &cases); err != nil {
		t.Fatal(err)
	}
	toks := map[string]tokenizer.Tokenizer{}
	matched := 0
	for _, c := range cases {
		name := strings.Join([]string{c.File, c.Tokenizer, strconv.FormatInt(c.Seed, 10), strconv.Itoa(c.NumPrompts)}, "/")
		if c.OutputLen != nil {
			name += "/output_len=" + strconv.Itoa(*c.OutputLen)
		}
		ok := t.Run(name, func(t *testing.T) {
			tok, found := toks[c.Tokenizer]
			if !found {
				path := filepath.Join("../../shared/data/tokenizers", c.Tokenizer, "tokenizer.json")
				readShared(t, path)
				hf, err := tokenizer.Load(path)
				if err != nil {
					t.Fatal(err)
				}
				tok = hf
				toks[c.Tokenizer] = tok
			}
			cfg := DefaultShareGPT()
			cfg.Path = filepath.Join(sharedSharegpt, c.File)
			cfg.Seed = c.Seed
			cfg.NumPrompts = c.NumPrompts
			if c.OutputLen != nil {
				cfg.OutputLen = *c.OutputLen
			}
			ds, err := Load(Spec{Name: "ref", ShareGPT: &cfg}, tok)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]refSample, len(ds.Requests))
			for i, r := range ds.Requests {
				got[i] = refSample{r.Index, r.PromptLen, r.OutputLen}
			}
			if diff := cmp.Diff(c.Samples, got); diff != "" {
				t.Errorf("samples (-want +got):\n%s", diff)
			}
		})
		if ok {
			matched++
		}
	}
	t.Logf("%d of %d reference samplings match", matched, len(cases))
}

// TestRandomExactTokenizers: with real tokenizers, random prompts
// re-encode to exactly PromptLen tokens.
func TestRandomExactTokenizers(t *testing.T) {
	cfgs := map[string]Random{
		"default lengths": {InputLen: 1024, OutputLen: 128, NumPrompts: 8, Seed: 3},
		"spread, prefix":  {InputLen: 200, OutputLen: 50, RangeRatio: 0.5, PrefixLen: 64, NumPrompts: 40, Seed: 4},
	}
	for _, name := range []string{"llama3", "mistral7b"} {
		path := filepath.Join("../../shared/data/tokenizers", name, "tokenizer.json")
		readShared(t, path)
		tok, err := tokenizer.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		for cname, cfg := range cfgs {
			t.Run(name+"/"+cname, func(t *testing.T) {
				ds, err := Load(Spec{Name: "r", Random: &cfg}, tok)
				if err != nil {
					t.Fatal(err)
				}
				checkRandom(t, cfg, tok, ds.Requests)
			})
		}
	}
}
