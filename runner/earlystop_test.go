package runner

import (
	"io"
	"math"
	"testing"
	"time"

	"github.com/llmload/llmload/compare"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/scenario"
)

// TestEarlyStop drives the watch of an A/B run's blocks on a fake clock:
// a look stops the run on a fail even while another figure is open, on
// passes only when every figure passed; the budget stops it before a
// block that would not fit; and a run cut short (Ctrl-C, an abort) is
// recorded as cut, never as a schedule that ran out.
func TestEarlyStop(t *testing.T) {
	open := []compare.Delta{{Key: "itl_p50", Verdict: compare.Inconclusive}, {Key: "ttft_p50", Verdict: compare.Inconclusive}}
	failing := []compare.Delta{{Key: "itl_p50", Verdict: compare.Inconclusive}, {Key: "ttft_p50", Verdict: compare.Fail}}
	passing := []compare.Delta{{Key: "itl_p50", Verdict: compare.Pass}, {Key: "ttft_p50", Verdict: compare.Pass}}
	for _, tt := range []struct {
		name   string
		budget time.Duration // 0: none
		stop   bool          // stop_early
		looks  [][]compare.Delta
		cut    bool // the run ends after the looks without stopping
		// want: the block the run stops after (0: it does not stop),
		// and how it is recorded.
		stopsAfter int
		stopped    string
	}{
		{"fail beside an open figure", 0, true, [][]compare.Delta{nil, open, failing}, false, 3, results.StoppedDecided},
		{"every figure passed", 0, true, [][]compare.Delta{nil, open, open, passing}, false, 4, results.StoppedDecided},
		{"open to the end", 0, true, [][]compare.Delta{nil, open, open, open, open, open}, false, 0, results.StoppedSchedule},
		{"budget", 35 * time.Second, false, [][]compare.Delta{nil, nil, nil}, false, 3, results.StoppedBudget},
		{"cut", 0, true, [][]compare.Delta{nil, open}, true, 0, results.StoppedCut},
		// stop_early within a budget: the first block re-plans the gate
		// to the 3 blocks that fit, and the budget's last look spends
		// what remains.
		{"budget with stop_early", 35 * time.Second, true, [][]compare.Delta{nil, open, open}, false, 3, results.StoppedBudget},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &scenario.Scenario{StopEarly: tt.stop}
			if tt.budget > 0 {
				s.Budget = &scenario.Budget{Wall: tt.budget}
			}
			e := newEarlyStop(s, io.Discard, "block", 6, 0)
			clock := time.Unix(0, 0)
			e.now, e.started = func() time.Time { return clock }, clock
			stoppedAt := 0
			for k, ds := range tt.looks {
				clock = clock.Add(10 * time.Second) // each block takes 10 s
				if e.after(k+1, 10*time.Second, func(float64) []compare.Delta { return ds }) {
					stoppedAt = k + 1
					break
				}
			}
			if stoppedAt != tt.stopsAfter {
				t.Errorf("stopped after block %d, want %d", stoppedAt, tt.stopsAfter)
			}
			r := e.finish(tt.cut)
			if r.Stopped != tt.stopped {
				t.Errorf("recorded as %q, want %q", r.Stopped, tt.stopped)
			}
			if r.Ran != len(tt.looks) && stoppedAt == 0 || stoppedAt > 0 && r.Ran != stoppedAt {
				t.Errorf("ran %d", r.Ran)
			}
			if r.FullSeconds != 60 {
				t.Errorf("the whole schedule at this pace: %gs, want 60s", r.FullSeconds)
			}
			if tt.budget > 0 && r.Planned != int(tt.budget/(10*time.Second)) {
				t.Errorf("planned %d blocks, want the %d that fit the budget at the first block's pace", r.Planned, int(tt.budget/(10*time.Second)))
			}
			if tt.stop && len(r.Looks) > 0 {
				sum := 0.0
				for _, l := range r.Looks {
					sum += l.Alpha
				}
				last := r.Looks[len(r.Looks)-1]
				switch {
				case tt.cut && (r.Verdict != "" || r.MoreNeeded != nil):
					t.Errorf("a cut run has the gate's verdict %q", r.Verdict)
				case !tt.cut && stoppedAt == 0 && (!last.Final || math.Abs(sum-0.05) > 1e-12):
					t.Errorf("ran to the end: last look final %v, spent %g; want final, 0.05", last.Final, sum)
				case tt.stopped == results.StoppedBudget && (!last.Final || math.Abs(sum-0.05) > 1e-12 || last.At != 3):
					t.Errorf("stopped at the budget: last look at %d final %v, spent %g; want at 3, final, 0.05", last.At, last.Final, sum)
				case sum > 0.05+1e-12:
					t.Errorf("spent %g, over 0.05", sum)
				}
			}
		})
	}
}
