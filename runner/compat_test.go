package runner

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmload/llmload/results"
)

// TestCheckWorkloads: results of another llmload version compare with a
// warning line; another workload is refused unless forced; another result
// format is refused, forced or not.
func TestCheckWorkloads(t *testing.T) {
	base := &results.Workload{Fingerprint: "f1", Model: "m", Dataset: []byte(`{"seed":1}`), ToolVersion: "v1.0.0"}
	tests := []struct {
		name           string
		cand           results.Workload
		force          bool
		wantOK         bool
		wantDiffs      int
		wantLog, noLog string
	}{
		{"the same", *base, false, true, 0, "", "warning"},
		{"another version", results.Workload{Fingerprint: "f2", Model: "m", Dataset: []byte(`{"seed":1}`), ToolVersion: "dev"}, false, true, 0,
			"llmload: warning: compare: the two runs were made by different llmload versions (v1.0.0 vs dev); compared all the same", "refusing"},
		{"another seed", results.Workload{Fingerprint: "f2", Model: "m", Dataset: []byte(`{"seed":2}`), ToolVersion: "v1.0.0"}, false, false, 1,
			"dataset.seed: 1 vs 2", "warning"},
		{"another seed, forced", results.Workload{Fingerprint: "f2", Model: "m", Dataset: []byte(`{"seed":2}`), ToolVersion: "v1.0.0"}, true, true, 1,
			"WARNING: -force", "refusing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log bytes.Buffer
			diffs, ok := CheckWorkloads(&log, "compare", base, &tt.cand, tt.force)
			if ok != tt.wantOK || len(diffs) != tt.wantDiffs {
				t.Errorf("ok %v with %d differences, want %v with %d\n%s", ok, len(diffs), tt.wantOK, tt.wantDiffs, log.String())
			}
			if !strings.Contains(log.String(), tt.wantLog) || tt.noLog != "" && strings.Contains(log.String(), tt.noLog) {
				t.Errorf("log, want %q and not %q:\n%s", tt.wantLog, tt.noLog, log.String())
			}
		})
	}
	for _, tt := range []struct {
		base, cand int
		want       bool
	}{{1, 1, true}, {1, 2, false}, {2, 1, false}} {
		var log bytes.Buffer
		if got := CheckFormats(&log, "compare", tt.base, tt.cand); got != tt.want || !tt.want && !strings.Contains(log.String(), "two result formats") {
			t.Errorf("formats %d and %d: %v, want %v\n%s", tt.base, tt.cand, got, tt.want, log.String())
		}
	}
}
