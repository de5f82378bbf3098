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
	"github.com/llmload/llmload/results"
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
func needsMoreSamples(st results.Step, l stepLength) bool {
	if l.minRequests == 0 || st.Summary == nil {
		return false
	}
	return st.Summary.Completed+st.Summary.Failed < l.minRequests
}

// stepProbe is a step's leaf: one executor run at the step's load, run again
// longer (at most maxLengthen times) when a duration-bound probe measured
// fewer requests than its checks need. The length it ran carries over to
// the step's next repeats.
type stepProbe struct {
	s     *scenario.Scenario
	log   io.Writer
	po    *partObservers
	step  int // 0-based
	value float64
	len   stepLength
	// first says the probe's first run keeps the plan's warmup.
	first bool
	// last is the last run's step figures, judged.
	last results.Step
	// leaf runs each attempt (executor.Run when nil; tests fake it).
	leaf level
}

func (pr *stepProbe) run(ctx context.Context, base executor.Plan) (*executor.Outcome, error) {
	for n := 0; ; n++ {
		p := stepPlan(pr.s, base, pr.value, pr.len)
		if !pr.first || n > 0 {
			p.Warmup = 0
		}
		if n > 0 {
			// The longer run's requests follow the short one's in the
			// requests file, with their own ids.
			pr.po.again()
		}
		leaf := pr.leaf
		if leaf == nil {
			leaf = once{}
		}
		out, err := leaf.run(ctx, p)
		if err != nil {
			return nil, err
		}
		pr.first = false
		st := results.Step{Step: pr.step + 1, Value: pr.value, Summary: out.Overall, Duration: out.Overall.Duration, Lengthened: n}
		if len(out.Stages) == 1 {
			st.Duration = out.Stages[0].Duration.Seconds()
			st.MeanUsers = out.Stages[0].MeanUsers
		}
		pr.last = judgeStep(pr.s, st)
		if out.Aborted != "" {
			// abort_on stopped the step: it failed, whatever its sla
			// checks say of the requests it measured.
			pr.last = abortStep(pr.last)
		}
		l := pr.len
		if out.Interrupted || n >= maxLengthen || l.duration == 0 || !needsMoreSamples(pr.last, l) {
			return out, nil
		}
		got := max(1, st.Summary.Completed+st.Summary.Failed)
		scale := 1.2 * float64(l.minRequests) / float64(got)
		pr.len.duration = time.Duration(float64(l.duration) * min(scale, 10))
		fmt.Fprintf(pr.log, "llmload: step %d measured %d requests, under min_requests %d: running it again for %v\n", pr.step+1, got, l.minRequests, pr.len.duration.Round(time.Second))
	}
}

// abortStep is a step that abort_on stopped: failed, by abort_on.
func abortStep(st results.Step) results.Step {
	st.SLAChecked = true
	if !slices.Contains(st.SLAFailed, "abort_on") {
		st.SLAFailed = append(st.SLAFailed, "abort_on")
	}
	return st
}

