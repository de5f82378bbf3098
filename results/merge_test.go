package results_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/results/resultstest"
)

func TestMergeResultsRefuses(t *testing.T) {
	res := func(mod func(r *results.Run)) *results.Result {
		r := openLoopRun()
		mod(r)
		return result(t, r)
	}
	base := res(func(*results.Run) {})
	tests := []struct {
		name  string
		other *results.Result
		want  string
	}{
		{"other scenario", res(func(r *results.Run) { r.Scenario = "other"; r.RunID = "run-9" }), "only results of one scenario merge"},
		{"other configuration", res(func(r *results.Run) { r.Fingerprint = "f9"; r.RunID = "run-9" }), "different configuration"},
		{"no fingerprint", res(func(r *results.Run) { r.Fingerprint = ""; r.RunID = "run-9" }), "no configuration fingerprint"},
		{"the same run", res(func(*results.Run) {}), "counted twice"},
		{"other stage count", res(func(r *results.Run) { r.RunID = "run-9"; r.Stages = closedLoopRun().Stages }), "stages"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := results.MergeResults([]*results.Result{base, tt.other})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("MergeResults error %v, want one containing %q", err, tt.want)
			}
		})
	}
	if _, err := results.MergeResults(nil); err == nil {
		t.Error("merging nothing succeeded")
	}
}

func TestMergeResultsSums(t *testing.T) {
	a := result(t, openLoopRun())
	r := openLoopRun()
	r.RunID = "run-2"
	b := result(t, r)
	m, err := results.MergeResults([]*results.Result{a, b})
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
	if _, err := results.MergeResults([]*results.Result{m, a}); err == nil || !strings.Contains(err.Error(), "counted twice") {
		t.Errorf("merging a merged result with one of its parts: %v, want a refusal", err)
	}
}

func TestMergeShards(t *testing.T) {
	s := func(id string, i, n int) *results.Result { return resultstest.Shard(t, id, i, n) }
	tests := []struct {
		name    string
		parts   []*results.Result
		err     string
		missing []int
	}{
		{"all shards", []*results.Result{s("r", 0, 3), s("r", 2, 3), s("r", 1, 3)}, "", nil},
		{"one missing", []*results.Result{s("r", 0, 3), s("r", 2, 3)}, "", []int{1}},
		{"the same shard twice", []*results.Result{s("r", 0, 2), s("r", 1, 2), s("r", 1, 2)}, "both hold shard 1 of run r", nil},
		{"mixed runs", []*results.Result{s("r", 0, 2), s("q", 1, 2)}, "only the shards of one run merge", nil},
		{"mixed shard counts", []*results.Result{s("r", 0, 2), s("r", 1, 3)}, "mixed shard counts", nil},
		{"a shard and an unsharded result", []*results.Result{s("r", 0, 2), result(t, openLoopRun())}, "mixes shard results with unsharded ones", nil},
		{"an unsharded result and a shard", []*results.Result{result(t, openLoopRun()), s("r", 0, 2)}, "mixes shard results with unsharded ones", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := results.MergeResults(tt.parts)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.missing, m.MissingShards); diff != "" || m.ShardCount != tt.parts[0].Shard.Count {
				t.Errorf("shard count %d, missing (-want +got):\n%s", m.ShardCount, diff)
			}
			if len(m.Parts) != len(tt.parts) || m.RunID != "r" {
				t.Fatalf("run id %q, parts %+v", m.RunID, m.Parts)
			}
			for i, pt := range m.Parts {
				want := tt.parts[i]
				if *pt.Shard != *want.Shard || pt.Failed != want.Failed || pt.Errors[metrics.ErrHTTPStatus] != want.Summary.Errors[metrics.ErrHTTPStatus] ||
					pt.LagP99 != want.Summary.Lag.P99 || pt.StartLateMs != want.Sync.StartLateMs || *pt.ClockOffsetMs != 3 || pt.LeaderOffsetMs != nil {
					t.Errorf("part %d: %+v does not describe its shard", i, pt)
				}
			}
			// A merged result merges again with the rest of its run, and
			// still refuses a shard it holds.
			if tt.missing != nil {
				again, err := results.MergeResults([]*results.Result{m, s("r", 1, 3)})
				if err != nil || len(again.MissingShards) != 0 || again.Completed != 3*tt.parts[0].Completed {
					t.Errorf("merging the missing shard in: %v, missing %v", err, again.MissingShards)
				}
				if _, err := results.MergeResults([]*results.Result{m, s("r", 0, 3)}); err == nil || !strings.Contains(err.Error(), "counted twice") {
					t.Errorf("merging a shard already merged: %v, want a refusal", err)
				}
			}
		})
	}
}
