package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"golang.org/x/term"

	"github.com/llmload/llmload/assert"
	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/executor"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/report"
	"github.com/llmload/llmload/runner"
	"github.com/llmload/llmload/scenario"
	"github.com/llmload/llmload/tokenizer"
)

// runFlags are the flags that can make a scenario impossible to run.
func (o runOptions) runFlags() scenario.RunFlags {
	return o.shard.runFlags(o.gate != nil && o.gate.baseline != "")
}

type runOptions struct {
	out         string
	quiet       bool
	metricsAddr string
	shard       shardOptions
	html        string // HTML report path ("" for none)
	multi       bool   // several scenarios run: one HTML file each
	gate        *gateOptions
}

func cmdRun(ctx context.Context, e env, args []string) int {
	fs := newFlags(e, "run", "PATH...")
	var cf configFlags
	cf.register(fs)
	name := fs.String("scenario", "", "run only the scenario with this `name`")
	var opts runOptions
	out := outFlag(fs, "llmload-results", "`directory` for <scenario>.json (or the scenario's result_filename) and its .requests.jsonl (empty: write none)")
	fs.BoolVar(&opts.quiet, "quiet", false, "no progress line")
	fs.StringVar(&opts.metricsAddr, "metrics-addr", "", "serve live Prometheus metrics of the run at http://`host:port`/metrics (overrides a scenario's metrics_addr)")
	opts.shard.register(fs)
	fs.StringVar(&opts.html, "html", "", "write a self-contained HTML report to this `file` at the end (with several scenarios, <file> gets the scenario's name before .html)")
	opts.gate = &gateOptions{}
	opts.gate.register(fs)
	cfg, code := parseAndLoad(e, fs, &cf, args)
	if cfg == nil {
		return code
	}
	opts.out = *out
	opts.gate.outExplicit = flagGiven(fs, "out", "o")
	if code := opts.gate.validate(fs); code != exitOK {
		return code
	}
	if err := opts.shard.resolve(os.Getenv); err != nil {
		return fs.usageError(err.Error())
	}
	scenarios, code := selectScenarios(e, cfg, *name)
	if scenarios == nil {
		return code
	}
	if code := checkFiles(e, cfg, scenarios); code != exitOK {
		return code
	}
	if len(scenarios) > 1 && opts.shard.active() {
		fmt.Fprintf(e.stderr, "llmload: -shard, -run-id, -start-at and -barrier apply to one scenario: choose it with -scenario (the configuration has %d)\n", len(scenarios))
		return exitInvalid
	}
	opts.multi = len(scenarios) > 1
	worst := exitOK
	for _, s := range scenarios {
		code := runScenario(ctx, e, cfg, s, opts)
		worst = worse(worst, code)
		if code == exitInterrupted {
			break
		}
	}
	return worse(worst, opts.gate.finish(e))
}

// flagGiven reports whether any of the named flags was given.
func flagGiven(fs *flagSet, names ...string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if slices.Contains(names, f.Name) {
			set = true
		}
	})
	return set
}

// exitCode is the exit code of a run's status.
func exitCode(st runner.Status) int {
	switch st {
	case runner.StatusOK:
		return exitOK
	case runner.StatusFailed:
		return exitCheckFailed
	case runner.StatusNoResult:
		return exitNoResult
	case runner.StatusInterrupted:
		return exitInterrupted
	}
	return exitInvalid
}

