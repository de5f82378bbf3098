package runner

import (
	"testing"

	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/scenario"
)

// outputs is a summary of 100 completed requests with the given numbers
// of defective answers and of answers ending at max_tokens, the output
// and reference tokens of those with a recorded answer, and expected
// answers met of 20 judged (-1: none judged).
func outputs(defective, length, output, reference, passed int) *metrics.Summary {
	s := &metrics.Summary{Completed: 100, DefectiveOutputs: defective, Finish: map[string]int{"length": length, "stop": 100 - length}}
	if reference > 0 {
		s.ReferencedAnswers, s.ReferenceTokens, s.ReferencedOutputTokens = 100, reference, output
	}
	if passed >= 0 {
		s.ExpectedJudged, s.ExpectedPassed = 20, passed
	}
	return s
}

// TestOutputShift: each output figure that moved sharply is named with
// its two values; small moves, and figures one side lacks, say nothing.
func TestOutputShift(t *testing.T) {
	healthy := outputs(0, 3, 5000, 10000, 18)
	tests := []struct {
		name       string
		base, cand *metrics.Summary
		want       string
	}{
		{"the same", healthy, outputs(0, 3, 5000, 10000, 18), ""},
		{"small moves", healthy, outputs(5, 10, 4000, 10000, 17), ""},
		{"a move of 10 points that does not double", outputs(50, 50, 5000, 10000, 10), outputs(60, 60, 5000, 10000, 8), ""},
		{"defects and max_tokens", healthy, outputs(41, 100, 10000, 10000, 18),
			"Outputs changed sharply against the baseline: defective outputs 0.0% -> 41.0%; requests ending at max_tokens 3.0% -> 100.0%; output length against the dataset's answers 50.0% -> 100.0%."},
		{"the complement halves: 60% -> 100% ending at max_tokens", outputs(0, 60, 5000, 10000, -1), outputs(0, 100, 5000, 10000, -1),
			"Outputs changed sharply against the baseline: requests ending at max_tokens 60.0% -> 100.0%."},
		{"answers a quarter shorter", healthy, outputs(0, 3, 3750, 10000, 18),
			"Outputs changed sharply against the baseline: output length against the dataset's answers 50.0% -> 37.5%."},
		{"answers a fifth shorter", healthy, outputs(0, 3, 4000, 10000, 18), ""},
		{"expected answers: 90% -> 70% met", healthy, outputs(0, 3, 5000, 10000, 14),
			"Outputs changed sharply against the baseline: expected answers met 90.0% -> 70.0%."},
		{"a figure the baseline lacks", outputs(0, 3, 0, 0, -1), outputs(0, 3, 1000, 10000, 2), ""},
		{"a fix is a sharp change too", outputs(80, 3, 5000, 10000, 18), healthy,
			"Outputs changed sharply against the baseline: defective outputs 80.0% -> 0.0%."},
		{"no candidate", healthy, nil, ""},
		{"nothing completed", healthy, &metrics.Summary{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := OutputShift(tt.base, tt.cand); got != tt.want {
				t.Errorf("OutputShift =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// TestComparisonNotesOutputShift: a run compared with a stored baseline
// carries the note in its comparison, which changes no verdict.
func TestComparisonNotesOutputShift(t *testing.T) {
	s := &scenario.Scenario{Name: "s", Baseline: "base.json"}
	base := &results.Result{Extras: results.Extras{Summary: outputs(0, 3, 5000, 10000, -1), RunID: "base"}}
	for _, tt := range []struct {
		name string
		cand *metrics.Summary
		want int
	}{
		{"healthy", outputs(0, 3, 5000, 10000, -1), 0},
		{"never stopping", outputs(0, 100, 10000, 10000, -1), 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := comparison(s, base, &results.Run{Overall: tt.cand, RunID: "cand"}, nil)
			if len(c.Notes) != tt.want || c.Verdict != "" {
				t.Errorf("notes %q, verdict %q; want %d notes and no verdict", c.Notes, c.Verdict, tt.want)
			}
		})
	}
}
