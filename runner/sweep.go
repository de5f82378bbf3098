package runner

// Sweeps and capacity searches: one executor.Run per load value, with the
// value applied to the plan; the requests file and the progress line
// observe every step as one run.

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/llmload/llmload/compare"
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

// runStep runs one step at load v (run of its repeats, 0 for a step
// that is not repeated), lengthening a duration-bound probe that measured
// too few requests; it returns the length it ran, for the step's next
// runs.
func runStep(ctx context.Context, log io.Writer, s *scenario.Scenario, base executor.Plan, so *partObservers, i, run int, v float64, l stepLength) (*executor.Outcome, report.Step, stepLength, error) {
	for n := 0; ; n++ {
		if run > 0 {
			fmt.Fprintf(log, "llmload: step %d: %s = %s, run %d of %d\n", i+1, s.Varies(), formatValue(v), run, s.Repeats())
		} else {
			fmt.Fprintf(log, "llmload: step %d: %s = %s\n", i+1, s.Varies(), formatValue(v))
		}
		so.next(nil, func(r *metrics.Request) { r.Stage, r.Repeat = i, run }) // a step is a stage of the requests file
		p := stepPlan(s, base, v, l)
		if i > 0 || n > 0 || run > 1 {
			p.Warmup = 0
		}
		out, err := executor.Run(ctx, p)
		if err != nil {
			return nil, report.Step{}, l, err
		}
		st := report.Step{Step: i + 1, Value: v, Summary: out.Overall, Duration: out.Overall.Duration, Lengthened: n}
		if len(out.Stages) == 1 {
			st.Duration = out.Stages[0].Duration.Seconds()
			st.MeanUsers = out.Stages[0].MeanUsers
		}
		st = judgeStep(s, st)
		if out.Interrupted || n >= maxLengthen || l.duration == 0 || !needsMoreSamples(st, l) {
			return out, st, l, nil
		}
		got := max(1, st.Summary.Completed+st.Summary.Failed)
		scale := 1.2 * float64(l.minRequests) / float64(got)
		l.duration = time.Duration(float64(l.duration) * min(scale, 10))
		fmt.Fprintf(log, "llmload: step %d measured %d requests, under min_requests %d: running it again for %v\n", i+1, got, l.minRequests, l.duration.Round(time.Second))
	}
}

// runProbe runs step i at load v s.Repeats() times, s.Cooldown apart,
// and returns the runs' outcomes and the step: with one run, the run's;
// with several, their summaries pooled and judged, each run also judged
// alone, and the spread of the figures that decide the step.
func runProbe(ctx context.Context, log io.Writer, s *scenario.Scenario, base executor.Plan, so *partObservers, i int, v float64, l stepLength) ([]*executor.Outcome, report.Step, error) {
	n := s.Repeats()
	if n <= 1 {
		out, st, _, err := runStep(ctx, log, s, base, so, i, 0, v, l)
		if err != nil {
			return nil, st, err
		}
		st.Summary = copySummary(out.Overall)
		return []*executor.Outcome{out}, st, nil
	}
	var outs []*executor.Outcome
	var runs []report.Step
	for r := range n {
		if r > 0 {
			fmt.Fprintf(log, "llmload: cooldown %v\n", s.Cooldown)
			if !pause(ctx, s.Cooldown) {
				break
			}
		}
		out, st, used, err := runStep(ctx, log, s, base, so, i, r+1, v, l)
		if err != nil {
			return nil, report.Step{}, err
		}
		l = used
		st.Summary = copySummary(out.Overall)
		outs, runs = append(outs, out), append(runs, st)
		if out.Interrupted {
			break
		}
	}
	if len(outs) == 0 {
		return nil, report.Step{Step: i + 1, Value: v}, nil
	}
	sums := make([]*metrics.Summary, len(runs))
	st := report.Step{Step: i + 1, Value: v}
	for k, r := range runs {
		sums[k] = r.Summary
		st.Duration += r.Duration
		st.MeanUsers += r.MeanUsers / float64(len(runs))
		st.Lengthened = max(st.Lengthened, r.Lengthened)
		st.Runs = append(st.Runs, report.StepRun{Run: k + 1, Duration: r.Duration, Passed: r.Passed(),
			SLAFailed: r.SLAFailed, SLAInconclusive: r.SLAInconclusive, Summary: r.Summary})
		if r.Passed() {
			st.RunsPassed++
		}
	}
	pooled, err := metrics.PoolSummaries(sums...)
	if err != nil {
		return nil, st, fmt.Errorf("step %d: %w", i+1, err)
	}
	pooled.Series = nil
	st.Summary = pooled
	st = judgeStep(s, st)
	st.Spread = stepSpreads(sums, st.Checks)
	return outs, st, nil
}

// stepFigures are the figures whose spread a repeated step records, with
// each sla check's.
var stepFigures = []compare.Row{
	{Metric: "output_throughput"}, {Metric: "ttft", Stat: "p50"}, {Metric: "ttft", Stat: "p99"},
	{Metric: "itl", Stat: "p50"}, {Metric: "itl", Stat: "p99"}, {Metric: "error_rate"},
}

// stepSpreads is the spread over a step's runs of the figures that decide
// it.
func stepSpreads(runs []*metrics.Summary, checks []report.Check) []report.Spread {
	rows := slices.Clone(stepFigures)
	for _, c := range checks {
		r := compare.Row{Metric: c.Metric, Stat: c.Stat}
		if c.Metric != "" && !slices.Contains(rows, r) {
			rows = append(rows, r)
		}
	}
	return spreadsOf(runs, rows)
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
func runSteps(ctx context.Context, log io.Writer, s *scenario.Scenario, base executor.Plan) (*executor.Outcome, *report.Sweep, error) {
	so := &partObservers{obs: base.Observers}
	base.Observers = []executor.Observer{so}
	sw := &report.Sweep{Vary: s.Varies()}
	var outs []*executor.Outcome
	interrupted := false
	step := func(v float64, l stepLength) (report.Step, bool, error) {
		// The whole run's series holds every step; a step keeps its figures.
		runOuts, st, err := runProbe(ctx, log, s, base, so, len(sw.Steps), v, l)
		if err != nil {
			return st, false, err
		}
		if len(runOuts) == 0 {
			interrupted = true
			return st, false, nil
		}
		outs = append(outs, runOuts...)
		sw.Steps = append(sw.Steps, st)
		if runOuts[len(runOuts)-1].Interrupted || len(runOuts) < s.Repeats() {
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
			if i > 0 && !pause(ctx, c.Cooldown) {
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
			if len(sw.Steps) > 0 && !pause(ctx, c.Cooldown) {
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
			fmt.Fprintf(log, "llmload: step %d at %s: %s\n", st.Step, formatValue(v), verdict)
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
