package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/llmload/llmload/internal/testshared"
)

const sharedTokenizers = "../../shared/data/tokenizers"

type vector struct {
	Text string `json:"text"`
	IDs  []int  `json:"ids"`
}

// loadShared loads one of the shared real tokenizers and its vectors, or
// skips when ../shared is absent.
func loadShared(t testing.TB, name string) (*HF, []vector) {
	t.Helper()
	vs, err := readVectors(name)
	if errors.Is(err, fs.ErrNotExist) {
		testshared.Skipf(t, "shared tokenizer %s: %v", name, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	sharedMu.Lock()
	defer sharedMu.Unlock()
	tok := sharedLoaded[name]
	if tok == nil {
		if tok, err = Load(filepath.Join(sharedTokenizers, name, "tokenizer.json")); err != nil {
			t.Fatal(err)
		}
		sharedLoaded[name] = tok
	}
	return tok, vs
}

// readVectors reads the vectors.json of a shared tokenizer.
func readVectors(name string) ([]vector, error) {
	path := filepath.Join(sharedTokenizers, name, "vectors.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var vs []vector
	if err := json.Unmarshal(data, &vs); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return vs, nil
}

// fuzzSeeds are the texts of testdata/seed_texts.json and, when ../shared
// is there, of the vectors.
func fuzzSeeds(t testing.TB) []string {
	data, err := os.ReadFile(filepath.Join("testdata", "seed_texts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var seeds []string
	if err := json.Unmarshal(data, &seeds); err != nil {
		t.Fatalf("testdata/seed_texts.json: %v", err)
	}
	vs, err := readVectors("llama3")
	testshared.Missing(t, err)
	for _, v := range vs {
		seeds = append(seeds, v.Text)
	}
	return seeds
}

// sharedLoaded keeps the real tokenizers loaded once for the whole test run.
var (
	sharedMu     sync.Mutex
	sharedLoaded = map[string]*HF{}
)

var sharedNames = []string{"llama3", "qwen3", "mistral7b"}

func TestVectors(t *testing.T) {
	for _, name := range sharedNames {
		t.Run(name, func(t *testing.T) {
			tok, vs := loadShared(t, name)
			matched := 0
			for _, v := range vs {
				got := tok.Encode(v.Text, false)
				if diff := cmp.Diff(v.IDs, got); diff != "" {
					t.Errorf("Encode(%q) differs (-want +got):\n%s", v.Text, diff)
					continue
				}
				matched++
			}
			t.Logf("%s: %d/%d vectors matched", name, matched, len(vs))
		})
	}
}
