package results_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/llmload/llmload/results"
)

// TestWorkloadDifferences: the llmload version is no difference of the
// workload (results of two versions compare, with a warning), while
// everything the run sent is.
func TestWorkloadDifferences(t *testing.T) {
	base := results.Workload{Fingerprint: "f1", Model: "m", API: "openai", Load: []byte(`{"requests":10}`), Dataset: []byte(`{"seed":1}`), Tokenizer: "tok", ToolVersion: "v1.0.0"}
	with := func(edit func(w *results.Workload)) *results.Workload {
		w := base
		edit(&w)
		return &w
	}
	tests := []struct {
		name        string
		cand        *results.Workload
		wantDiffs   []string
		wantVersion string
	}{
		{"the same", with(func(w *results.Workload) {}), nil, ""},
		{"another llmload version, so another fingerprint", with(func(w *results.Workload) { w.ToolVersion, w.Fingerprint = "dev", "f2" }),
			nil, "v1.0.0 vs dev"},
		{"another seed", with(func(w *results.Workload) { w.Dataset, w.Fingerprint = []byte(`{"seed":2}`), "f2" }),
			[]string{"dataset.seed: 1 vs 2"}, ""},
		{"another seed and version", with(func(w *results.Workload) { w.Dataset, w.ToolVersion = []byte(`{"seed":2}`), "dev" }),
			[]string{"dataset.seed: 1 vs 2"}, "v1.0.0 vs dev"},
		{"one version, fields equal, another fingerprint", with(func(w *results.Workload) { w.Fingerprint = "f2" }),
			[]string{"fingerprint: f1 vs f2"}, ""},
		{"none recorded", nil, []string{"workload: one result records none (written by an older llmload)"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.wantDiffs, base.Differences(tt.cand)); diff != "" {
				t.Errorf("Differences (-want +got):\n%s", diff)
			}
			if got := base.VersionDifference(tt.cand); got != tt.wantVersion {
				t.Errorf("VersionDifference %q, want %q", got, tt.wantVersion)
			}
		})
	}
}

func TestResultFormat(t *testing.T) {
	for _, tt := range []struct {
		recorded, want int
	}{{0, 1}, {1, 1}, {2, 2}} {
		r := &results.Result{}
		r.ResultFormat = tt.recorded
		if got := r.Format(); got != tt.want {
			t.Errorf("result_format %d: Format() = %d, want %d", tt.recorded, got, tt.want)
		}
	}
}
