package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/llmload/llmload/assert"
	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/executor"
	"github.com/llmload/llmload/live"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/scenario"
	"github.com/llmload/llmload/tokenizer"
)

// Options are what a run takes beside its scenario: where its messages
// and files go, and what the command line adds to the scenario.
type Options struct {
	// Log receives every message of the run, one line each, beginning
	// "llmload: " (the command passes its stderr, secrets scrubbed).
	Log io.Writer
	// Terminal says Log is a terminal: the progress line redraws itself.
	Terminal bool
	// Quiet drops the progress line.
	Quiet bool

	// Out is the directory results go to ("" for none); OutExplicit says
	// it was given (an explicit -out is written as asked; only the default
	// directory gets a folder per run) and Overwrite writes into the
	// default directory itself.
	Out         string
	OutExplicit bool
	Overwrite   bool

	// MetricsAddr serves live Prometheus metrics at host:port (overrides
	// the scenario's metrics_addr).
	MetricsAddr string
	// Baseline is a baseline result file that overrides the scenario's;
	// Force compares with a baseline whose workload differs (loudly).
	Baseline string
	Force    bool

	// Shard splits the run across processes and lines them up.
	Shard Shard

	// Secrets are more values to scrub from what the run records.
	Secrets []string
	// ToolVersion is llmload's version, recorded in results and
	// fingerprints; ToolCommit its VCS revision ("" when unknown),
	// recorded in results.
	ToolVersion string
	ToolCommit  string
	// ValidityBounds, when set, gives the bounds a run is judged valid by
	// from its scenario's (tests lift the ones that measure the machine).
	ValidityBounds func(scenario.Validity) scenario.Validity
}

// RunFlags are the options that can make a scenario impossible to run, as
// scenario.CheckRunFlags reads them.
func (o Options) RunFlags() scenario.RunFlags {
	return o.Shard.RunFlags(o.Baseline != "")
}

// validity is the bounds s's run is judged valid by.
func (o Options) validity(s *scenario.Scenario) scenario.Validity {
	if o.ValidityBounds != nil {
		return o.ValidityBounds(s.Validity)
	}
	return s.Validity
}

func (o Options) log() io.Writer {
	if o.Log == nil {
		return io.Discard
	}
	return o.Log
}

// Run is a scenario's run once the load is over and its result is built:
// the command renders Result, then asks for the Verdict, Saves the files
// and Closes the run (its targets, barrier and live metrics stay up until
// then).
type Run struct {
	Scenario *scenario.Scenario
	// Result is the run's result, as written to <scenario>.json.
	Result *results.Result
	// Outcomes are the checks' outcomes (failed ones may carry a
	// diagnostic pointing at the check's line).
	Outcomes []assert.Outcome

	opts    Options
	outcome *executor.Outcome
	reqs    *results.RequestWriter
	out     string
	dest    destination
	closers []func()
	saved   bool
}

// Close stops what the run kept up: simulators, shard 0's barrier, the
// live metrics endpoint; a requests file that Save did not keep is
// removed.
func (r *Run) Close() {
	if r.reqs != nil && !r.saved {
		r.reqs.Remove()
		r.reqs = nil
	}
	for i := len(r.closers) - 1; i >= 0; i-- {
		r.closers[i]()
	}
	r.closers = nil
}

// RunScenario runs s: it starts its target (a simulator for sim://), loads
// its dataset, loads its baseline, lines up with the other shards, opens
// its output files, sends the load and builds the result. It writes its
// progress to opts.Log. When the run produced no result it returns a nil
// Run, the status, and the diagnostics (if any) that say why, for the
// command to render; everything it started is stopped.
func RunScenario(ctx context.Context, s *scenario.Scenario, opts Options) (*Run, Status, hcl.Diagnostics) {
	r := &Run{Scenario: s, opts: opts}
	st, diags := r.run(ctx)
	if st != StatusOK || diags.HasErrors() {
		r.Close()
		return nil, st, diags
	}
	return r, StatusOK, nil
}

