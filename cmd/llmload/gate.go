package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmload/llmload/report"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/runner"
)

// gateOptions are run's flags for gating against a baseline and for CI
// systems: the baseline, where results go, and JUnit, Markdown and JSON
// outputs.
type gateOptions struct {
	baseline     string
	saveBaseline string
	force        bool
	junit        string
	markdown     string
	format       string
	overwrite    bool
	// outExplicit says -out was given: its directory is written as asked;
	// only the default one gets a folder per run.
	outExplicit bool

	// results collects every scenario's result for the outputs written
	// once all have run (JUnit).
	results []*results.Result
}

func (g *gateOptions) register(fs *flagSet) {
	fs.StringVar(&g.baseline, "baseline", "", "compare with this baseline result `file` (overrides the scenario's baseline)")
	fs.StringVar(&g.saveBaseline, "save-baseline", "", "also copy each result into `directory`, where a later run's baseline can point")
	fs.BoolVar(&g.force, "force", false, "use a baseline whose workload differs from the run's, or that was interrupted (printed loudly)")
	fs.StringVar(&g.junit, "junit", "", "write the checks as JUnit XML to `file` (one testsuite per scenario, one testcase per check)")
	fs.StringVar(&g.markdown, "markdown", "", "write the report as GitHub-flavoured Markdown to `file` (also appended to $GITHUB_STEP_SUMMARY when set)")
	fs.StringVar(&g.format, "format", "text", "stdout `format`: text (the report) or json (the summary and checks, one line per scenario; the report goes to stderr)")
	fs.BoolVar(&g.overwrite, "overwrite", false, "write into the default output directory itself, replacing an earlier result, instead of a new folder per run")
}

// validate checks the flags' values.
func (g *gateOptions) validate(fs *flagSet) int {
	if g.format != "text" && g.format != "json" {
		return fs.usageError(fmt.Sprintf("-format %q: want text or json", g.format))
	}
	return exitOK
}

// finishScenario writes what CI reads of one scenario's run: the result's
// copy for -save-baseline, GitHub annotations of failed checks, the JSON
// summary and the Markdown report; JUnit waits for every scenario.
func (g *gateOptions) finishScenario(e env, r *runner.Run) int {
	s, res := r.Scenario, r.Result
	code := exitOK
	g.results = append(g.results, res)
	switch v := res.Verdict(); {
	case g.saveBaseline == "":
	case res.Interrupted || v == results.VerdictInvalid || v == results.VerdictNoResult:
		// A baseline from a run that proves nothing would gate every
		// later run against garbage.
		fmt.Fprintf(e.stderr, "llmload: -save-baseline: not saving a run that was interrupted, invalid or without result\n")
		code = exitNoResult
	default:
		p := filepath.Join(g.saveBaseline, s.ResultFile())
		err := results.WriteResultFile(p, res)
		// The files beside the result go along (as <scenario>.requests.jsonl
		// and so on): a later run pairs its answers with the baseline's.
		if err == nil {
			err = results.SaveBeside(r.Files(), p)
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "llmload: -save-baseline: %v\n", err)
			code = exitNoResult
		} else {
			fmt.Fprintf(e.stderr, "llmload: saved baseline %s\n", p)
		}
	}
	if os.Getenv("GITHUB_ACTIONS") == "true" {
		w := e.stdout
		if g.format == "json" {
			w = e.stderr
		}
		for _, a := range r.Annotations() {
			fmt.Fprintln(w, report.GitHubAnnotation("error", a.File, a.Line, a.Title, a.Message))
		}
	}
	if g.format == "json" {
		if err := report.WriteJSONSummary(e.stdout, res); err != nil {
			fmt.Fprintf(e.stderr, "llmload: %v\n", err)
		}
	}
	return worse(code, writeMarkdown(e, g.markdown, func(w *strings.Builder) { report.WriteMarkdown(w, res) }))
}

// finish writes the outputs that cover every scenario (JUnit).
func (g *gateOptions) finish(e env) int {
	if g.junit == "" || len(g.results) == 0 {
		return exitOK
	}
	var buf bytes.Buffer
	if err := report.WriteJUnit(&buf, g.results); err != nil {
		fmt.Fprintf(e.stderr, "llmload: JUnit: %v\n", err)
		return exitNoResult
	}
	if err := writeFile(g.junit, buf.Bytes()); err != nil {
		fmt.Fprintf(e.stderr, "llmload: -junit: %v\n", err)
		return exitNoResult
	}
	fmt.Fprintf(e.stderr, "llmload: wrote %s\n", g.junit)
	return exitOK
}

// writeMarkdown renders Markdown into path (when set) and appends it to
// $GITHUB_STEP_SUMMARY (when set).
func writeMarkdown(e env, path string, render func(*strings.Builder)) int {
	summary := os.Getenv("GITHUB_STEP_SUMMARY")
	if path == "" && summary == "" {
		return exitOK
	}
	var b strings.Builder
	render(&b)
	if path != "" {
		if err := writeFile(path, []byte(b.String())); err != nil {
			fmt.Fprintf(e.stderr, "llmload: -markdown: %v\n", err)
			return exitNoResult
		}
		fmt.Fprintf(e.stderr, "llmload: wrote %s\n", path)
	}
	if summary != "" {
		f, err := os.OpenFile(summary, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			_, err = f.WriteString(b.String() + "\n")
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "llmload: GITHUB_STEP_SUMMARY: %v\n", err)
		}
	}
	return exitOK
}

func writeFile(path string, data []byte) error {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return os.WriteFile(path, data, 0o644)
}
