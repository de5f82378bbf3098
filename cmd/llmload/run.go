package main

import (
	"context"
	"fmt"
	"os"
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
}

func cmdRun(ctx context.Context, e env, args []string) int {
	fs := newFlags(e, "run", "PATH...")
	var cf configFlags
	cf.register(fs)
	name := fs.String("scenario", "", "run only the scenario with this `name`")
	var opts runOptions
	fs.StringVar(&opts.out, "out", "llmload-results", "`directory` for <scenario>.json and <scenario>.requests.jsonl (empty: write none)")
	fs.BoolVar(&opts.quiet, "quiet", false, "no progress line")
	cfg, code := parseAndLoad(e, fs, &cf, args)
	if cfg == nil {
		return code
	}
	scenarios, code := selectScenarios(e, cfg, *name)
	if scenarios == nil {
		return code
	}
	if code := checkFiles(e, cfg, scenarios); code != exitOK {
		return code
	}
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
	if !opts.quiet && isTerminal(e.stderr) {
		plan.Progress = e.stderr
	}
	started := time.Now()
	outcome, err := executor.Run(ctx, plan)
	ended := time.Now()
	if err != nil {
		fmt.Fprintf(e.stderr, "llmload: %v\n", err)
		return exitInvalid
	}

	outs := assert.Evaluate(s, outcome.Overall)
	rep := buildReport(s, lt, ds, tok, outcome, outs, started, ended)
	if err := report.WriteConsole(e.stdout, rep); err != nil {
		fmt.Fprintf(e.stderr, "llmload: writing the report: %v\n", err)
	}
	for _, o := range outs {
		if !o.Passed && o.Diagnostic != nil {
			writeDiags(e, cfg, hcl.Diagnostics{o.Diagnostic})
		}
	}
	code := exitOK
	switch {
	case outcome.Interrupted:
		fmt.Fprintln(e.stderr, "llmload: interrupted; partial results above")
		code = exitInterrupted
	case outcome.Overall.Completed == 0:
		fmt.Fprintln(e.stderr, "llmload: no request completed: no valid result")
		code = exitNoResult
	case !assert.Passed(outs):
		code = exitCheckFailed
	}
	if opts.out != "" {
		paths, err := report.WriteFiles(opts.out, rep)
		if err != nil {
			// The verdict above stands; losing the files is worth a code
			// only when there was none worse.
			fmt.Fprintf(e.stderr, "llmload: writing results: %v\n", err)
			code = worse(code, exitNoResult)
		}
		for _, p := range paths {
			fmt.Fprintf(e.stderr, "llmload: wrote %s\n", p)
		}
	}
	return code
}

func buildReport(s *scenario.Scenario, lt *liveTarget, ds *dataset.Dataset, tok tokenizer.Tokenizer, o *executor.Outcome, outs []assert.Outcome, started, ended time.Time) *report.Run {
	r := &report.Run{
		Scenario:             s.Name,
		ToolVersion:          version,
		StartedAt:            started,
		EndedAt:              ended,
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
		Requests:             o.Results,
	}
	if ol := s.OpenLoop; ol != nil {
		r.RequestRate = ol.Rate
		r.Burstiness = ol.Burstiness
		r.MaxConcurrency = ol.MaxConcurrency
	}
	// Each stage is judged by the sla checks alone (asserts may speak of
	// the whole run), so the report can name the most users that still
	// meet them: the knee.
	slaOnly := *s
	slaOnly.Asserts = nil
	for _, st := range o.Stages {
		rs := report.Stage{Index: st.Index, Users: st.Users, Duration: st.Duration.Seconds(), Summary: st.Summary}
		if len(s.SLA) > 0 && st.Summary != nil && st.Summary.Completed+st.Summary.Failed > 0 {
			rs.SLAChecked = true
			for _, c := range assert.Evaluate(&slaOnly, st.Summary) {
				if !c.Passed {
					rs.SLAFailed = append(rs.SLAFailed, c.Name)
				}
			}
		}
		r.Stages = append(r.Stages, rs)
	}
	r.Schedule = report.ScheduleOf(o.ConfiguredRate, o.Results, o.Overall.Lag, executor.LateThreshold)
	return r
}

// isTerminal reports whether w is a terminal (for the progress line).
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