func (r *Run) run(ctx context.Context) (Status, hcl.Diagnostics) {
	s, opts, log := r.Scenario, r.opts, r.opts.log()
	fmt.Fprintf(log, "llmload: scenario %q\n", s.Name)
	// What the flags make impossible is refused before anything starts,
	// at the line that makes it so (validate says the same).
	if diags := s.CheckRunFlags(opts.RunFlags()); diags.HasErrors() {
		return StatusInvalid, diags
	}
	lt, diags := startTarget(s.Target, s.Seed)
	if diags.HasErrors() {
		return StatusInvalid, diags
	}
	r.closers = append(r.closers, lt.Close)
	lt.ctx = ctx
	lt.target.Secrets = opts.Secrets
	if lt.profile != "" {
		fmt.Fprintf(log, "llmload: %s\n", lt.simListening())
	}

	ds, tok, err := loadDatasetCtx(ctx, s.Dataset, lt)
	if ctx.Err() != nil {
		fmt.Fprintln(log, "llmload: interrupted while loading the dataset; nothing was sent")
		return StatusInterrupted, nil
	}
	if err != nil {
		fmt.Fprintf(log, "llmload: dataset %q: %v\n", s.Dataset.Name, err)
		if srv, ok := tok.(*tokenizer.Server); ok && srv.Err() != nil {
			// The target did not answer /tokenize: no valid result, as for
			// a target that does not answer the load.
			return StatusNoResult, nil
		}
		return StatusInvalid, nil
	}
	if len(ds.Requests) == 0 {
		fmt.Fprintf(log, "llmload: dataset %q produced no request\n", s.Dataset.Name)
		return StatusInvalid, nil
	}

	var base *assert.Baseline
	var baseRes *results.Result
	var arms [2]*abArm
	if s.AB() {
		b, diags := startBaselineArm(ctx, log, s, opts.Secrets)
		if b == nil {
			return StatusInvalid, diags
		}
		r.closers = append(r.closers, b.lt.Close)
		arms = [2]*abArm{b, {name: results.ArmCandidate, lt: lt, target: s.Target}}
	} else {
		var st Status
		if base, baseRes, st = baselineFor(log, s, opts.Baseline, opts.Force); st != StatusOK {
			return st, nil
		}
	}
	// A stored baseline's answers, from the files beside it: this run's
	// are paired with them by prompt (agreement).
	var baseAnswers, ownAnswers *metrics.AnswerBook
	if baseRes != nil {
		var err error
		if baseAnswers, err = results.AnswersBeside(s.Baseline); err != nil {
			fmt.Fprintf(log, "llmload: baseline answers: %v\n", err)
			return StatusInvalid, nil
		}
		if baseAnswers != nil {
			ownAnswers = metrics.NewAnswerBook()
		}
	}
	workload := workloadOf(s, ds, tok, opts.ToolVersion)
	var forced []string
	if baseRes != nil {
		var ok bool
		if !CheckFormats(log, "baseline "+s.Baseline, baseRes.Format(), results.FormatVersion) {
			return StatusInvalid, nil
		}
		if forced, ok = CheckWorkloads(log, "baseline "+s.Baseline, baseRes.Workload, workload, opts.Force); !ok {
			return StatusInvalid, nil
		}
	}
	serverVersion, serverCfg := probeServer(ctx, log, lt)
	if arms[1] != nil {
		arms[1].version = serverVersion
	}
	// The settings the comparison requires to match, before any load.
	var baseCfg *results.ServerConfig
	var forcedCfg []string
	switch {
	case arms[0] != nil:
		baseCfg = readServerConfig(ctx, log, arms[0].lt, "baseline arm")
		var ok bool
		if forcedCfg, ok = CheckServerConfigs(log, "A/B", baseCfg, serverCfg, s.RequireSameServerConfig, opts.Force); !ok {
			return StatusInvalid, nil
		}
	case baseRes != nil:
		baseCfg = baseRes.ServerConfig
		var ok bool
		if forcedCfg, ok = CheckServerConfigs(log, "baseline "+s.Baseline, baseCfg, serverCfg, s.RequireSameServerConfig, opts.Force); !ok {
			return StatusInvalid, nil
		}
	}
	// The prompt cache policy in the fields each engine takes.
	fits := []*abArm{{lt: lt, version: serverVersion}}
	if arms[0] != nil {
		fits = append(fits, arms[0])
	}
	for _, a := range fits {
		if err := fitPromptCache(a.lt, a.version); err != nil {
			fmt.Fprintf(log, "llmload: %v\n", err)
			return StatusInvalid, nil
		}
	}

	plan := executorPlan(s, lt, ds, tok)
	fp := fingerprint(s, ds, opts.ToolVersion)
	co, st := coordinate(ctx, log, s, lt, &plan, fp, opts.Shard)
	if co == nil {
		return st, nil
	}
	r.closers = append(r.closers, co.close)
	dest := destinationFor(opts.Out, opts.OutExplicit, opts.Overwrite, s, time.Now())
	out := opts.Shard.shardDir(dest.dir)
	// The requests file is opened before any load is sent: an unwritable
	// output directory fails now, not after the run.
	var reqs *results.RequestWriter
	if out != "" {
		// A sweep's requests carry their step as their stage.
		if reqs, err = results.CreateRequests(out, strings.TrimSuffix(dest.name, ".json"), plan.Closed != nil || s.Varies() != ""); err != nil {
			fmt.Fprintf(log, "llmload: cannot write results to %s: %v\n", out, err)
			return StatusInvalid, nil
		}
		if n := s.KeepOutputs; n > 0 {
			outs, err := results.CreateOutputs(out, strings.TrimSuffix(dest.name, ".json"), n, lt.target.Scrubber().Scrub)
			if err != nil {
				reqs.Remove()
				fmt.Fprintf(log, "llmload: cannot write results to %s: %v\n", out, err)
				return StatusInvalid, nil
			}
			reqs.Also(outs)
			plan.KeepOutputs = n
		}
		plan.Observers = append(plan.Observers, reqs)
	}
	var detailed *results.DetailedCollector
	if s.SaveDetailed {
		// vLLM's per-request arrays: kept in memory until the run ends.
		detailed = results.NewDetailedCollector()
		plan.Observers = append(plan.Observers, detailed)
		plan.KeepText = true
	}
	if !opts.Quiet {
		plan.Observers = append(plan.Observers, live.NewProgress(log, opts.Terminal))
	}
	addr := opts.MetricsAddr
	if addr == "" {
		addr = s.MetricsAddr
	}
	lx, err := startLive(log, s, &plan, addr)
	if err != nil {
		if reqs != nil {
			reqs.Remove()
		}
		fmt.Fprintf(log, "llmload: %v\n", err)
		return StatusInvalid, nil
	}
	if lx != nil {
		r.closers = append(r.closers, func() { lx.Close() })
	}
	// Every open stream is a file descriptor (two with the in-process
	// simulator): raise the soft limit now rather than fail mid-run.
	conns := executor.PlannedConcurrency(plan)
	if s.Target.IsSim() {
		conns *= 2
	}
	if msg, err := executor.EnsureFileLimit(conns); err != nil || msg != "" {
		fmt.Fprintf(log, "llmload: %s\n", cmp.Or(msg, fmt.Sprint(err)))
	}
	var scr *serverScrape
	if !s.AB() {
		// An A/B run's blocks alternate between two servers: a scrape of
		// one would mix its load with its idle time.
		scr = startScrape(ctx, s, lt)
	}
	cpu := &cpuMeter{}
	plan.Observers = append(plan.Observers, cpu)
	if ownAnswers != nil {
		plan.Observers = append(plan.Observers, answerObserver{ownAnswers})
		// The first answers' texts, for prefix agreement and similarity.
		plan.KeepOutputs = max(plan.KeepOutputs, abAnswerTexts)
	}
	bounds := opts.validity(s)
	started := time.Now()
	stopped := &stop{}
	tree := treeOf(log, s, bounds, arms, base, stopped)
	outcome, err := tree.run(ctx, plan)
	var sweep *results.Sweep
	var reps *results.Repeats
	var abo *abOutcome
	switch l := tree.(type) {
	case *steps:
		sweep = l.sweep
	case *interleaved:
		abo = l.ab
	case *repeats:
		reps = l.reps
	}
	ended := time.Now()
	if err == nil {
		scr.finish(log, outcome)
		outcome.Overall.ClientCPU = cpu.Fraction()
		warnPromptCache(log, lt, outcome.Overall)
	} else if scr != nil {
		scr.s.Stop()
	}
	if err != nil {
		if reqs != nil {
			reqs.Remove()
		}
		var pe *executor.PreflightError
		switch {
		case ctx.Err() != nil:
			fmt.Fprintln(log, "llmload: interrupted before the load; nothing was measured")
			return StatusInterrupted, nil
		case errors.As(err, &pe):
			// The target is down or refuses the requests: no load was sent,
			// and no valid result can come of it.
			fmt.Fprintf(log, "llmload: %v\n", err)
			fmt.Fprintln(log, "llmload: no load was sent (set preflight = false to skip the probe, or ready_timeout to wait for the target)")
			return StatusNoResult, nil
		}
		fmt.Fprintf(log, "llmload: %v\n", err)
		return StatusInvalid, nil
	}

	if ownAnswers != nil {
		ag := metrics.Agree(baseAnswers, ownAnswers, s.Baseline, lt.target.Scrubber().Scrub)
		// Either side sampling: answers need not agree.
		ag.Sampled = lt.target.Samples() || baseRes.Sampled
		outcome.Overall.Agreement = ag
	}
	// Answers paired with a baseline's, with deterministic sampling: the
	// default agreement check judges them.
	if ag := outcome.Overall.Agreement; ag != nil && !ag.Sampled && ag.Scored > 0 {
		scenario.AddAgreementCheck(s)
	}
	if abo != nil {
		base = armsBaseline(s, abo)
	}
	if base != nil && reps != nil {
		base.NewRuns = reps.Summaries()
		base.Confidence = reps.Stopping.LastConfidence()
	}
	outs := evaluateRun(s, outcome.Overall, sweep, base)
	rep := buildReport(s, lt, ds, tok, outcome, outs, started, ended, opts.ToolVersion)
	rep.ToolCommit = opts.ToolCommit
	rep.Workload, rep.ServerVersion, rep.ServerConfig = workload, serverVersion, serverCfg
	rep.Repeat = reps
	rep.Comparison = comparison(s, baseRes, rep, forced)
	if rep.Comparison != nil {
		rep.Comparison.ForcedServerConfig = forcedCfg
	}
	if detailed != nil {
		rep.Detailed = detailed.Detailed()
	}
	switch {
	case abo != nil:
		rep.AB = abo.ab
		if a := abo.candidate.Agreement; a != nil && a.Sampled {
			rep.Sampled = true // either arm sampled
		}
		rep.Comparison = abComparison(s, abo, rep)
		rep.Comparison.Notes = OutputNotes(abo.baseline, abo.candidate)
		rep.AB.Baseline.ServerConfig, rep.AB.Candidate.ServerConfig = baseCfg, serverCfg
		withServerConfig(rep.Comparison, baseCfg, serverCfg, forcedCfg)
		// The load generator's validity covers both arms' blocks.
		abo.all.ClientCPU = outcome.Overall.ClientCPU
		rep.Validity = ReportValidity(bounds, abo.all)
	case reps != nil:
		rep.Validity = repeatsValidity(bounds, outcome.Overall, reps)
	default:
		rep.Validity = ReportValidity(bounds, outcome.Overall)
	}
	if r := stopped.rule(); r != nil {
		// A part could not start: what ran is kept, and proves nothing
		// about the plan.
		rep.Validity.Rules = append(rep.Validity.Rules, *r)
		rep.Validity.Valid = false
	}
	rep.RunID, rep.Fingerprint = co.runID, fp
	if opts.Shard.Count > 0 {
		rep.Shard = &results.Shard{Index: opts.Shard.Index, Count: opts.Shard.Count}
	}
	if sy := co.sync; sy != nil {
		sy.StartLateMs = ms(outcome.StartLate)
		rep.Sync = sy
		if outcome.StartLate > 0 {
			fmt.Fprintf(log, "llmload: warning: the schedule began %v after the common start (warmup ran past it)\n", outcome.StartLate.Round(time.Millisecond))
		}
	}
	rep.Sweep = sweep
	res, err := results.NewResult(rep)
	if err != nil {
		fmt.Fprintf(log, "llmload: %v\n", err)
		return StatusNoResult, nil
	}
	r.Result, r.Outcomes = res, outs
	r.outcome, r.reqs, r.out, r.dest = outcome, reqs, out, dest
	return StatusOK, nil
}