// worse returns the more severe of two exit codes.
func worse(a, b int) int {
	rank := map[int]int{exitOK: 0, exitCheckFailed: 1, exitNoResult: 2, exitInvalid: 3, exitInterrupted: 4}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

func runScenario(ctx context.Context, e env, cfg *scenario.Config, s *scenario.Scenario, opts runOptions) int {
	fmt.Fprintf(e.stderr, "llmload: scenario %q\n", s.Name)
	// What the flags make impossible is refused before anything starts,
	// at the line that makes it so (validate says the same).
	if diags := s.CheckRunFlags(opts.runFlags()); diags.HasErrors() {
		writeDiags(e, cfg, diags)
		return exitInvalid
	}
	lt, diags := startTarget(s.Target, s.Seed)
	if diags.HasErrors() {
		writeDiags(e, cfg, diags)
		return exitInvalid
	}
	defer lt.Close()
	lt.ctx = ctx
	lt.target.Secrets = e.secrets.Secrets()
	if lt.profile != "" {
		fmt.Fprintf(e.stderr, "llmload: simulator %q listening on %s\n", lt.profile, lt.target.BaseURL)
	}

	ds, tok, err := loadDatasetCtx(ctx, s.Dataset, lt)
	if ctx.Err() != nil {
		fmt.Fprintln(e.stderr, "llmload: interrupted while loading the dataset; nothing was sent")
		return exitInterrupted
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "llmload: dataset %q: %v\n", s.Dataset.Name, err)
		if srv, ok := tok.(*tokenizer.Server); ok && srv.Err() != nil {
			// The target did not answer /tokenize: no valid result, as for
			// a target that does not answer the load.
			return exitNoResult
		}
		return exitInvalid
	}
	if len(ds.Requests) == 0 {
		fmt.Fprintf(e.stderr, "llmload: dataset %q produced no request\n", s.Dataset.Name)
		return exitInvalid
	}

	var base *assert.Baseline
	var baseRes *report.Result
	var arms [2]*abArm
	if s.AB() {
		b, diags := startBaselineArm(ctx, e.stderr, s, e.secrets.Secrets())
		if b == nil {
			writeDiags(e, cfg, diags)
			return exitInvalid
		}
		defer b.lt.Close()
		arms = [2]*abArm{b, {name: report.ArmCandidate, lt: lt, target: s.Target}}
	} else {
		var st runner.Status
		if base, baseRes, st = opts.gate.baselineFor(e.stderr, s); st != runner.StatusOK {
			return exitCode(st)
		}
	}
	workload := workloadOf(s, ds, tok)
	var forced []string
	if baseRes != nil {
		var ok bool
		if forced, ok = checkWorkloads(e.stderr, "baseline "+s.Baseline, baseRes.Workload, workload, opts.gate.force); !ok {
			return exitInvalid
		}
	}
	serverVersion := probeVersion(ctx, e.stderr, lt)
	if arms[1] != nil {
		arms[1].version = serverVersion
	}

	plan := executorPlan(s, lt, ds, tok)
	fp := fingerprint(s, ds)
	co, st := coordinate(ctx, e.stderr, s, lt, &plan, fp, opts.shard)
	if co == nil {
		return exitCode(st)
	}
	defer co.close()
	dest := opts.gate.destinationFor(opts.out, s, time.Now())
	opts.out = opts.shard.shardDir(dest.dir)
	// The requests file is opened before any load is sent: an unwritable
	// output directory fails now, not after the run.
	var reqs *report.RequestWriter
	if opts.out != "" {
		// A sweep's requests carry their step as their stage.
		if reqs, err = report.CreateRequests(opts.out, strings.TrimSuffix(dest.name, ".json"), plan.Closed != nil || s.Varies() != ""); err != nil {
			fmt.Fprintf(e.stderr, "llmload: cannot write results to %s: %v\n", opts.out, err)
			return exitInvalid
		}
		plan.Observers = append(plan.Observers, reqs)
	}
	var detailed *report.DetailedCollector
	if s.SaveDetailed {
		// vLLM's per-request arrays: kept in memory until the run ends.
		detailed = report.NewDetailedCollector()
		plan.Observers = append(plan.Observers, detailed)
		plan.KeepText = true
	}
	if !opts.quiet {
		plan.Observers = append(plan.Observers, report.NewProgress(e.stderr, isTerminal(e.stderr)))
	}
	addr := opts.metricsAddr
	if addr == "" {
		addr = s.MetricsAddr
	}
	lx, err := startLive(e.stderr, s, &plan, addr)
	if err != nil {
		if reqs != nil {
			reqs.Close()
			os.Remove(reqs.Path())
		}
		fmt.Fprintf(e.stderr, "llmload: %v\n", err)
		return exitInvalid
	}
	if lx != nil {
		defer lx.Close()
	}
	// Every open stream is a file descriptor (two with the in-process
	// simulator): raise the soft limit now rather than fail mid-run.
	conns := executor.PlannedConcurrency(plan)
	if s.Target.IsSim() {
		conns *= 2
	}
	if msg, err := executor.EnsureFileLimit(conns); err != nil || msg != "" {
		fmt.Fprintf(e.stderr, "llmload: %s\n", cmp.Or(msg, fmt.Sprint(err)))
	}
	var scr *serverScrape
	if !s.AB() {
		// An A/B run's blocks alternate between two servers: a scrape of
		// one would mix its load with its idle time.
		scr = startScrape(ctx, s, lt)
	}
	cpu := &cpuMeter{}
	plan.Observers = append(plan.Observers, cpu)
	started := time.Now()
	var outcome *executor.Outcome
	var sweep *report.Sweep
	var repeats *report.Repeats
	var abo *abOutcome
	switch {
	case s.Varies() != "":
		outcome, sweep, err = runSteps(ctx, e.stderr, s, plan)
	case s.AB():
		outcome, abo, err = runAB(ctx, e.stderr, s, plan, arms)
	case s.Repeats() > 1:
		outcome, repeats, err = runRepeats(ctx, e.stderr, s, plan)
	default:
		outcome, err = executor.Run(ctx, plan)
	}
	ended := time.Now()
	if err == nil {
		scr.finish(e.stderr, outcome)
		outcome.Overall.ClientCPU = cpu.Fraction()
	} else if scr != nil {
		scr.s.Stop()
	}
	if err != nil {
		if reqs != nil {
			reqs.Close()
			os.Remove(reqs.Path())
		}
		var pe *executor.PreflightError
		switch {
		case ctx.Err() != nil:
			fmt.Fprintln(e.stderr, "llmload: interrupted before the load; nothing was measured")
			return exitInterrupted
		case errors.As(err, &pe):
			// The target is down or refuses the requests: no load was sent,
			// and no valid result can come of it.
			fmt.Fprintf(e.stderr, "llmload: %v\n", err)
			fmt.Fprintln(e.stderr, "llmload: no load was sent (set preflight = false to skip the probe, or ready_timeout to wait for the target)")
			return exitNoResult
		}
		fmt.Fprintf(e.stderr, "llmload: %v\n", err)
		return exitInvalid
	}

	if abo != nil {
		base = armsBaseline(s, abo)
	}
	if base != nil && repeats != nil {
		base.NewRuns = repeats.Summaries()
	}
	outs := evaluateRun(s, outcome.Overall, sweep, base)
	rep := buildReport(s, lt, ds, tok, outcome, outs, started, ended)
	rep.Workload, rep.ServerVersion = workload, serverVersion
	rep.Repeat = repeats
	rep.Comparison = comparison(s, baseRes, rep, forced)
	if detailed != nil {
		rep.Detailed = detailed.Detailed()
	}
	switch {
	case abo != nil:
		rep.AB = abo.ab
		rep.Comparison = abComparison(s, abo, rep)
		// The load generator's validity covers both arms' blocks.
		abo.all.ClientCPU = outcome.Overall.ClientCPU
		rep.Validity = reportValidity(s, abo.all)
	case repeats != nil:
		rep.Validity = repeatsValidity(s, outcome.Overall, repeats)
	default:
		rep.Validity = reportValidity(s, outcome.Overall)
	}
	rep.RunID, rep.Fingerprint = co.runID, fp
	if opts.shard.count > 0 {
		rep.Shard = &report.Shard{Index: opts.shard.index, Count: opts.shard.count}
	}
	if sy := co.sync; sy != nil {
		sy.StartLateMs = ms(outcome.StartLate)
		rep.Sync = sy
		if outcome.StartLate > 0 {
			fmt.Fprintf(e.stderr, "llmload: warning: the schedule began %v after the common start (warmup ran past it)\n", outcome.StartLate.Round(time.Millisecond))
		}
	}
	rep.Sweep = sweep
	res, err := report.NewResult(rep)
	if err != nil {
		fmt.Fprintf(e.stderr, "llmload: %v\n", err)
		return exitNoResult
	}
	console := e.stdout
	if opts.gate.format == "json" {
		console = e.stderr
	}
	if err := report.WriteConsole(console, res); err != nil {
		fmt.Fprintf(e.stderr, "llmload: writing the report: %v\n", err)
	}
	if res.Comparison != nil {
		fmt.Fprintln(console)
		if err := report.WriteComparison(console, res.Comparison); err != nil {
			fmt.Fprintf(e.stderr, "llmload: writing the comparison: %v\n", err)
		}
	}
	for _, o := range outs {
		if !o.Passed && o.Diagnostic != nil {
			writeDiags(e, cfg, hcl.Diagnostics{o.Diagnostic})
		}
	}
	code := exitCode(Judge(e.stderr, outcome.Interrupted, outcome.Overall, outs, rep.Validity, s.AllowInconclusive))
	if outcome.Aborted != "" && !outcome.Interrupted {
		// abort_on is a check the run failed, whatever the others say.
		fmt.Fprintf(e.stderr, "llmload: %s; the run was stopped early\n", outcome.Aborted)
		code = exitCheckFailed
	}
	if code == exitCheckFailed && opts.shard.sharded() {
		// A shard's checks see a slice of the run; the verdict is the
		// merge's. A shard that produced a result succeeded (a failed pod
		// would be retried by its Job).
		fmt.Fprintf(e.stderr, "llmload: shard %d of %d: the checks above judge this shard alone; the verdict is llmload merge's (exit 0)\n", opts.shard.index, opts.shard.count)
		code = exitOK
	}
	if opts.html != "" {
		path := opts.html
		if opts.multi {
			path = strings.TrimSuffix(path, ".html") + "-" + s.Name + ".html"
		}
		if err := writeHTMLFile(path, []report.Labelled{{Label: s.Name, Result: res}}); err != nil {
			fmt.Fprintf(e.stderr, "llmload: %v\n", err)
			code = worse(code, exitNoResult)
		} else {
			fmt.Fprintf(e.stderr, "llmload: wrote %s\n", path)
		}
	}
	if opts.out != "" {
		var paths []string
		werr := reqs.Close()
		if werr == nil {
			paths = append(paths, reqs.Path())
			p := filepath.Join(opts.out, dest.name)
			if werr = report.WriteResultFile(p, res); werr == nil {
				paths = append([]string{p}, paths...)
				if dest.latest != "" {
					if err := updateLatest(dest.latest, opts.out); err != nil {
						fmt.Fprintf(e.stderr, "llmload: updating %s/latest: %v\n", dest.latest, err)
					}
				}
			}
		}
		if werr != nil {
			// The verdict above stands; losing the files is worth a code
			// only when there was none worse.
			fmt.Fprintf(e.stderr, "llmload: writing results: %v\n", werr)
			code = worse(code, exitNoResult)
		}
		for _, p := range paths {
			fmt.Fprintf(e.stderr, "llmload: wrote %s\n", p)
		}
	}
	return worse(code, opts.gate.finishScenario(e, s, res, outs))
}

