package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/executor"
	"github.com/llmload/llmload/scenario"
)

func cmdPlan(_ context.Context, e env, args []string) int {
	fs := newFlags(e, "plan", "PATH...")
	var cf configFlags
	cf.register(fs)
	name := fs.String("scenario", "", "plan only the scenario with this `name`")
	cfg, code := parseAndLoad(e, fs, &cf, args)
	if cfg == nil {
		return code
	}
	scenarios, code := selectScenarios(e, cfg, *name)
	if scenarios == nil {
		return code
	}
	// Datasets are sampled once each, offline: plan sends nothing.
	loaded := map[string]*dataset.Dataset{}
	for i, s := range scenarios {
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		ds, ok := loaded[s.Dataset.Name]
		if !ok {
			var err error
			ds, _, err = loadDataset(s.Dataset, nil, true)
			if err != nil {
				fmt.Fprintf(e.stderr, "llmload: dataset %q: %v\n", s.Dataset.Name, err)
				return exitInvalid
			}
			loaded[s.Dataset.Name] = ds
		}
		writePlan(e.stdout, cfg, s, ds)
	}
	return exitOK
}

func writePlan(w io.Writer, cfg *scenario.Config, s *scenario.Scenario, ds *dataset.Dataset) {
	fmt.Fprintf(w, "Scenario %q (%s:%d)\n", s.Name, s.DeclRange.Filename, s.DeclRange.Start.Line)
	t := s.Target
	fmt.Fprintf(w, "  Target:  %s at %s, api %s, model %q\n", t.Name, redactURL(t.BaseURL), t.API, t.Model)
	if strings.HasPrefix(t.BaseURL, simScheme) {
		fmt.Fprintln(w, "           (the built-in simulator, started in-process on a free loopback port)")
	}
	fmt.Fprintf(w, "           timeout %v, stall timeout %v, ignore_eos %v\n", t.Timeout, t.StallTimeout, t.IgnoreEOS)
	writeDatasetPlan(w, s.Dataset, ds)
	if s.Varies() != "" {
		writeSweepPlan(w, s)
		writeChecksPlan(w, cfg, s)
		return
	}
	// The arrivals come from the function the run dispatches from, so plan
	// and run agree on every request.
	arrivals := executor.Arrivals(executorPlan(s, &liveTarget{target: executorTarget(t)}, ds, nil))
	writeLoadPlan(w, s, len(ds.Requests), arrivals)
	writeChecksPlan(w, cfg, s)
}

func writeDatasetPlan(w io.Writer, d *scenario.Dataset, ds *dataset.Dataset) {
	st := ds.Stats
	fmt.Fprintf(w, "  Dataset: %s (%s", d.Name, st.Source)
	if st.Path != "" {
		fmt.Fprintf(w, " %s", st.Path)
	}
	fmt.Fprintln(w, ")")
	tok := st.Tokenizer
	if st.Approximate {
		tok += " (APPROXIMATE token counts)"
	}
	if d.Tokenizer == "server" {
		tok += `; the run asks the target's /tokenize (tokenizer = "server"), which plan does not call`
	}
	fmt.Fprintf(w, "           tokenizer: %s\n", tok)
	if st.Source == "random" {
		fmt.Fprintf(w, "           generated %d prompts", st.Sampled)
	} else {
		fmt.Fprintf(w, "           entries read %d, examined %d, sampled %d", st.Read, st.Examined, st.Sampled)
	}
	if st.Oversampled > 0 {
		fmt.Fprintf(w, " (%d of them oversampled)", st.Oversampled)
	}
	fmt.Fprintln(w)
	if len(st.Skipped) > 0 {
		var parts []string
		for _, k := range sortedKeys(st.Skipped) {
			parts = append(parts, fmt.Sprintf("%s %d", k, st.Skipped[k]))
		}
		fmt.Fprintf(w, "           skipped: %s\n", strings.Join(parts, ", "))
	}
	fmt.Fprintf(w, "           %-14s %6s %8s %6s %6s %6s %6s\n", "tokens", "min", "mean", "p50", "p90", "p99", "max")
	for _, row := range []struct {
		name string
		l    dataset.LengthStats
	}{{"prompt", st.PromptLen}, {"output", st.OutputLen}} {
		fmt.Fprintf(w, "           %-14s %6d %8.1f %6d %6d %6d %6d\n", row.name, row.l.Min, row.l.Mean, row.l.P50, row.l.P90, row.l.P99, row.l.Max)
	}
}

