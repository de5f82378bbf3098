package runner

// Repeated runs (repeat = N): the scenario's plan run N times, a cooldown
// apart, every run observed as parts of one run, and pooled.

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/llmload/llmload/assert"
	"github.com/llmload/llmload/compare"
	"github.com/llmload/llmload/executor"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/scenario"
)

// repeats is a scenario's repeat = N: its plan run N times as one
// repeat, pooled, with each run's own figures and validity and the spread
// of the figures compare shows.
type repeats struct {
	s      *scenario.Scenario
	log    io.Writer
	bounds scenario.Validity
	stop   *stop
	// reps is what the runs measured, for the result.
	reps *results.Repeats
	// base is the stored baseline a sequential gate judges against (nil:
	// none).
	base *assert.Baseline
}

func (rs *repeats) run(ctx context.Context, plan executor.Plan) (*executor.Outcome, error) {
	s := rs.s
	n := s.Repeats()
	rp := &repeat{n: n, cooldown: s.Cooldown, log: rs.log, po: observeParts(&plan), stop: rs.stop, part: once{},
		say:  func(run int) string { return fmt.Sprintf("run %d of %d", run, n) },
		mark: func(run int, r *metrics.Request) { r.Repeat = run },
	}
	es := rs.earlyStop(plan)
	if es != nil {
		rp.after = func(run int, took time.Duration, runs []repeatRun) bool {
			return es.after(run, took, func(conf float64) []compare.Delta { return rs.look(conf, runs) })
		}
	}
	runs, cut, err := rp.run(ctx, plan)
	if err != nil {
		return nil, err
	}
	rs.reps = &results.Repeats{Count: n, Cooldown: s.Cooldown.Seconds(), Stopping: es.finish(cut)}
	for i, r := range runs {
		own := *r.out.Overall
		own.Series = nil
		rs.reps.Runs = append(rs.reps.Runs, results.RepeatRun{
			Run: i + 1, StartedAt: r.started, EndedAt: r.ended, TimeZero: r.out.Started.Round(0).UTC(),
			Valid: ReportValidity(rs.bounds, &own).Valid, Summary: &own,
		})
	}
	out, err := pool(ctx, outcomes(runs), cut, rs.stop)
	if err != nil {
		return nil, err
	}
	rs.reps.Spread = spreads(rs.reps.Summaries(), out.Overall)
	return out, nil
}

// earlyStop watches the runs for a budget and stop_early (nil: neither).
// A sequential gate needs the baseline's repeated runs: it judges by the
// run-to-run spread.
func (rs *repeats) earlyStop(plan executor.Plan) *earlyStop {
	s := rs.s
	if s.StopEarly && (rs.base == nil || len(rs.base.Runs) < compare.MinRuns) {
		fmt.Fprintf(rs.log, "llmload: stop_early: the baseline holds no repeated runs (repeat = N), so no gate can judge by the run-to-run spread: every run runs\n")
		sc := *s
		sc.StopEarly = false
		s = &sc
	}
	// A run takes about its schedule's length and a cooldown.
	estimate := time.Duration(0)
	if offs := executor.Arrivals(plan); len(offs) > 0 {
		estimate = offs[len(offs)-1] + s.Cooldown
	} else if plan.Duration > 0 {
		estimate = plan.Duration + s.Cooldown
	}
	e := newEarlyStop(s, rs.log, "run", s.Repeats(), estimate)
	if e != nil && e.seq != nil {
		e.res.BaselineRunID = rs.base.RunID
	}
	return e
}

// look judges the regression block on the runs so far against the stored
// baseline's runs, at a sequential gate's confidence.
func (rs *repeats) look(confidence float64, runs []repeatRun) []compare.Delta {
	sums := summaries(outcomes(runs))
	cand, err := metrics.PoolSummaries(sums...)
	if err != nil {
		return nil
	}
	return compare.Compare(rs.base.Summary, cand, []compare.Row{}, sequentialTolerances(rs.s), compare.Options{
		Confidence: confidence, BaseRuns: rs.base.Runs, NewRuns: sums, MinSamples: int64(rs.s.MinSamples)})
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
func spreads(runs []*metrics.Summary, pooled *metrics.Summary) []results.Spread {
	return spreadsOf(runs, compareRows(pooled.GoodRequests > 0))
}

// spreadsOf is the spread over runs of each figure in rows that the runs
// have.
func spreadsOf(runs []*metrics.Summary, rows []compare.Row) []results.Spread {
	var out []results.Spread
	for _, r := range rows {
		sp, ok := compare.RunSpread(runs, r.Metric, r.Stat)
		if !ok {
			continue
		}
		m, _ := metrics.Lookup(r.Metric)
		out = append(out, results.NewSpread(compare.Key(r.Metric, r.Stat), r.Metric, r.Stat, m.Unit, sp.Values, sp.Median, sp.Min, sp.Max, sp.CV))
	}
	return out
}

// repeatsValidity is the pooled run's validity, made invalid when a run
// was invalid on its own (a stall in one run hides in the pool).
func repeatsValidity(bounds scenario.Validity, pooled *metrics.Summary, reps *results.Repeats) *results.Validity {
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
	rule := results.Rule{
		Name: "invalid_runs", Description: "share of the repeated runs that were invalid on their own",
		Value: float64(bad) / float64(len(reps.Runs)), Bound: 0, Unit: "fraction", Applies: true, Valid: bad == 0,
		Why: fmt.Sprintf("%d of %d runs", bad, len(reps.Runs)),
	}
	v.Rules = append(v.Rules, rule)
	v.Valid = v.Valid && rule.Valid
	return v
}