// Verdict judges the run (see Judge), and says so on the log. An abort_on
// that stopped the run fails it, even when nothing completed: it is the
// scenario's own guard against a dead server, and its verdict is clear
// (docs/scenarios.md). A shard's failed checks do not fail it (the
// merge's verdict is the run's).
func (r *Run) Verdict() Status {
	log, o, res := r.opts.log(), r.outcome, r.Result
	st := Judge(log, o.Interrupted, o.Overall, r.Outcomes, res.Validity, r.Scenario.AllowInconclusive)
	if o.Aborted != "" && !o.Interrupted {
		fmt.Fprintf(log, "llmload: %s; the run was stopped early\n", o.Aborted)
		st = StatusFailed
	}
	if sh := r.opts.Shard; st == StatusFailed && sh.Sharded() {
		// A shard's checks see a slice of the run; the verdict is the
		// merge's. A shard that produced a result succeeded (a failed pod
		// would be retried by its Job).
		fmt.Fprintf(log, "llmload: shard %d of %d: the checks above judge this shard alone; the verdict is llmload merge's (exit 0)\n", sh.Index, sh.Count)
		st = StatusOK
	}
	return st
}

// Save writes the result file and closes the requests file under the
// output directory (nothing without one), and points the default
// directory's "latest" at the run's folder. Files it could not write are
// StatusNoResult; the verdict stands otherwise.
func (r *Run) Save() Status {
	r.saved = true
	if r.out == "" {
		return StatusOK
	}
	log := r.opts.log()
	var paths []string
	werr := r.reqs.Close()
	if werr == nil {
		paths = append(paths, r.reqs.Paths()...)
		p := filepath.Join(r.out, r.dest.name)
		if werr = results.WriteResultFile(p, r.Result); werr == nil {
			paths = append([]string{p}, paths...)
			if r.dest.latest != "" {
				if err := updateLatest(r.dest.latest, r.out); err != nil {
					fmt.Fprintf(log, "llmload: updating %s/latest: %v\n", r.dest.latest, err)
				}
			}
		}
	}
	st := StatusOK
	if werr != nil {
		fmt.Fprintf(log, "llmload: writing results: %v\n", werr)
		st = StatusNoResult
	}
	for _, p := range paths {
		fmt.Fprintf(log, "llmload: wrote %s\n", p)
	}
	return st
}