func writeLoadPlan(w io.Writer, s *scenario.Scenario, nPrompts int, sched []time.Duration) {
	if s.Warmup > 0 {
		fmt.Fprintf(w, "  Warmup:  %d requests first, not measured\n", s.Warmup)
	}
	if o := s.OpenLoop; o != nil {
		fmt.Fprintf(w, "  Load:    open loop, %s arrivals", o.Arrival)
		if math.IsInf(o.Rate, 1) {
			fmt.Fprint(w, ", all at once (rate inf)")
		} else {
			fmt.Fprintf(w, " at %g req/s", o.Rate)
			if o.Arrival == "gamma" || o.Arrival == "poisson" {
				fmt.Fprintf(w, " (burstiness %g)", o.Burstiness)
			}
		}
		if o.MaxConcurrency > 0 {
			fmt.Fprintf(w, ", at most %d in flight", o.MaxConcurrency)
		}
		fmt.Fprintln(w)
		if s.Duration > 0 {
			fmt.Fprintf(w, "           stops dispatching after %v\n", s.Duration)
		}
		last := time.Duration(0)
		if len(sched) > 0 {
			last = sched[len(sched)-1]
		}
		fmt.Fprintf(w, "           %d requests over %s of arrivals (seed %d), from %d sampled prompts\n", len(sched), last.Round(time.Millisecond), s.Seed, nPrompts)
		return
	}
	c := s.ClosedLoop
	fmt.Fprintf(w, "  Load:    closed loop, %d stage(s)", len(c.Stages))
	if c.ThinkMax > 0 {
		if c.ThinkMin == c.ThinkMax {
			fmt.Fprintf(w, ", think time %v", c.ThinkMin)
		} else {
			fmt.Fprintf(w, ", think time %v to %v", c.ThinkMin, c.ThinkMax)
		}
	} else {
		fmt.Fprint(w, ", no think time")
	}
	fmt.Fprintln(w)
	var total time.Duration
	for i, st := range c.Stages {
		ramp := ""
		if st.Ramp > 0 {
			ramp = fmt.Sprintf(" (ramp %v)", st.Ramp)
		}
		length := "until the run stops"
		if st.Duration > 0 {
			length = "for " + st.Duration.String()
		}
		fmt.Fprintf(w, "           stage %d: %4d users %s%s, from t=%v\n", i+1, st.Users, length, ramp, total)
		total += st.Duration
	}
	if s.Duration > 0 && (total == 0 || s.Duration < total) {
		if total > 0 {
			fmt.Fprintf(w, "           cut at %v by the scenario's duration: later stages do not run\n", s.Duration)
		}
		total = s.Duration
	}
	var stops []string
	if total > 0 {
		stops = append(stops, total.String())
	}
	if s.Requests > 0 {
		stops = append(stops, fmt.Sprintf("%d requests", s.Requests))
	}
	fmt.Fprintf(w, "           stops after %s", strings.Join(stops, " or "))
	if len(stops) > 1 {
		fmt.Fprint(w, ", whichever comes first")
	}
	fmt.Fprintln(w)
}

