package report

import (
	"strings"
	"testing"
)

func TestMergeResultsRefuses(t *testing.T) {
	res := func(mod func(r *Run)) *Result {
		r := openLoopRun()
		mod(r)
		return result(t, r)
	}
	base := res(func(*Run) {})
	tests := []struct {
		name  string
		other *Result
		want  string
	}{
		{"other scenario", res(func(r *Run) { r.Scenario = "other"; r.RunID = "run-9" }), "only results of one scenario merge"},
		{"other configuration", res(func(r *Run) { r.Fingerprint = "f9"; r.RunID = "run-9" }), "different configuration"},
		{"no fingerprint", res(func(r *Run) { r.Fingerprint = ""; r.RunID = "run-9" }), "no configuration fingerprint"},
		{"the same run", res(func(*Run) {}), "counted twice"},
		{"other stage count", res(func(r *Run) { r.RunID = "run-9"; r.Stages = closedLoopRun().Stages }), "stages"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := MergeResults([]*Result{base, tt.other})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("MergeResults error %v, want one containing %q", err, tt.want)
			}
		})
	}
	if _, err := MergeResults(nil); err == nil {
		t.Error("merging nothing succeeded")
	}
}

func TestMergeResultsSums(t *testing.T) {
	a := result(t, openLoopRun())
	r := openLoopRun()
	r.RunID = "run-2"
	b := result(t, r)
	m, err := MergeResults([]*Result{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if m.Completed != 2*a.Completed || m.Failed != 2*a.Failed || m.NumPrompts != 2*a.NumPrompts {
		t.Errorf("merged completed %d failed %d prompts %d; want twice %d %d %d", m.Completed, m.Failed, m.NumPrompts, a.Completed, a.Failed, a.NumPrompts)
	}
	if m.Summary.TTFT.P99 != a.Summary.TTFT.P99 || m.Summary.TTFT.Count != 2*a.Summary.TTFT.Count {
		t.Errorf("merging a run with itself must keep percentiles and double counts: %+v", m.Summary.TTFT)
	}
	// Both parts ran over the same wall-clock span: throughput doubles.
	if got, want := m.RequestThroughput, 2*float64(a.Completed)/m.Duration; got != want {
		t.Errorf("merged request throughput %v, want %v", got, want)
	}
	if len(m.Parts) != 2 || m.Parts[1].RunID != "run-2" {
		t.Errorf("parts %+v", m.Parts)
	}
	// A merged result merges again, and its parts still refuse duplicates.
	if _, err := MergeResults([]*Result{m, a}); err == nil || !strings.Contains(err.Error(), "counted twice") {
		t.Errorf("merging a merged result with one of its parts: %v, want a refusal", err)
	}
}
