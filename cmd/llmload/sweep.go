package main

// Sweeps and capacity searches: one executor.Run per load value, with the
// value applied to the plan; the requests file and the progress line
// observe every step as one run.

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/llmload/llmload/executor"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/report"
	"github.com/llmload/llmload/scenario"
)

// maxLengthen is how many times a probe that measured too few requests is
// run again, longer.
const maxLengthen = 2

// stepLength is how long one step or probe runs.
type stepLength struct {
	duration    time.Duration
	requests    int
	minRequests int
}

// stepPlan applies load value v and the step's length to the scenario's
// plan.
func stepPlan(s *scenario.Scenario, base executor.Plan, v float64, l stepLength) executor.Plan {
	p := base
	p.Duration, p.MaxRequests = 0, l.requests
	switch s.Varies() {
	case scenario.VaryUsers:
		cl := *base.Closed
		cl.Stages = []executor.Stage{{Users: int(v), Duration: l.duration}}
		p.Closed = &cl
	case scenario.VaryRate, scenario.VaryMaxConcurrency:
		o := *base.Open
		if s.Varies() == scenario.VaryRate {
			o.Rate = v
		} else {
			o.MaxConcurrency = int(v)
		}
		p.Open = &o
		p.Duration = l.duration
		finite := !math.IsInf(o.Rate, 1)
		if p.MaxRequests == 0 && finite {
			p.MaxRequests = int(math.Ceil(o.Rate * l.duration.Seconds()))
		}
		if p.MaxRequests == 0 {
			p.MaxRequests = len(p.Requests)
		}
		if l.minRequests > p.MaxRequests {
			// The probe sends enough requests for its checks: the count,
			// not the duration, ends it.
			p.MaxRequests, p.Duration = l.minRequests, 0
		}
	}
	return p
}

// needsMoreSamples is the hook that lengthens a probe: true when the
// probe measured fewer requests than its checks need. (A verdict that
// reports too few samples per check can widen this test.)
func needsMoreSamples(st report.Step, l stepLength) bool {
	if l.minRequests == 0 || st.Summary == nil {
		return false
	}
	return st.Summary.Completed+st.Summary.Failed < l.minRequests
}

// runStep runs one step at load v, lengthening a duration-bound probe
// that measured too few requests.
func runStep(ctx context.Context, e env, s *scenario.Scenario, base executor.Plan, so *partObservers, i int, v float64, l stepLength) (*executor.Outcome, report.Step, error) {
	for n := 0; ; n++ {
		fmt.Fprintf(e.stderr, "llmload: step %d: %s = %s\n", i+1, s.Varies(), formatValue(v))
		so.next(nil, func(r *metrics.Request) { r.Stage = i }) // a step is a stage of the requests file
		p := stepPlan(s, base, v, l)
		if i > 0 || n > 0 {
			p.Warmup = 0
		}
		out, err := executor.Run(ctx, p)
		if err != nil {
			return nil, report.Step{}, err
		}
		st := report.Step{Step: i + 1, Value: v, Summary: out.Overall, Duration: out.Overall.Duration, Lengthened: n}
		if len(out.Stages) == 1 {
			st.Duration = out.Stages[0].Duration.Seconds()
			st.MeanUsers = out.Stages[0].MeanUsers
		}
		st = judgeStep(s, st)
		if out.Interrupted || n >= maxLengthen || l.duration == 0 || !needsMoreSamples(st, l) {
			return out, st, nil
		}
		got := max(1, st.Summary.Completed+st.Summary.Failed)
		scale := 1.2 * float64(l.minRequests) / float64(got)
		l.duration = time.Duration(float64(l.duration) * min(scale, 10))
		fmt.Fprintf(e.stderr, "llmload: step %d measured %d requests, under min_requests %d: running it again for %v\n", i+1, got, l.minRequests, l.duration.Round(time.Second))
	}
}

func formatValue(v float64) string { return fmt.Sprintf("%g", v) }

// judgeStep evaluates the scenario's sla checks on one step, as for a
// stage.
func judgeStep(s *scenario.Scenario, st report.Step) report.Step {
	js := judgeStage(s, report.Stage{Summary: st.Summary})
	st.SLAChecked, st.SLAFailed, st.SLAInconclusive, st.Checks = js.SLAChecked, js.SLAFailed, js.SLAInconclusive, js.Checks
	return st
}