// answerObserver keeps a run's answers by prompt.
type answerObserver struct{ book *metrics.AnswerBook }

func (o answerObserver) Result(r *metrics.Request) { o.book.Add(r) }
func (answerObserver) Snapshot(metrics.Snapshot)   {}

// ResultName is the result file's name (<scenario>.json, or the
// scenario's result_filename).
func (r *Run) ResultName() string { return r.dest.name }

// Files are the files Save wrote beside the result (the requests file,
// and the outputs file when there is one): a copy of the result made a
// baseline takes them along, so that its answers can be paired.
func (r *Run) Files() []string {
	if !r.saved || r.reqs == nil {
		return nil
	}
	return r.reqs.Paths()
}

// evaluateRun evaluates a run's checks. A sweep's or search's sla checks
// judge each step (they define its capacity); the whole run keeps its
// asserts, which may read metrics.capacity, and fails when no load met
// the sla checks.
func evaluateRun(s *scenario.Scenario, overall *metrics.Summary, sweep *results.Sweep, base *assert.Baseline) []assert.Outcome {
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

// Judge is the status of a finished (or merged) run: the verdict of the
// one judge (metrics.Judge) over how the run ended, what completed, its
// validity and its checks, said on log when it is not a clean pass or
// fail, and mapped to a Status (StatusOf).
func Judge(log io.Writer, interrupted bool, overall *metrics.Summary, outs []assert.Outcome, validity *results.Validity, allowInconclusive bool) Status {
	j := metrics.Judging{Interrupted: interrupted, Completed: overall.Completed, AllowInconclusive: allowInconclusive}
	if validity != nil && !validity.Valid {
		for _, r := range validity.Broken() {
			j.Broken = append(j.Broken, fmt.Sprintf("%s %s over its bound of %s", r.Name, ruleValue(r, r.Value), ruleValue(r, r.Bound)))
		}
	}
	for _, o := range outs {
		j.Checks = append(j.Checks, o.Check)
	}
	out := metrics.Judge(j)
	if out.Reason != "" && out.Verdict != metrics.Skipped {
		fmt.Fprintln(log, "llmload: "+out.Reason)
	}
	return StatusOf(out.Verdict)
}

// StatusOf is the Status of a verdict of metrics.Judge: a pass, or every
// check skipped, is OK; a failed check is Failed; an inconclusive or
// invalid run has no result; an interrupted one is Interrupted.
func StatusOf(verdict string) Status {
	switch verdict {
	case metrics.Fail:
		return StatusFailed
	case metrics.Inconclusive, metrics.Invalid:
		return StatusNoResult
	case metrics.Interrupted:
		return StatusInterrupted
	}
	return StatusOK
}

// ruleValue renders a validity figure in its unit.
func ruleValue(r results.Rule, v float64) string {
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

// scrubbedStats is a dataset's statistics without a sensitive variable's
// value (in the tokenizer's path, say).
func scrubbedStats(s *scenario.Scenario, st dataset.Stats) dataset.Stats {
	st.Tokenizer = s.Scrub(st.Tokenizer)
	return st
}

func buildReport(s *scenario.Scenario, lt *liveTarget, ds *dataset.Dataset, tok tokenizer.Tokenizer, o *executor.Outcome, outs []assert.Outcome, started, ended time.Time, version string) *results.Run {
	r := &results.Run{
		Scenario:             s.Name,
		ToolVersion:          version,
		RunID:                newRunID(),
		Fingerprint:          fingerprint(s, ds, version),
		StartedAt:            started,
		EndedAt:              ended,
		TimeZero:             o.Started.Round(0).UTC(),
		TargetURL:            RedactURL(s.Target.BaseURL),
		API:                  s.Target.API,
		Model:                s.Target.Model,
		Config:               s.Resolved(),
		Dataset:              scrubbedStats(s, ds.Stats),
		Simulator:            lt.simStats(),
		Tokenizer:            s.Scrub(tok.Name()),
		TokenizerApproximate: !tok.Exact(),
		Goodput:              metrics.SLO(s.Goodput),
		Overall:              o.Overall,
		Checks:               reportChecks(outs),
		Interrupted:          o.Interrupted,
		Percentiles:          s.Percentiles,
		PercentileMetrics:    s.PercentileMetrics,
		Aborted:              o.Aborted,
		Sampled:              lt.target.Samples(),
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
func stageReports(s *scenario.Scenario, stages []executor.StageOutcome) []results.Stage {
	var out []results.Stage
	for _, st := range stages {
		out = append(out, judgeStage(s, results.Stage{Stage: st.Index + 1, Users: st.Users, Duration: st.Duration.Seconds(), Summary: st.Summary}))
	}
	return out
}

// judgeStage evaluates the scenario's sla checks on one stage.
func judgeStage(s *scenario.Scenario, rs results.Stage) results.Stage {
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
func abortCheck(a *scenario.AbortOn, o *executor.Outcome) results.Check {
	s := o.Overall
	bound, rate := a.ErrorRate, s.ErrorRate()
	return results.Check{
		Name:        "abort_on",
		Kind:        "abort_on",
		Description: fmt.Sprintf("error_rate <= %g once %d requests finished", a.ErrorRate, a.MinRequests),
		Metric:      "error_rate",
		Op:          "<=",
		Threshold:   &bound,
		Unit:        "fraction",
		Value:       &rate,
		Samples:     int64(s.Completed + s.Failed),
		Verdict:     results.Fail,
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