// runStep runs step i at load v s.Repeats() times, s.Cooldown apart (a
// repeat of probes), and returns the runs' outcomes and the step: with
// one run, the run's; with several, their summaries pooled and judged,
// each run also judged alone, and the spread of the figures that decide
// the step.
//
// cut says the step's runs were cut short by an interruption (a run that
// abort_on stopped ends the step's repeats, but not the sweep: the step
// fails).
func runStep(ctx context.Context, log io.Writer, s *scenario.Scenario, base executor.Plan, po *partObservers, st0 *stop, i int, v float64, l stepLength) (_ []*executor.Outcome, _ results.Step, cut bool, _ error) {
	n := s.Repeats()
	pr := &stepProbe{s: s, log: log, po: po, step: i, value: v, len: l, first: i == 0}
	var judged []results.Step
	rp := &repeat{n: n, cooldown: s.Cooldown, log: log, po: po, stop: st0, part: recordProbe{pr, &judged},
		say: func(run int) string {
			if n > 1 {
				return fmt.Sprintf("step %d: %s = %s, run %d of %d", i+1, s.Varies(), formatValue(v), run, n)
			}
			return fmt.Sprintf("step %d: %s = %s", i+1, s.Varies(), formatValue(v))
		},
		// A step is a stage of the requests file.
		mark: func(run int, r *metrics.Request) {
			r.Stage = i
			if n > 1 {
				r.Repeat = run
			}
		},
	}
	runs, cut, err := rp.run(ctx, base)
	if err != nil {
		return nil, results.Step{Step: i + 1, Value: v}, false, err
	}
	outs := outcomes(runs)
	last := outs[len(outs)-1]
	aborted := slices.ContainsFunc(outs, func(o *executor.Outcome) bool { return o.Aborted != "" })
	cut = interrupted(ctx, cut, last, st0)
	if n <= 1 {
		st := judged[0]
		st.Summary = copySummary(outs[0].Overall)
		return outs, st, cut, nil
	}
	sums := make([]*metrics.Summary, len(judged))
	st := results.Step{Step: i + 1, Value: v}
	for k, r := range judged {
		r.Summary = copySummary(outs[k].Overall)
		sums[k] = r.Summary
		st.Duration += r.Duration
		st.MeanUsers += r.MeanUsers / float64(len(judged))
		st.Lengthened = max(st.Lengthened, r.Lengthened)
		st.Runs = append(st.Runs, results.StepRun{Run: k + 1, Duration: r.Duration, Passed: r.Passed(),
			SLAFailed: r.SLAFailed, SLAInconclusive: r.SLAInconclusive, Summary: r.Summary})
		if r.Passed() {
			st.RunsPassed++
		}
	}
	// The step's own figures: its runs' summaries (without the series,
	// which the whole run's holds) pooled.
	pooled, err := metrics.PoolSummaries(sums...)
	if err != nil {
		return nil, st, false, fmt.Errorf("step %d: %w", i+1, err)
	}
	pooled.Series = nil
	st.Summary = pooled
	st = judgeStep(s, st)
	if aborted {
		st = abortStep(st)
	}
	st.Spread = stepSpreads(sums, st.Checks)
	return outs, st, cut, nil
}

// recordProbe runs the probe and keeps each run's judged step.
type recordProbe struct {
	pr     *stepProbe
	judged *[]results.Step
}

func (rp recordProbe) run(ctx context.Context, p executor.Plan) (*executor.Outcome, error) {
	out, err := rp.pr.run(ctx, p)
	if err == nil {
		*rp.judged = append(*rp.judged, rp.pr.last)
	}
	return out, err
}

// stepFigures are the figures whose spread a repeated step records, with
// each sla check's.
var stepFigures = []compare.Row{
	{Metric: "output_throughput"}, {Metric: "ttft", Stat: "p50"}, {Metric: "ttft", Stat: "p99"},
	{Metric: "itl", Stat: "p50"}, {Metric: "itl", Stat: "p99"}, {Metric: "error_rate"},
}

