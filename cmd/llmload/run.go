package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"golang.org/x/term"

	"github.com/llmload/llmload/internal/buildinfo"
	"github.com/llmload/llmload/report"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/runner"
	"github.com/llmload/llmload/scenario"
)

type runOptions struct {
	out         string
	quiet       bool
	metricsAddr string
	shard       shardOptions
	html        string // HTML report path ("" for none)
	ops         string // directory for llmload ops' files ("" for none)
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
	fs.StringVar(&opts.ops, "ops", "", "write alert rules, their promtool tests and autoscaler targets from the run's capacity into this `directory`, as llmload ops does (with several scenarios, a folder per scenario)")
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
	if len(scenarios) > 1 && opts.shard.value().Active() {
		fmt.Fprintf(e.stderr, "llmload: -shard, -run-id, -start-at and -barrier apply to one scenario: choose it with -scenario (the configuration has %d)\n", len(scenarios))
		return exitInvalid
	}
	opts.multi = len(scenarios) > 1
	worst := exitOK
	var rows []runner.ScenarioRow
	for i, s := range scenarios {
		if opts.multi { // each block labelled, and one table at the end
			runner.WriteBanner(opts.console(e), s.Name, i+1, len(scenarios))
		}
		code, res := runScenario(ctx, e, cfg, s, opts)
		worst, rows = worse(worst, code), append(rows, runner.SummaryRow(s.Name, res, code))
		if code == exitInterrupted {
			break
		}
	}
	if opts.multi {
		runner.WriteSummary(opts.console(e), scenarios, rows)
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

// console is where the reports go: stdout, or stderr when stdout is JSON.
func (o runOptions) console(e env) io.Writer {
	if o.gate.format == "json" {
		return e.stderr
	}
	return e.stdout
}

func runScenario(ctx context.Context, e env, cfg *scenario.Config, s *scenario.Scenario, opts runOptions) (int, *results.Result) {
	r, st, diags := runner.RunScenario(ctx, s, opts.runner(e))
	if r == nil {
		if diags.HasErrors() {
			writeDiags(e, cfg, diags)
		}
		return exitCode(st), nil
	}
	defer r.Close()
	res, console := r.Result, opts.console(e)
	// The files first (the result, the HTML report, a saved baseline): a
	// closed stdout (run ... | head -1) loses only the report printed
	// after them.
	code := exitCode(r.Verdict())
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
	// The verdict above stands; losing the files is worth a code only
	// when there was none worse.
	code = worse(worse(code, exitCode(r.Save())), opts.gate.finishScenario(e, r))
	// A run that failed keeps its code; one that passed and could not
	// give the files it was asked for is no result.
	if opts.ops != "" {
		if c := writeOps(e, opts, s.Name, r); code == exitOK {
			code = c
		}
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
	for _, o := range r.Outcomes {
		if !o.Passed && o.Diagnostic != nil {
			writeDiags(e, cfg, hcl.Diagnostics{o.Diagnostic})
		}
	}
	return code, res
}

// runner is the options as the runner takes them.
func (o runOptions) runner(e env) runner.Options {
	build := buildinfo.Read(version, commit)
	return runner.Options{
		Log:            e.stderr,
		Terminal:       isTerminal(e.stderr),
		Quiet:          o.quiet,
		Out:            o.out,
		OutExplicit:    o.gate.outExplicit,
		Overwrite:      o.gate.overwrite,
		MetricsAddr:    o.metricsAddr,
		Baseline:       o.gate.baseline,
		Force:          o.gate.force,
		Shard:          o.shard.value(),
		Secrets:        e.secrets.Secrets(),
		ToolVersion:    build.Version,
		ToolCommit:     build.Commit,
		ValidityBounds: validityBounds,
	}
}

// validityBounds gives the bounds a run is judged valid by: its scenario's.
// Only tests replace it (TestMain), so that a test about faults, capacity or
// merging is judged by what it is about, not by how busy the machine running
// it is; the tests of the validity gate itself restore it.
var validityBounds = func(v scenario.Validity) scenario.Validity { return v }

// isTerminal reports whether w is a terminal (for the progress line).
func isTerminal(w any) bool {
	if s, ok := w.(scrubWriter); ok {
		w = s.w
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
