package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"golang.org/x/term"

	"github.com/llmload/llmload/assert"
	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/executor"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/report"
	"github.com/llmload/llmload/scenario"
	"github.com/llmload/llmload/tokenizer"
)

type runOptions struct {
	out   string
	quiet bool
	html  string // HTML report path ("" for none)
	multi bool   // several scenarios run: one HTML file each
}

func cmdRun(ctx context.Context, e env, args []string) int {
	fs := newFlags(e, "run", "PATH...")
	var cf configFlags
	cf.register(fs)
	name := fs.String("scenario", "", "run only the scenario with this `name`")
	var opts runOptions
	out := outFlag(fs, "llmload-results", "`directory` for <scenario>.json and <scenario>.requests.jsonl (empty: write none)")
	fs.BoolVar(&opts.quiet, "quiet", false, "no progress line")
	fs.StringVar(&opts.html, "html", "", "write a self-contained HTML report to this `file` at the end (with several scenarios, <file> gets the scenario's name before .html)")
	cfg, code := parseAndLoad(e, fs, &cf, args)
	if cfg == nil {
		return code
	}
	opts.out = *out
	scenarios, code := selectScenarios(e, cfg, *name)
	if scenarios == nil {
		return code
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
	return worst
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
	lt, diags := startTarget(s.Target, s.Seed)
	if diags.HasErrors() {
		writeDiags(e, cfg, diags)
		return exitInvalid
	}
	defer lt.Close()
	if lt.profile != "" {
		fmt.Fprintf(e.stderr, "llmload: simulator %q listening on %s\n", lt.profile, lt.target.BaseURL)
	}

	ds, tok, err := loadDataset(s.Dataset, lt, false)
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

	plan := executorPlan(s, lt, ds, tok)
	// The requests file is opened before any load is sent: an unwritable
	// output directory fails now, not after the run.
	var reqs *report.RequestWriter
	if opts.out != "" {
		// A sweep's requests carry their step as their stage.
		if reqs, err = report.CreateRequests(opts.out, s.Name, plan.Closed != nil || s.Varies() != ""); err != nil {
			fmt.Fprintf(e.stderr, "llmload: cannot write results to %s: %v\n", opts.out, err)
			return exitInvalid
		}
		plan.Observers = append(plan.Observers, reqs)
	}
	if !opts.quiet {
		plan.Observers = append(plan.Observers, report.NewProgress(e.stderr, isTerminal(e.stderr)))
	}
	started := time.Now()
	var outcome *executor.Outcome
	var sweep *report.Sweep
	if s.Varies() != "" {
		outcome, sweep, err = runSteps(ctx, e, s, plan)
	} else {
		outcome, err = executor.Run(ctx, plan)
	}
	ended := time.Now()
	if err != nil {
		if reqs != nil {
			reqs.Close()
			os.Remove(reqs.Path())
		}
		fmt.Fprintf(e.stderr, "llmload: %v\n", err)
		return exitInvalid
	}

	outs := evaluateRun(s, outcome.Overall, sweep)
	rep := buildReport(s, lt, ds, tok, outcome, outs, started, ended)
	rep.Sweep = sweep
	res, err := report.NewResult(rep)
	if err != nil {
		fmt.Fprintf(e.stderr, "llmload: %v\n", err)
		return exitNoResult
	}
	if err := report.WriteConsole(e.stdout, res); err != nil {
		fmt.Fprintf(e.stderr, "llmload: writing the report: %v\n", err)
	}
	for _, o := range outs {
		if !o.Passed && o.Diagnostic != nil {
			writeDiags(e, cfg, hcl.Diagnostics{o.Diagnostic})
		}
	}
	code := verdict(e, outcome.Interrupted, outcome.Overall, outs)
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
			var p string
			if p, werr = report.WriteResult(opts.out, res); werr == nil {
				paths = append([]string{p}, paths...)
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
	return code
}

// evaluateRun evaluates a run's checks. A sweep's or search's sla checks
// judge each step (they define its capacity); the whole run keeps its
// asserts, which may read metrics.capacity, and fails when no load met
// the sla checks.
func evaluateRun(s *scenario.Scenario, overall *metrics.Summary, sweep *report.Sweep) []assert.Outcome {
	if sweep == nil {
		return assert.Evaluate(s, overall)
	}
	asserts := *s
	asserts.SLA = nil
	outs := assert.Evaluate(&asserts, overall)
	if len(s.SLA) > 0 {
		o := assert.Outcome{
			Name: "capacity", Kind: "sla", Metric: "capacity",
			Description: "some load meets every sla check",
			Passed:      sweep.Capacity != nil,
		}
		if sweep.Capacity != nil {
			v := sweep.Capacity.Value
			o.Value = &v
		} else {
			o.Message = fmt.Sprintf("no %s of the %s met every sla check", sweep.Vary, sweep.Mode)
		}
		outs = append([]assert.Outcome{o}, outs...)
	}
	return outs
}

// verdict is the exit code of a finished (or merged) run.
func verdict(e env, interrupted bool, overall *metrics.Summary, outs []assert.Outcome) int {
	switch {
	case interrupted:
		fmt.Fprintln(e.stderr, "llmload: interrupted; partial results above")
		return exitInterrupted
	case overall.Completed == 0:
		fmt.Fprintln(e.stderr, "llmload: no request completed: no valid result")
		return exitNoResult
	case !assert.Passed(outs):
		return exitCheckFailed
	}
	return exitOK
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
	}
	if ol := s.OpenLoop; ol != nil {
		r.RequestRate = ol.Rate
		r.Burstiness = ol.Burstiness
		r.MaxConcurrency = ol.MaxConcurrency
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
	rs.SLAChecked, rs.SLAFailed, rs.Checks = false, nil, nil
	if len(s.SLA) == 0 || rs.Summary == nil || rs.Summary.Completed+rs.Summary.Failed == 0 {
		return rs
	}
	slaOnly := *s
	slaOnly.Asserts = nil
	rs.SLAChecked = true
	outs := assert.Evaluate(&slaOnly, rs.Summary)
	rs.Checks = reportChecks(outs)
	for _, c := range outs {
		if !c.Passed {
			rs.SLAFailed = append(rs.SLAFailed, c.Name)
		}
	}
	return rs
}

// isTerminal reports whether w is a terminal (for the progress line).
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
