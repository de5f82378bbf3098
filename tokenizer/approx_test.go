package tokenizer

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestApproximateRoundTrip checks the property the random dataset relies
// on: Encode(Decode(ids)) gives back ids, so its length is len(ids).
func TestApproximateRoundTrip(t *testing.T) {
	a := Approximate()
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 17, 1000} {
		ids := make([]int, n)
		for i := range ids {
			ids[i] = r.IntN(a.VocabSize())
		}
		ids = append(ids[:0:0], ids...)
		if n >= 2 {
			ids[0], ids[1] = 0, a.VocabSize()-1
		}
		got := a.Encode(a.Decode(ids), false)
		if diff := cmp.Diff(ids, got); diff != "" {
			t.Errorf("Encode(Decode(%d ids)) (-want +got):\n%s", n, diff)
		}
	}
	if a.Exact() || a.Name() != "approximate" {
		t.Errorf("Exact() = %v, Name() = %q; want false, \"approximate\"", a.Exact(), a.Name())
	}
}

func TestApproximateCounts(t *testing.T) {
	a := Approximate()
	tests := []struct {
		text string
		want int
	}{
		{"", 0},
		{"Hello world", 2},
		{"internationalization", 4},
		{"12345", 2},
		{"a, b.", 4},
		{"line\n\nnext", 3},
		{"한국어", 3},
	}
	for _, tt := range tests {
		if got := len(a.Encode(tt.text, true)); got != tt.want {
			t.Errorf("len(Encode(%q)) = %d, want %d", tt.text, got, tt.want)
		}
	}
}

// TestApproximateVsLlama3 measures the approximation against Llama-3 on
// the ShareGPT prompts and replies; docs/tokenizer.md quotes the figures.
func TestApproximateVsLlama3(t *testing.T) {
	tok, _ := loadShared(t, "llama3")
	a := Approximate()
	for _, file := range []string{"mlenergy_ShareGPT_V3_filtered_500_first_turn.json", "sharegpt_like_500.json"} {
		var exact, approx, absErr float64
		n := 0
		for _, conv := range readConversations(t, filepath.Join(sharedShareGPT, file)) {
			for _, text := range conv {
				e, p := float64(len(tok.Encode(text, false))), float64(len(a.Encode(text, false)))
				if e == 0 {
					continue
				}
				exact += e
				approx += p
				absErr += math.Abs(p-e) / e
				n++
			}
		}
		total := (approx - exact) / exact
		t.Logf("%s: %d texts, total %+.1f%% vs Llama-3, mean |error| per text %.1f%%", file, n, 100*total, 100*absErr/float64(n))
		if math.Abs(total) > 0.2 {
			t.Errorf("%s: approximate total is %+.1f%% off Llama-3's, want within 20%%", file, 100*total)
		}
	}
	code := codeText(t)
	e, p := len(tok.Encode(code, false)), len(a.Encode(code, false))
	t.Logf("net/http/server.go: %d tokens, approximate %d (%+.1f%%)", e, p, 100*float64(p-e)/float64(e))
}