// evaluateRun evaluates a run's checks. A sweep's or search's sla checks
// judge each step (they define its capacity); the whole run keeps its
// asserts, which may read metrics.capacity, and fails when no load met
// the sla checks.
func evaluateRun(s *scenario.Scenario, overall *metrics.Summary, sweep *report.Sweep, base *assert.Baseline) []assert.Outcome {
	evaluate := func(s *scenario.Scenario) []assert.Outcome {
		if base != nil {
			return assert.EvaluateWith(s, overall, base)
		}
		return assert.Evaluate(s, overall)
	}
	if sweep == nil {
		return evaluate(s)
	}
	asserts := *s
	asserts.SLA = nil
	outs := evaluate(&asserts)
	if len(s.SLA) > 0 {
		o := assert.Outcome{Check: metrics.Check{
			Name: "capacity", Kind: "sla", Metric: "capacity",
			Description: "some load meets every sla check",
			Passed:      sweep.Capacity != nil,
		}}
		o.Verdict = assert.Fail
		if sweep.Capacity != nil {
			v := sweep.Capacity.Value
			o.Value = &v
			o.Verdict = assert.Pass
		} else {
			o.Message = fmt.Sprintf("no %s of the %s met every sla check", sweep.Vary, sweep.Mode)
		}
		outs = append([]assert.Outcome{o}, outs...)
	}
	return outs
}

