package runner

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmload/llmload/assert"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/scenario"
)

// TestDestinationFor: an explicit -out is written as asked (a .json path
// names the file), the default directory gets a folder per run and a
// "latest" pointer, -overwrite writes into it; a shard writes under
// shard-<i>.
func TestDestinationFor(t *testing.T) {
	s := &scenario.Scenario{Name: "chat"}
	now := time.Date(2026, 12, 3, 7, 0, 0, 0, time.UTC)
	tests := []struct {
		out                 string
		explicit, overwrite bool
		want                destination
	}{
		{"", false, false, destination{}},
		{"res/x.json", true, false, destination{dir: "res", name: "x.json"}},
		{"res", true, false, destination{dir: "res", name: s.ResultFile()}},
		{"res", false, true, destination{dir: "res", name: s.ResultFile()}},
		{"res", false, false, destination{dir: filepath.Join("res", "2026-12-03T07-00-00Z-chat"), name: s.ResultFile(), latest: "res"}},
	}
	for _, tt := range tests {
		if got := destinationFor(tt.out, tt.explicit, tt.overwrite, s, now); got != tt.want {
			t.Errorf("destinationFor(%q, %v, %v) = %+v, want %+v", tt.out, tt.explicit, tt.overwrite, got, tt.want)
		}
	}
	if got := (Shard{Index: 2, Count: 4}).shardDir("res"); got != filepath.Join("res", "shard-2") {
		t.Errorf("shard 2 of 4 writes to %s, want res/shard-2", got)
	}
	if got := (Shard{Index: 0, Count: 1}).shardDir("res"); got != "res" {
		t.Errorf("a run of one shard writes to %s, want res", got)
	}
}

// TestJudge: the status of a finished run, and what it says: an
// interruption outranks everything, then no completed request, then a
// failed check; inconclusive checks are no result unless allowed.
func TestJudge(t *testing.T) {
	done := &metrics.Summary{Completed: 10}
	outcome := func(v string) []assert.Outcome {
		return []assert.Outcome{{Check: metrics.Check{Name: "ttft_p99", Passed: v == assert.Pass, Verdict: v}}}
	}
	tests := []struct {
		name        string
		interrupted bool
		sum         *metrics.Summary
		outs        []assert.Outcome
		allow       bool
		want        Status
		says        string
	}{
		{"pass", false, done, outcome(assert.Pass), false, StatusOK, ""},
		{"fail", false, done, outcome(assert.Fail), false, StatusFailed, ""},
		{"interrupted", true, done, outcome(assert.Fail), false, StatusInterrupted, "interrupted; partial results above"},
		{"nothing completed", false, &metrics.Summary{}, outcome(assert.Pass), false, StatusNoResult, "no request completed"},
		{"inconclusive", false, done, outcome(assert.Inconclusive), false, StatusNoResult, "1 check inconclusive: no valid verdict"},
		{"inconclusive allowed", false, done, outcome(assert.Inconclusive), true, StatusOK, "accepted by allow_inconclusive"},
	}
	for _, tt := range tests {
		var log bytes.Buffer
		if got := Judge(&log, tt.interrupted, tt.sum, tt.outs, &results.Validity{Valid: true}, tt.allow); got != tt.want {
			t.Errorf("%s: status %d, want %d (%s)", tt.name, got, tt.want, log.String())
		}
		if !strings.Contains(log.String(), tt.says) || tt.says == "" && log.Len() > 0 {
			t.Errorf("%s: says %q, want %q", tt.name, log.String(), tt.says)
		}
	}
}
