package metrics

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestOutputLengthRatio: the answers' output tokens over the dataset's
// recorded answers' tokens, over the completed, measured requests that
// had one; merged results sum both sides.
func TestOutputLengthRatio(t *testing.T) {
	// tokens returns a completed request of n output tokens whose prompt
	// had a recorded answer of ref tokens.
	tokens := func(n, ref int) *Request {
		return with(ok(0, 0, 100*ms, make([]time.Duration, n-1)...), func(r *Request) { r.ReferenceLen = ref })
	}
	type sums struct{ Answers, Reference, Output int }
	tests := []struct {
		name  string
		reqs  []*Request
		want  sums
		ratio float64 // NaN: null
	}{
		{name: "no reference", reqs: []*Request{tokens(5, 0), tokens(7, 0)}, ratio: math.NaN()},
		{name: "answers as long as their references", reqs: []*Request{tokens(10, 10), tokens(30, 30)},
			want: sums{2, 40, 40}, ratio: 1},
		{name: "answers stopping early", reqs: []*Request{tokens(1, 50), tokens(2, 50), tokens(5, 0)},
			want: sums{2, 100, 3}, ratio: 0.03},
		{name: "warmup, failed, abandoned and canceled requests are left out", reqs: []*Request{
			tokens(20, 40),
			with(tokens(40, 40), func(r *Request) { r.Warmup = true }),
			with(failed(ErrStall), func(r *Request) { r.ReferenceLen = 40 }),
			with(failed(ErrCanceled), func(r *Request) { r.ReferenceLen = 40 }),
			with(tokens(3, 40), func(r *Request) { r.Error, r.Abandoned = ErrAbandoned, true }),
		}, want: sums{1, 40, 20}, ratio: 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRecorder(Options{})
			for _, req := range tt.reqs {
				r.Add(req)
			}
			s := r.SummaryOver(time.Second)
			if diff := cmp.Diff(tt.want, sums{s.ReferencedAnswers, s.ReferenceTokens, s.ReferencedOutputTokens}); diff != "" {
				t.Errorf("sums (-want +got):\n%s", diff)
			}
			got, has := s.Value("output_length_ratio", "")
			if math.IsNaN(tt.ratio) {
				if has {
					t.Errorf("output_length_ratio = %v; want null", got)
				}
				return
			}
			if !has || math.Abs(got-tt.ratio) > 1e-12 {
				t.Errorf("output_length_ratio = %v, %v; want %v", got, has, tt.ratio)
			}

			// Two halves, saved and merged, give the same figure.
			a, b := NewRecorder(Options{}), NewRecorder(Options{})
			for i, req := range tt.reqs {
				if i%2 == 0 {
					a.Add(req)
				} else {
					b.Add(req)
				}
			}
			m, err := MergeSummaries(saved(t, a.SummaryOver(time.Second)), saved(t, b.SummaryOver(time.Second)))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, sums{m.ReferencedAnswers, m.ReferenceTokens, m.ReferencedOutputTokens}); diff != "" {
				t.Errorf("merged sums (-want +got):\n%s", diff)
			}
			if v := m.OutputLengthRatio(); math.Abs(v-tt.ratio) > 1e-12 {
				t.Errorf("merged output_length_ratio = %v; want %v", v, tt.ratio)
			}
		})
	}
}