// Judge is the status of a finished (or merged) run, said on log:
// interrupted when it was; no result when no request completed, when the
// run was invalid, or when a check was inconclusive (unless
// allowInconclusive); failed when a check failed; OK when every check
// passed on a valid run.
func Judge(log io.Writer, interrupted bool, overall *metrics.Summary, outs []assert.Outcome, validity *report.Validity, allowInconclusive bool) runner.Status {
	_, failed, inconclusive := assert.Tally(outs)
	switch {
	case interrupted:
		fmt.Fprintln(log, "llmload: interrupted; partial results above")
		return runner.StatusInterrupted
	case overall.Completed == 0:
		fmt.Fprintln(log, "llmload: no request completed: no valid result")
		return runner.StatusNoResult
	case validity != nil && !validity.Valid:
		var reasons []string
		for _, r := range validity.Broken() {
			reasons = append(reasons, fmt.Sprintf("%s %s over its bound of %s", r.Name, ruleValue(r, r.Value), ruleValue(r, r.Bound)))
		}
		fmt.Fprintf(log, "llmload: invalid run (%s): the load was not what the scenario said, so its checks prove nothing\n", strings.Join(reasons, "; "))
		return runner.StatusNoResult
	case failed > 0:
		return runner.StatusFailed
	case inconclusive > 0 && !allowInconclusive:
		fmt.Fprintf(log, "llmload: %s inconclusive: no valid verdict (allow_inconclusive = true accepts them)\n", count(inconclusive, "check", "checks"))
		return runner.StatusNoResult
	case inconclusive > 0:
		fmt.Fprintf(log, "llmload: %s inconclusive, accepted by allow_inconclusive\n", count(inconclusive, "check", "checks"))
	}
	return runner.StatusOK
}