// stepSpreads is the spread over a step's runs of the figures that decide
// it.
func stepSpreads(runs []*metrics.Summary, checks []results.Check) []results.Spread {
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
func judgeStep(s *scenario.Scenario, st results.Step) results.Step {
	js := judgeStage(s, results.Stage{Summary: st.Summary})
	st.SLAChecked, st.SLAFailed, st.SLAInconclusive, st.Checks = js.SLAChecked, js.SLAFailed, js.SLAInconclusive, js.Checks
	return st
}

// steps is a sweep or a capacity search: one step per load value, each a
// repeat of probes at that load, a cooldown apart; the whole run's
// outcome is the steps' summaries merged (the run's series holds every
// step; each step keeps its own figures).
type steps struct {
	s    *scenario.Scenario
	log  io.Writer
	stop *stop
	// sweep is what the steps measured, for the result.
	sweep *results.Sweep
}

// loads are the values steps run at: a sweep's list, or a capacity
// search's next probe after each step's verdict.
type loads interface {
	next() (float64, bool)
	record(st results.Step)
	// interrupt ends the loads early; finish says what they found.
	interrupt()
	finish(sw *results.Sweep)
}

// sweepLoads are a sweep's values, in order.
type sweepLoads struct {
	values []float64
	i      int
}

func (l *sweepLoads) next() (float64, bool) {
	if l.i >= len(l.values) {
		return 0, false
	}
	l.i++
	return l.values[l.i-1], true
}
func (l *sweepLoads) record(results.Step)      {}
func (l *sweepLoads) interrupt()               {}
func (l *sweepLoads) finish(sw *results.Sweep) {}

// searchLoads are a capacity search's probes.
type searchLoads struct {
	search *Searcher
	log    io.Writer
}

func (l searchLoads) next() (float64, bool) { return l.search.Next() }
func (l searchLoads) record(st results.Step) {
	l.search.Record(st.Value, st.Step, st.Passed())
	verdict := "meets every sla check"
	if !st.Passed() {
		verdict = "fails"
	}
	fmt.Fprintf(l.log, "llmload: step %d at %s: %s\n", st.Step, formatValue(st.Value), verdict)
}
func (l searchLoads) interrupt()               { l.search.Interrupt() }
func (l searchLoads) finish(sw *results.Sweep) { sw.Search = l.search.Result() }

func (ss *steps) run(ctx context.Context, base executor.Plan) (*executor.Outcome, error) {
	s, log := ss.s, ss.log
	po := observeParts(&base)
	sw := &results.Sweep{Vary: s.Varies()}
	ss.sweep = sw
	var values loads
	var length stepLength
	var cooldown time.Duration
	planned := 0 // steps (unknown for a search)
	switch {
	case s.Sweep != nil:
		c := s.Sweep
		sw.Mode, sw.KneeShare = results.ModeSweep, c.KneeShare
		values, cooldown, planned = &sweepLoads{values: c.Values}, c.Cooldown, len(c.Values)
		length = stepLength{duration: c.Duration, requests: c.Requests}
	case s.Capacity != nil:
		c := s.Capacity
		sw.Mode, sw.KneeShare = results.ModeCapacity, scenario.DefaultKneeShare
		values, cooldown = searchLoads{search: NewSearcher(c.Min, c.Max, c.Precision, c.Vary != scenario.VaryRate, c.MaxProbes), log: log}, c.Cooldown
		length = stepLength{duration: c.Duration, requests: c.Requests, minRequests: c.MinRequests}
	}
	var outs []*executor.Outcome
	cut := false // interrupted
	for {
		v, more := values.next()
		if !more {
			break
		}
		if len(sw.Steps) > 0 && !pause(ctx, cooldown) {
			cut = true
			values.interrupt()
			break
		}
		stepOuts, st, stepCut, err := runStep(ctx, log, s, base, po, ss.stop, len(sw.Steps), v, length)
		if err != nil {
			if len(sw.Steps) == 0 {
				return nil, err
			}
			ss.stop.set(ctx, log, fmt.Sprintf("step %d", len(sw.Steps)+1), err, planned, len(sw.Steps))
			values.interrupt()
			break
		}
		if len(stepOuts) > 0 {
			outs = append(outs, stepOuts...)
			sw.Steps = append(sw.Steps, st)
		}
		if stepCut || ss.stop.err != nil {
			// Interrupted, or a run of the step could not start.
			cut = stepCut
			values.interrupt()
			break
		}
		values.record(st)
	}
	values.finish(sw)
	if len(outs) == 0 {
		return &executor.Outcome{Overall: &metrics.Summary{}, Interrupted: true}, nil
	}
	var sums []*metrics.Summary
	for _, o := range outs {
		sums = append(sums, o.Overall)
	}
	overall, err := metrics.MergeSummaries(sums...)
	if err != nil {
		return nil, err
	}
	// The steps ran one after another, never at once: the run's peak
	// concurrency is the largest step's, not the sum of the steps' peaks
	// in a window where one ended and the next began (what merging
	// parts that may overlap has to assume).
	overall.PeakConcurrency = 0
	for _, sm := range sums {
		overall.PeakConcurrency = max(overall.PeakConcurrency, sm.PeakConcurrency)
	}
	out := &executor.Outcome{Overall: overall, Started: outs[0].Started, Interrupted: cut || ctx.Err() != nil}
	for _, o := range outs {
		out.Elapsed = max(out.Elapsed, o.Started.Add(o.Elapsed).Sub(out.Started))
	}
	sw.Finish(overall)
	return out, nil
}

// copySummary is a step's summary without the time series, which the
// whole run's series holds.
func copySummary(s *metrics.Summary) *metrics.Summary {
	c := *s
	c.Series = nil
	return &c
}
