package runner

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/llmload/llmload/results"
)

// TestSearcher runs the search against loads that pass up to a known
// capacity and checks the probes, the bracket and the outcome.
func TestSearcher(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		name          string
		min, max, prc float64
		integral      bool
		maxProbes     int
		capacity      float64 // loads <= capacity pass
		probes        []float64
		want          results.Search
	}{
		{
			name: "whole users: doubling then bisection to one user", min: 1, max: 64, prc: 0.05, integral: true, capacity: 23,
			probes: []float64{1, 2, 4, 8, 16, 32, 24, 20, 22, 23},
			want:   results.Search{Min: 1, Max: 64, Precision: 0.05, LastPass: 10, FirstFail: 7, Low: 23, High: 24, Width: f(1), RelWidth: f(1.0 / 23), Outcome: results.SearchConverged},
		},
		{
			name: "rates: within the precision", min: 1, max: 64, prc: 0.05, capacity: 10,
			probes: []float64{1, 2, 4, 8, 16, 12, 10, 11, 10.5},
			want:   results.Search{Min: 1, Max: 64, Precision: 0.05, LastPass: 7, FirstFail: 9, Low: 10, High: 10.5, Width: f(0.5), RelWidth: f(0.05), Outcome: results.SearchConverged},
		},
		{
			name: "everything passes up to max", min: 2, max: 20, prc: 0.05, integral: true, capacity: 100,
			probes: []float64{2, 4, 8, 16, 20},
			want:   results.Search{Min: 2, Max: 20, Precision: 0.05, LastPass: 5, Low: 20, Outcome: results.SearchMaxPassed},
		},
		{
			name: "min fails", min: 4, max: 20, prc: 0.05, integral: true, capacity: 2,
			probes: []float64{4},
			want:   results.Search{Min: 4, Max: 20, Precision: 0.05, FirstFail: 1, High: 4, Outcome: results.SearchMinFailed},
		},
		{
			name: "max_probes cuts the bisection", min: 1, max: 64, prc: 0.01, maxProbes: 7, capacity: 40,
			probes: []float64{1, 2, 4, 8, 16, 32, 64},
			want:   results.Search{Min: 1, Max: 64, Precision: 0.01, LastPass: 6, FirstFail: 7, Low: 32, High: 64, Width: f(32), RelWidth: f(1), Outcome: results.SearchMaxProbes},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewSearcher(tt.min, tt.max, tt.prc, tt.integral, tt.maxProbes)
			var probes []float64
			for {
				v, ok := s.Next()
				if !ok {
					break
				}
				if len(probes) > 50 {
					t.Fatal("the search does not end")
				}
				probes = append(probes, v)
				s.Record(v, len(probes), v <= tt.capacity)
			}
			if diff := cmp.Diff(tt.probes, probes); diff != "" {
				t.Errorf("probes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(&tt.want, s.Result()); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}