// ruleValue renders a validity figure in its unit.
func ruleValue(r report.Rule, v float64) string {
	if r.Unit == "ms" {
		return strconv.FormatFloat(v, 'f', 3, 64) + " ms"
	}
	return strconv.FormatFloat(100*v, 'f', 2, 64) + "%"
}

// count writes n with the singular or plural noun.
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func buildReport(s *scenario.Scenario, lt *liveTarget, ds *dataset.Dataset, tok tokenizer.Tokenizer, o *executor.Outcome, outs []assert.Outcome, started, ended time.Time) *report.Run {
	r := &report.Run{
		Scenario:             s.Name,
		ToolVersion:          version,
		RunID:                newRunID(),
		Fingerprint:          fingerprint(s, ds),
		StartedAt:            started,
		EndedAt:              ended,
		TimeZero:             o.Started.Round(0).UTC(),
		TargetURL:            redactURL(s.Target.BaseURL),
		API:                  s.Target.API,
		Model:                s.Target.Model,
		Config:               s.Resolved(),
		Dataset:              ds.Stats,
		Simulator:            lt.simStats(),
		Tokenizer:            tok.Name(),
		TokenizerApproximate: !tok.Exact(),
		Goodput:              metrics.SLO(s.Goodput),
		Overall:              o.Overall,
		Checks:               reportChecks(outs),
		Interrupted:          o.Interrupted,
		Percentiles:          s.Percentiles,
		PercentileMetrics:    s.PercentileMetrics,
		Aborted:              o.Aborted,
	}
	if o.Aborted != "" && s.AbortOn != nil {
		r.Checks = append(r.Checks, abortCheck(s.AbortOn, o))
	}
	if ol := s.OpenLoop; ol != nil {
		r.RequestRate = ol.Rate
		r.Burstiness = ol.Burstiness
		r.MaxConcurrency = ol.MaxConcurrency
	}
	if rp := s.Replay; rp != nil {
		// The replay's mean rate: what the schedule is judged against.
		r.RequestRate = o.ConfiguredRate
		r.MaxConcurrency = rp.MaxConcurrency
	}
	r.Stages = stageReports(s, o.Stages)
	return r
}

