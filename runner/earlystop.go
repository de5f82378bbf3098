package runner

// A budget and early stopping (budget, stop_early): after each block of
// an A/B run, or each repeated run, the run checks that another fits its
// budget and, with stop_early, re-judges its regression block by a
// sequential gate (compare.Sequential) and stops once it is decided.

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/llmload/llmload/compare"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/scenario"
)

// earlyStop watches an A/B run's blocks or a repeat's runs.
type earlyStop struct {
	s    *scenario.Scenario
	log  io.Writer
	unit string // "block" or "run"
	// scheduled is how many the schedule (or repeat) has; longest the
	// longest one so far (with its cooldown), the estimate of the next.
	scheduled int
	longest   time.Duration
	started   time.Time
	now       func() time.Time
	seq       *compare.Sequential
	res       *results.Stopping
	// last is the last look's judged deltas.
	last []compare.Delta
}

// newEarlyStop watches a run of scheduled blocks or runs, each estimated
// to take about estimate (0: unknown until the first has run). It is nil
// when the scenario has neither budget nor stop_early.
func newEarlyStop(s *scenario.Scenario, log io.Writer, unit string, scheduled int, estimate time.Duration) *earlyStop {
	if s.Budget == nil && !s.StopEarly {
		return nil
	}
	e := &earlyStop{s: s, log: log, unit: unit, scheduled: scheduled, started: time.Now(), now: time.Now,
		res: &results.Stopping{Unit: unit, Scheduled: scheduled, Planned: scheduled, StopEarly: s.StopEarly}}
	if s.Budget != nil {
		e.res.Budget = s.Budget.String()
		e.res.BudgetSeconds = s.Budget.Wall.Seconds()
		if estimate > 0 {
			fit := int(s.Budget.Wall / estimate)
			e.res.Planned = min(scheduled, max(fit, 1))
		}
	}
	if s.StopEarly {
		e.seq = compare.NewSequential(0, e.res.Planned)
		e.res.Method = "sequential: alpha spending (Pocock-type), Bonferroni"
		e.res.Confidence = e.seq.Confidence
	}
	what := []string{}
	if s.Budget != nil {
		what = append(what, fmt.Sprintf("budget %s: at most %d of %d %ss", s.Budget, e.res.Planned, scheduled, unit))
	}
	if s.StopEarly {
		what = append(what, fmt.Sprintf("stop_early: the regression block is re-judged after every %s from the second, with intervals that hold %g%% over all the looks", unit, 100*e.seq.Confidence))
	}
	fmt.Fprintf(log, "llmload: %s\n", strings.Join(what, "; "))
	return e
}

// after is called once block or run k (from 1) has run, taking took (its
// cooldown included); judge judges the regression block at a confidence.
// It returns true when the run stops here.
func (e *earlyStop) after(k int, took time.Duration, judge func(confidence float64) []compare.Delta) bool {
	if e == nil {
		return false
	}
	e.longest = max(e.longest, took)
	e.res.Ran = k
	if k == 1 && e.s.Budget != nil && e.longest > 0 {
		// The first block or run measured what one takes (the estimate
		// before the run knew only the schedule): the plan the gate
		// spends its error rate over is what fits in the budget at that
		// pace. No look has been made yet, so the spending is unchanged.
		if p := min(e.scheduled, max(int(e.s.Budget.Wall/e.longest), 1)); p != e.res.Planned {
			e.res.Planned = p
			fmt.Fprintf(e.log, "llmload: %s 1 took %s: the budget of %s fits about %d of %d %ss\n", e.unit, e.longest.Round(time.Millisecond), e.s.Budget, p, e.scheduled, e.unit)
		}
		if e.seq != nil {
			e.seq.Planned = max(e.res.Planned, 2)
		}
	}
	last := k >= e.scheduled
	budget := false
	if !last && e.s.Budget != nil && e.now().Sub(e.started)+e.longest > e.s.Budget.Wall {
		budget, last = true, true
	}
	if e.seq != nil {
		if look, ok := e.seq.Next(k, last); ok {
			ds := judge(look.Confidence)
			e.last = ds
			v := compare.Verdict(ds)
			decided := compare.Decided(ds)
			e.seq.Record(v, decided)
			fmt.Fprintf(e.log, "llmload: after %s %d: regression %s at %s intervals (%s)\n", e.unit, k, v, compare.FormatConfidence(look.Confidence), lookSummary(ds))
			if decided && !last {
				e.res.Stopped = results.StoppedDecided
				fmt.Fprintf(e.log, "llmload: stopped early after %d of %d %ss: the regression block is decided (%s)\n", k, e.scheduled, e.unit, v)
				return true
			}
		}
	}
	if budget {
		e.res.Stopped = results.StoppedBudget
		fmt.Fprintf(e.log, "llmload: stopped after %d of %d %ss: another (about %s) would pass the budget of %s\n", k, e.scheduled, e.unit, e.longest.Round(time.Second), e.s.Budget)
		return true
	}
	return false
}

// lookSummary renders a look's judged figures: "ttft_p50 fail, itl_p50
// pass".
func lookSummary(ds []compare.Delta) string {
	var parts []string
	for _, d := range ds {
		if d.Verdict != "" {
			parts = append(parts, d.Key+" "+d.Verdict)
		}
	}
	return strings.Join(parts, ", ")
}

// confidence is the confidence the final verdict is judged at: the last
// look's (0: the default, when no look was made).
func (e *earlyStop) confidence() float64 {
	if e == nil || e.seq == nil || len(e.seq.Looks) == 0 {
		return 0
	}
	return e.seq.Looks[len(e.seq.Looks)-1].Confidence
}

// finish completes the record: how many ran, what they cost, what the
// whole schedule would have cost, and, for a verdict still inconclusive,
// how many more blocks or runs the observed effects would need. cut says
// the run was interrupted, aborted or could not go on.
func (e *earlyStop) finish(cut bool) *results.Stopping {
	if e == nil {
		return nil
	}
	r := e.res
	if cut && r.Stopped == "" {
		r.Stopped = results.StoppedCut
	}
	if r.Stopped == "" {
		r.Stopped = results.StoppedSchedule
	}
	r.ElapsedSeconds = e.now().Sub(e.started).Seconds()
	if r.Ran > 0 {
		r.FullSeconds = r.ElapsedSeconds / float64(r.Ran) * float64(e.scheduled)
	}
	if e.s.Budget != nil && e.s.Budget.GPUs > 0 {
		r.GPUMinutes = r.ElapsedSeconds / 60 * float64(e.s.Budget.GPUs)
		r.FullGPUMinutes = r.FullSeconds / 60 * float64(e.s.Budget.GPUs)
	}
	if e.seq != nil {
		r.Looks = e.seq.Looks
		// A cut run has no verdict of the gate: its last look was not the
		// final one, and what came after was never looked at.
		if n := len(r.Looks); n > 0 && r.Stopped != results.StoppedCut {
			r.Verdict = r.Looks[n-1].Verdict
			for _, d := range e.last {
				more, never, ok := compare.MoreNeeded(d, r.Ran, r.Looks[n-1].Confidence)
				if ok {
					r.MoreNeeded = append(r.MoreNeeded, results.MoreNeeded{Key: d.Key, More: more, Undecidable: never})
				}
			}
		}
	}
	return r
}