// runSteps runs a scenario's sweep or capacity search and returns the
// whole run's outcome (the steps' summaries merged) and the steps.
func runSteps(ctx context.Context, e env, s *scenario.Scenario, base executor.Plan) (*executor.Outcome, *report.Sweep, error) {
	so := &partObservers{obs: base.Observers}
	base.Observers = []executor.Observer{so}
	sw := &report.Sweep{Vary: s.Varies()}
	var outs []*executor.Outcome
	interrupted := false
	cooldown := func(d time.Duration) bool {
		if d <= 0 {
			return true
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
	step := func(v float64, l stepLength) (report.Step, bool, error) {
		out, st, err := runStep(ctx, e, s, base, so, len(sw.Steps), v, l)
		if err != nil {
			return st, false, err
		}
		// The whole run's series holds every step; a step keeps its figures.
		series := out.Overall.Series
		st.Summary = copySummary(out.Overall)
		out.Overall.Series = series
		outs = append(outs, out)
		sw.Steps = append(sw.Steps, st)
		if out.Interrupted {
			interrupted = true
			return st, false, nil
		}
		return st, true, nil
	}

	switch {
	case s.Sweep != nil:
		c := s.Sweep
		sw.Mode, sw.KneeShare = report.ModeSweep, c.KneeShare
		for i, v := range c.Values {
			if i > 0 && !cooldown(c.Cooldown) {
				interrupted = true
				break
			}
			if _, ok, err := step(v, stepLength{duration: c.Duration, requests: c.Requests}); err != nil {
				return nil, nil, err
			} else if !ok {
				break
			}
		}
	case s.Capacity != nil:
		c := s.Capacity
		sw.Mode, sw.KneeShare = report.ModeCapacity, scenario.DefaultKneeShare
		search := report.NewSearcher(c.Min, c.Max, c.Precision, c.Vary != scenario.VaryRate, c.MaxProbes)
		for {
			v, more := search.Next()
			if !more {
				break
			}
			if len(sw.Steps) > 0 && !cooldown(c.Cooldown) {
				interrupted = true
				search.Interrupt()
				break
			}
			st, ok, err := step(v, stepLength{duration: c.Duration, requests: c.Requests, minRequests: c.MinRequests})
			if err != nil {
				return nil, nil, err
			}
			if !ok {
				search.Interrupt()
				break
			}
			search.Record(v, st.Step, st.Passed())
			verdict := "meets every sla check"
			if !st.Passed() {
				verdict = "fails"
			}
			fmt.Fprintf(e.stderr, "llmload: step %d at %s: %s\n", st.Step, formatValue(v), verdict)
		}
		sw.Search = search.Result()
	}
	if len(outs) == 0 {
		return &executor.Outcome{Overall: &metrics.Summary{}, Interrupted: true}, sw, nil
	}
	var sums []*metrics.Summary
	for _, o := range outs {
		sums = append(sums, o.Overall)
	}
	overall, err := metrics.MergeSummaries(sums...)
	if err != nil {
		return nil, nil, err
	}
	// The steps ran one after another, never at once: the run's peak
	// concurrency is the largest step's, not the sum of the steps' peaks
	// in a window where one ended and the next began (what merging
	// parts that may overlap has to assume).
	overall.PeakConcurrency = 0
	for _, sm := range sums {
		overall.PeakConcurrency = max(overall.PeakConcurrency, sm.PeakConcurrency)
	}
	out := &executor.Outcome{Overall: overall, Started: outs[0].Started, Interrupted: interrupted || ctx.Err() != nil}
	for _, o := range outs {
		out.Elapsed = max(out.Elapsed, o.Started.Add(o.Elapsed).Sub(out.Started))
	}
	sw.Finish(overall)
	return out, sw, nil
}

// copySummary is a step's summary without the time series, which the
// whole run's series holds.
func copySummary(s *metrics.Summary) *metrics.Summary {
	c := *s
	c.Series = nil
	return &c
}
