package dataset

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLengthStats(t *testing.T) {
	reqsOf := func(lens ...int) []Request {
		reqs := make([]Request, len(lens))
		for i, l := range lens {
			reqs[i] = Request{PromptLen: l}
		}
		return reqs
	}
	seq := make([]int, 100)
	for i := range seq {
		seq[i] = 100 - i // 100..1, unsorted
	}
	tests := []struct {
		name string
		lens []int
		want LengthStats
	}{
		{"none", nil, LengthStats{}},
		{"one", []int{7}, LengthStats{Min: 7, Max: 7, Mean: 7, P50: 7, P90: 7, P99: 7}},
		{"four", []int{4, 1, 3, 2}, LengthStats{Min: 1, Max: 4, Mean: 2.5, P50: 2, P90: 4, P99: 4}},
		{"1..100", seq, LengthStats{Min: 1, Max: 100, Mean: 50.5, P50: 50, P90: 90, P99: 99}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := lengthStats(reqsOf(tt.lens...), func(r Request) int { return r.PromptLen })
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadSpecErrors(t *testing.T) {
	sg, rnd := DefaultShareGPT(), DefaultRandom()
	for _, spec := range []Spec{{Name: "none"}, {Name: "two", ShareGPT: &sg, Random: &rnd}} {
		if _, err := Load(spec, wordTokenizer{}); err == nil {
			t.Errorf("Load(%s) succeeded, want an error", spec.Name)
		}
	}
}