func writeChecksPlan(w io.Writer, cfg *scenario.Config, s *scenario.Scenario) {
	g := s.Goodput
	var slo []string
	for _, x := range []struct {
		name string
		d    time.Duration
	}{{"TTFT", g.TTFT}, {"TPOT", g.TPOT}, {"every ITL", g.ITL}, {"E2EL", g.E2EL}} {
		if x.d > 0 {
			slo = append(slo, fmt.Sprintf("%s <= %v", x.name, x.d))
		}
	}
	if len(slo) > 0 {
		fmt.Fprintf(w, "  Goodput: a request is good when it succeeds, is not truncated, and %s\n", strings.Join(slo, " and "))
	}
	if len(s.SLA) == 0 && len(s.Asserts) == 0 {
		fmt.Fprintln(w, "  Checks:  none (the run always passes unless no request completes)")
		return
	}
	fmt.Fprintln(w, "  Checks:")
	for _, c := range s.SLA {
		fmt.Fprintf(w, "           sla %-18s %s\n", c.Key, c.Describe())
	}
	for _, a := range s.Asserts {
		fmt.Fprintf(w, "           assert %q: %s\n", a.Name, exprSource(cfg, a))
	}
}

// exprSource returns an assert condition as written in its file.
func exprSource(cfg *scenario.Config, a *scenario.Assert) string {
	r := a.Condition.Range()
	if f, ok := cfg.Files[r.Filename]; ok && r.End.Byte <= len(f.Bytes) && r.Start.Byte <= r.End.Byte {
		return strings.Join(strings.Fields(string(f.Bytes[r.Start.Byte:r.End.Byte])), " ")
	}
	return r.String()
}

// writeSweepPlan describes a sweep's steps or a capacity search's probes.
func writeSweepPlan(w io.Writer, s *scenario.Scenario) {
	if s.Warmup > 0 {
		fmt.Fprintf(w, "  Warmup:  %d requests before the first step, not measured\n", s.Warmup)
	}
	var shape string
	switch s.Varies() {
	case scenario.VaryUsers:
		shape = "closed loop"
		if c := s.ClosedLoop; c.ThinkMax > 0 {
			shape += fmt.Sprintf(", think time %v to %v", c.ThinkMin, c.ThinkMax)
		} else {
			shape += ", no think time"
		}
	default:
		o := s.OpenLoop
		shape = "open loop, " + o.Arrival + " arrivals"
		if s.Varies() == scenario.VaryMaxConcurrency {
			if math.IsInf(o.Rate, 1) {
				shape += ", all at once"
			} else {
				shape += fmt.Sprintf(" at %g req/s", o.Rate)
			}
		}
	}
	length := func(d time.Duration, n int) string {
		var parts []string
		if d > 0 {
			parts = append(parts, d.String())
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d requests", n))
		}
		return strings.Join(parts, " or ")
	}
	if sw := s.Sweep; sw != nil {
		vals := make([]string, len(sw.Values))
		for i, v := range sw.Values {
			vals[i] = fmt.Sprintf("%g", v)
		}
		fmt.Fprintf(w, "  Load:    sweep over %s: %s (%s)\n", sw.Vary, strings.Join(vals, ", "), shape)
		fmt.Fprintf(w, "           each step runs for %s", length(sw.Duration, sw.Requests))
		if sw.Cooldown > 0 {
			fmt.Fprintf(w, ", %v apart", sw.Cooldown)
		}
		fmt.Fprintf(w, "; the knee is where output tok/s per added unit falls under %g%% of the first step's\n", 100*sw.KneeShare)
		return
	}
	c := s.Capacity
	fmt.Fprintf(w, "  Load:    capacity search over %s from %g to %g (%s): doubling from %g until a probe fails, then bisection to %g%%\n",
		c.Vary, c.Min, c.Max, shape, c.Min, 100*c.Precision)
	fmt.Fprintf(w, "           each probe runs for %s", length(c.Duration, c.Requests))
	if c.MinRequests > 0 {
		fmt.Fprintf(w, ", and at least %d requests", c.MinRequests)
	}
	if c.MaxProbes > 0 {
		fmt.Fprintf(w, "; at most %d probes", c.MaxProbes)
	}
	fmt.Fprintln(w)
}
