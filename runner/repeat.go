package runner

// Repeated runs (repeat = N): the scenario's plan run N times, a cooldown
// apart, every run observed as parts of one run, and pooled.

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/llmload/llmload/compare"
	"github.com/llmload/llmload/executor"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/report"
	"github.com/llmload/llmload/scenario"
)

// partObservers hands the results of several executor runs to the run's
// observers as one run's: offsets count from the first part's time zero,
// ids keep rising, dataset indexes are mapped back to the dataset's
// (index, when set), and mark places each request (its repeat, arm and
// block).
type partObservers struct {
	obs    []executor.Observer
	zero   time.Time
	shift  time.Duration
	idBase int64
	maxID  int64
	index  []int
	mark   func(*metrics.Request)
}

// Start takes the first part's time zero as the run's.
func (po *partObservers) Start(zero time.Time) {
	if po.zero.IsZero() {
		po.zero = zero
		for _, o := range po.obs {
			if st, ok := o.(executor.Starter); ok {
				st.Start(zero)
			}
		}
	}
	po.shift = zero.Sub(po.zero)
}

// Result passes a copy of r moved onto the run's offsets and ids.
func (po *partObservers) Result(r *metrics.Request) {
	c := *r
	c.ID += po.idBase
	c.Intended += po.shift
	c.Dispatched += po.shift
	c.Sent += po.shift
	c.End += po.shift
	if c.Turn > 0 {
		c.Session += po.idBase
	}
	if po.index != nil && c.DatasetIndex >= 0 && c.DatasetIndex < len(po.index) {
		c.DatasetIndex = po.index[c.DatasetIndex]
	}
	if po.mark != nil {
		po.mark(&c)
	}
	po.maxID = max(po.maxID, c.ID)
	for _, o := range po.obs {
		o.Result(&c)
	}
}

// Snapshot passes snapshots on.
func (po *partObservers) Snapshot(s metrics.Snapshot) {
	for _, o := range po.obs {
		o.Snapshot(s)
	}
}

// next starts a part: its ids follow the previous part's.
func (po *partObservers) next(index []int, mark func(*metrics.Request)) {
	if !po.zero.IsZero() {
		po.idBase = po.maxID + 1
	}
	po.index, po.mark = index, mark
}

// pause waits d, or until ctx ends (false).
func pause(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// runRepeats runs the plan s.Repeats() times, s.Cooldown apart (each run
// with its warmup, only the first with the preflight probe), and returns
// the pooled outcome and the runs.
func runRepeats(ctx context.Context, log io.Writer, s *scenario.Scenario, plan executor.Plan, bounds scenario.Validity) (*executor.Outcome, *report.Repeats, error) {
	po := &partObservers{obs: plan.Observers}
	plan.Observers = []executor.Observer{po}
	n := s.Repeats()
	reps := &report.Repeats{Count: n, Cooldown: s.Cooldown.Seconds()}
	var outs []*executor.Outcome
	interrupted := false
	for i := range n {
		if i > 0 {
			fmt.Fprintf(log, "llmload: cooldown %v\n", s.Cooldown)
			if !pause(ctx, s.Cooldown) {
				interrupted = true
				break
			}
			plan.Preflight = false
		}
		fmt.Fprintf(log, "llmload: run %d of %d\n", i+1, n)
		run := i + 1
		po.next(nil, func(r *metrics.Request) { r.Repeat = run })
		started := time.Now()
		out, err := executor.Run(ctx, plan)
		if err != nil {
			if i == 0 {
				return nil, nil, err
			}
			interrupted = true
			break
		}
		outs = append(outs, out)
		own := *out.Overall
		own.Series = nil
		reps.Runs = append(reps.Runs, report.RepeatRun{
			Run: run, StartedAt: started, EndedAt: time.Now(), TimeZero: out.Started.Round(0).UTC(),
			Valid: ReportValidity(bounds, &own).Valid, Summary: &own,
		})
		if out.Interrupted || out.Aborted != "" {
			break
		}
	}
	sums := make([]*metrics.Summary, len(outs))
	for i, o := range outs {
		sums[i] = o.Overall
	}
	pooled, err := metrics.PoolSummaries(sums...)
	if err != nil {
		return nil, nil, err
	}
	last := outs[len(outs)-1]
	out := &executor.Outcome{
		Overall: pooled, Started: outs[0].Started, ConfiguredRate: outs[0].ConfiguredRate,
		Interrupted: interrupted || last.Interrupted || ctx.Err() != nil, Aborted: last.Aborted,
		Elapsed: last.Started.Add(last.Elapsed).Sub(outs[0].Started),
	}
	for _, o := range outs {
		out.Planned += o.Planned
	}
	if out.Stages, err = poolStages(outs); err != nil {
		return nil, nil, err
	}
	reps.Spread = spreads(reps.Summaries(), pooled)
	return out, reps, nil
}

// poolStages pools each closed-loop stage over the runs: its figures over
// the sum of the runs' stage durations.
func poolStages(outs []*executor.Outcome) ([]executor.StageOutcome, error) {
	var stages []executor.StageOutcome
	for i := range outs[0].Stages {
		st := outs[0].Stages[i]
		var sums []*metrics.Summary
		var d time.Duration
		for _, o := range outs {
			if i < len(o.Stages) {
				sums = append(sums, o.Stages[i].Summary)
				d += o.Stages[i].Duration
			}
		}
		pooled, err := metrics.MergeStageSummaries(d, sums...)
		if err != nil {
			return nil, fmt.Errorf("stage %d: %w", i+1, err)
		}
		st.Summary, st.Duration = pooled, d
		stages = append(stages, st)
	}
	return stages, nil
}

// spreads computes the spread over runs of the figures compare shows.
func spreads(runs []*metrics.Summary, pooled *metrics.Summary) []report.Spread {
	return spreadsOf(runs, compareRows(pooled.GoodRequests > 0))
}

// spreadsOf is the spread over runs of each figure in rows that the runs
// have.
func spreadsOf(runs []*metrics.Summary, rows []compare.Row) []report.Spread {
	var out []report.Spread
	for _, r := range rows {
		sp, ok := compare.RunSpread(runs, r.Metric, r.Stat)
		if !ok {
			continue
		}
		m, _ := metrics.Lookup(r.Metric)
		out = append(out, report.NewSpread(compare.Key(r.Metric, r.Stat), r.Metric, r.Stat, m.Unit, sp.Values, sp.Median, sp.Min, sp.Max, sp.CV))
	}
	return out
}

// repeatsValidity is the pooled run's validity, made invalid when a run
// was invalid on its own (a stall in one run hides in the pool).
func repeatsValidity(bounds scenario.Validity, pooled *metrics.Summary, reps *report.Repeats) *report.Validity {
	v := ReportValidity(bounds, pooled)
	if reps == nil || len(reps.Runs) == 0 {
		return v
	}
	bad := 0
	for _, r := range reps.Runs {
		if !r.Valid {
			bad++
		}
	}
	rule := report.Rule{
		Name: "invalid_runs", Description: "share of the repeated runs that were invalid on their own",
		Value: float64(bad) / float64(len(reps.Runs)), Bound: 0, Unit: "fraction", Applies: true, Valid: bad == 0,
		Why: fmt.Sprintf("%d of %d runs", bad, len(reps.Runs)),
	}
	v.Rules = append(v.Rules, rule)
	v.Valid = v.Valid && rule.Valid
	return v
}
