package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/llmload/llmload/metrics"
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

// shardRun is shard i of n of run id, made of the open-loop fixture.
func shardRun(t *testing.T, id string, i, n int) *Result {
	r := openLoopRun()
	r.RunID = id
	r.Shard = &Shard{Index: i, Count: n}
	r.Sync = &Sync{StartAt: zero, StartLateMs: float64(i),
		TargetClock: &ClockOffset{OffsetMs: 3, UncertaintyMs: 250, RTTMs: 0.5, Probes: 6, Resolution: "1s"}}
	return result(t, r)
}

func TestMergeShards(t *testing.T) {
	s := func(id string, i, n int) *Result { return shardRun(t, id, i, n) }
	tests := []struct {
		name    string
		parts   []*Result
		err     string
		missing []int
	}{
		{"all shards", []*Result{s("r", 0, 3), s("r", 2, 3), s("r", 1, 3)}, "", nil},
		{"one missing", []*Result{s("r", 0, 3), s("r", 2, 3)}, "", []int{1}},
		{"the same shard twice", []*Result{s("r", 0, 2), s("r", 1, 2), s("r", 1, 2)}, "both hold shard 1 of run r", nil},
		{"mixed runs", []*Result{s("r", 0, 2), s("q", 1, 2)}, "only the shards of one run merge", nil},
		{"mixed shard counts", []*Result{s("r", 0, 2), s("r", 1, 3)}, "mixed shard counts", nil},
		{"a shard and an unsharded result", []*Result{s("r", 0, 2), result(t, openLoopRun())}, "mixes shard results with unsharded ones", nil},
		{"an unsharded result and a shard", []*Result{result(t, openLoopRun()), s("r", 0, 2)}, "mixes shard results with unsharded ones", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := MergeResults(tt.parts)
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
			var buf bytes.Buffer
			if err := WriteConsole(&buf, m); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(buf.String(), "shard 2/3") || (tt.missing != nil) != strings.Contains(buf.String(), "MISSING: shard 1 of 3") {
				t.Errorf("console lacks the per-shard table or the missing shard:\n%s", buf.String())
			}
			// A merged result merges again with the rest of its run, and
			// still refuses a shard it holds.
			if tt.missing != nil {
				again, err := MergeResults([]*Result{m, s("r", 1, 3)})
				if err != nil || len(again.MissingShards) != 0 || again.Completed != 3*tt.parts[0].Completed {
					t.Errorf("merging the missing shard in: %v, missing %v", err, again.MissingShards)
				}
				if _, err := MergeResults([]*Result{m, s("r", 0, 3)}); err == nil || !strings.Contains(err.Error(), "counted twice") {
					t.Errorf("merging a shard already merged: %v, want a refusal", err)
				}
			}
		})
	}
}