// stageReports judges each closed-loop stage by the sla checks alone
// (asserts may speak of the whole run), so the report can name the most
// users that still meet them: the knee.
func stageReports(s *scenario.Scenario, stages []executor.StageOutcome) []report.Stage {
	var out []report.Stage
	for _, st := range stages {
		out = append(out, judgeStage(s, report.Stage{Stage: st.Index + 1, Users: st.Users, Duration: st.Duration.Seconds(), Summary: st.Summary}))
	}
	return out
}

// judgeStage evaluates the scenario's sla checks on one stage.
func judgeStage(s *scenario.Scenario, rs report.Stage) report.Stage {
	rs.SLAChecked, rs.SLAFailed, rs.SLAInconclusive, rs.Checks = false, nil, nil, nil
	if len(s.SLA) == 0 || rs.Summary == nil || rs.Summary.Completed+rs.Summary.Failed == 0 {
		return rs
	}
	slaOnly := *s
	slaOnly.Asserts, slaOnly.Regression = nil, nil
	rs.SLAChecked = true
	outs := assert.Evaluate(&slaOnly, rs.Summary)
	rs.Checks = reportChecks(outs)
	for _, c := range outs {
		switch c.Verdict {
		case assert.Fail:
			rs.SLAFailed = append(rs.SLAFailed, c.Name)
		case assert.Inconclusive:
			rs.SLAInconclusive = append(rs.SLAInconclusive, c.Name)
		}
	}
	return rs
}

// abortCheck is the failed check an aborted run reports: abort_on, with the
// error rate it saw.
func abortCheck(a *scenario.AbortOn, o *executor.Outcome) report.Check {
	s := o.Overall
	bound, rate := a.ErrorRate, s.ErrorRate()
	return report.Check{
		Name:        "abort_on",
		Kind:        "abort_on",
		Description: fmt.Sprintf("error_rate <= %g once %d requests finished", a.ErrorRate, a.MinRequests),
		Metric:      "error_rate",
		Op:          "<=",
		Threshold:   &bound,
		Unit:        "fraction",
		Value:       &rate,
		Samples:     int64(s.Completed + s.Failed),
		Verdict:     report.Fail,
		Message:     o.Aborted,
	}
}

// loadDatasetCtx loads the dataset as loadDataset does, but returns as
// soon as ctx ends (Ctrl-C): a large file or a slow /tokenize must not hold
// the process. The loading goroutine is left to finish (a server
// tokenizer's calls stop with ctx too).
func loadDatasetCtx(ctx context.Context, d *scenario.Dataset, lt *liveTarget) (*dataset.Dataset, tokenizer.Tokenizer, error) {
	type loaded struct {
		ds  *dataset.Dataset
		tok tokenizer.Tokenizer
		err error
	}
	done := make(chan loaded, 1)
	go func() {
		ds, tok, err := loadDataset(d, lt, false)
		done <- loaded{ds, tok, err}
	}()
	select {
	case l := <-done:
		return l.ds, l.tok, l.err
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
}

// isTerminal reports whether w is a terminal (for the progress line).
func isTerminal(w any) bool {
	if s, ok := w.(scrubWriter); ok {
		w = s.w
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
