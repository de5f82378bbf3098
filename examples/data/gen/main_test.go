package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/llmload/llmload/tokenizer"
)

const committed = "../sharegpt_synthetic.json"

// TestCommittedFileIsGenerated: the file the examples read is exactly what
// the generator writes, so its provenance is this program.
func TestCommittedFileIsGenerated(t *testing.T) {
	want, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := Write(&got, DefaultOptions); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, got.Bytes()) {
		t.Fatalf("%s differs from the generator's output: run `go run ./examples/data/gen > examples/data/sharegpt_synthetic.json`", committed)
	}
}

// TestShape checks the structure and the length distributions the
// examples and the calibration rely on.
func TestShape(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, DefaultOptions); err != nil {
		t.Fatal(err)
	}
	var entries []entry
	if err := json.Unmarshal(buf.Bytes(), &entries); err != nil {
		t.Fatal(err)
	}
	turns := map[int]int{}
	tok := tokenizer.Approximate()
	var prompts, replies []float64
	for _, e := range entries {
		turns[len(e.Conversations)]++
		for i, c := range e.Conversations {
			want := "human"
			if i%2 == 1 {
				want = "gpt"
			}
			if c.From != want {
				t.Fatalf("%s turn %d is from %q, want %q", e.ID, i, c.From, want)
			}
		}
		if len(e.Conversations) >= 2 {
			prompts = append(prompts, float64(len(tok.Encode(e.Conversations[0].Value, true))))
			replies = append(replies, float64(len(tok.Encode(e.Conversations[1].Value, true))))
		}
	}
	if diff := cmp.Diff([]int{1, 2, 4, 6}, sortedKeys(turns)); diff != "" {
		t.Errorf("conversation lengths (-want +got):\n%s", diff)
	}
	if turns[2] < len(entries)/2 {
		t.Errorf("%d of %d conversations have one exchange, want most", turns[2], len(entries))
	}
	tests := []struct {
		name             string
		x                []float64
		medLo, medHi     float64
		meanLo, meanHi   float64
		sigmaLo, sigmaHi float64
	}{
		{"first prompt", prompts, 20, 50, 60, 120, 1.2, 1.8},
		{"first reply", replies, 130, 190, 180, 260, 0.6, 1.0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			med, mean, sigma := describe(tt.x)
			t.Logf("median %.0f, mean %.1f, sigma of log %.2f tokens", med, mean, sigma)
			if med < tt.medLo || med > tt.medHi || mean < tt.meanLo || mean > tt.meanHi || sigma < tt.sigmaLo || sigma > tt.sigmaHi {
				t.Errorf("median %.0f (want %v-%v), mean %.1f (want %v-%v), sigma %.2f (want %v-%v)",
					med, tt.medLo, tt.medHi, mean, tt.meanLo, tt.meanHi, sigma, tt.sigmaLo, tt.sigmaHi)
			}
		})
	}
}

func describe(x []float64) (median, mean, sigma float64) {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	var sum, logSum float64
	for _, v := range s {
		sum += v
		logSum += math.Log(v)
	}
	n := float64(len(s))
	mu := logSum / n
	var ss float64
	for _, v := range s {
		ss += (math.Log(v) - mu) * (math.Log(v) - mu)
	}
	return s[len(s)/2], sum / n, math.Sqrt(ss / n)
}

func sortedKeys(m map[int]int) []int {
	var keys []int
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}
