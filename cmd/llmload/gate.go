package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/llmload/llmload/assert"
	"github.com/llmload/llmload/report"
	"github.com/llmload/llmload/runner"
	"github.com/llmload/llmload/scenario"
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
	results []*report.Result
}

func (g *gateOptions) register(fs *flagSet) {
	fs.StringVar(&g.baseline, "baseline", "", "compare with this baseline result `file` (overrides the scenario's baseline)")
	fs.StringVar(&g.saveBaseline, "save-baseline", "", "also copy each result into `directory`, where a later run's baseline can point")
	fs.BoolVar(&g.force, "force", false, "use a baseline whose workload differs from the run's (printed loudly)")
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

// baselineFor loads the baseline a scenario's checks compare with: the
// -baseline flag's, else the scenario's. It returns nil (and runner.StatusOK) when
// the scenario has none and needs none. A missing file is exit 2 unless
// baseline_optional, which skips the checks that need it.
func (g *gateOptions) baselineFor(log io.Writer, s *scenario.Scenario) (*assert.Baseline, *report.Result, runner.Status) {
	if g.baseline != "" {
		s.Baseline = g.baseline
	}
	if s.Baseline == "" {
		if s.UsesBaseline() && !s.BaselineOptional {
			fmt.Fprintf(log, "llmload: scenario %q: its checks read a baseline (baseline.* or a regression block) but it names none: set baseline = \"FILE\" or run with -baseline FILE\n", s.Name)
			return nil, nil, runner.StatusInvalid
		}
		if s.UsesBaseline() {
			fmt.Fprintf(log, "llmload: scenario %q: no baseline; its baseline checks are skipped (baseline_optional)\n", s.Name)
			return &assert.Baseline{}, nil, runner.StatusOK
		}
		return nil, nil, runner.StatusOK
	}
	res, err := report.ReadResult(s.Baseline)
	switch {
	case err == nil && res.Verdict() == report.VerdictInvalid || err == nil && res.Verdict() == report.VerdictNoResult:
		fmt.Fprintf(log, "llmload: scenario %q: baseline %s is a run with no valid result (%s): it cannot judge another; refresh it\n", s.Name, s.Baseline, res.Verdict())
		return nil, nil, runner.StatusInvalid
	case err == nil:
		fmt.Fprintf(log, "llmload: baseline %s (run %s, %s)\n", s.Baseline, res.RunID, res.StartedAt.Format(time.RFC3339))
		// A baseline with repeats, against a run with repeats, is judged
		// by the run-to-run spread (the run sets NewRuns).
		return &assert.Baseline{Path: s.Baseline, Summary: res.Summary, Runs: res.Repeat.Summaries()}, res, runner.StatusOK
	case errors.Is(err, fs.ErrNotExist) && s.BaselineOptional:
		fmt.Fprintf(log, "llmload: no baseline at %s; its checks are skipped (baseline_optional)\n", s.Baseline)
		return &assert.Baseline{Path: s.Baseline}, nil, runner.StatusOK
	case errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(log, "llmload: scenario %q: baseline %s does not exist (baseline_optional = true runs without it; -save-baseline DIR writes one)\n", s.Name, s.Baseline)
		return nil, nil, runner.StatusInvalid
	}
	fmt.Fprintf(log, "llmload: baseline: %v\n", err)
	return nil, nil, runner.StatusInvalid
}

// comparison compares the run with its baseline result by the scenario's
// regression tolerances (none: the deltas alone, not judged).
func comparison(s *scenario.Scenario, baseRes *report.Result, rep *report.Run, forced []string) *report.Comparison {
	if baseRes == nil || baseRes.Summary == nil {
		return nil
	}
	cand := &report.Result{Extras: report.Extras{Summary: rep.Overall, RunID: rep.RunID, ServerVersion: rep.ServerVersion, Repeat: rep.Repeat}}
	if !rep.Goodput.Empty() {
		cand.Goodput = &report.SLOms{}
	}
	c := compareResults(s.Baseline, baseRes, cand, s.Tolerances())
	if len(s.Regression) == 0 {
		c.Verdict = ""
	}
	c.Forced = forced
	return c
}

// destination is where a run writes its result: a directory and the result
// file's name in it; latest, when set, is the folder whose "latest" pointer
// the run updates.
type destination struct {
	dir, name, latest string
}

// destinationFor applies the output rule: -out FILE.json writes that file
// (the requests file beside it); an explicit -out DIR writes DIR/<result>;
// the default directory gets a folder per run, <UTC time>-<scenario>, and a
// "latest" pointer to it, unless -overwrite.
func (g *gateOptions) destinationFor(out string, s *scenario.Scenario, now time.Time) destination {
	switch {
	case out == "":
		return destination{}
	case strings.HasSuffix(out, ".json") && g.outExplicit:
		return destination{dir: filepath.Dir(out), name: filepath.Base(out)}
	case g.outExplicit || g.overwrite:
		return destination{dir: out, name: s.ResultFile()}
	}
	folder := now.UTC().Format("2006-01-02T15-04-05Z") + "-" + s.Name
	return destination{dir: filepath.Join(out, folder), name: s.ResultFile(), latest: out}
}

// updateLatest points root/latest at the run's folder: a relative symlink,
// or, where symlinks fail, root/latest.json naming the folder.
func updateLatest(root, dir string) error {
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return err
	}
	link := filepath.Join(root, "latest")
	tmp := link + ".tmp"
	os.Remove(tmp)
	if err := os.Symlink(rel, tmp); err == nil {
		if err := os.Rename(tmp, link); err == nil {
			return nil
		}
		os.Remove(tmp)
	}
	body := fmt.Sprintf("{\"latest\": %q}\n", rel)
	return os.WriteFile(filepath.Join(root, "latest.json"), []byte(body), 0o644)
}

// finishScenario writes what CI reads of one scenario's run: the result's
// copy for -save-baseline, GitHub annotations of failed checks, the JSON
// summary and the Markdown report; JUnit waits for every scenario.
func (g *gateOptions) finishScenario(e env, s *scenario.Scenario, res *report.Result, outs []assert.Outcome) int {
	code := exitOK
	g.results = append(g.results, res)
	switch v := res.Verdict(); {
	case g.saveBaseline == "":
	case res.Interrupted || v == report.VerdictInvalid || v == report.VerdictNoResult:
		// A baseline from a run that proves nothing would gate every
		// later run against garbage.
		fmt.Fprintf(e.stderr, "llmload: -save-baseline: not saving a run that was interrupted, invalid or without result\n")
		code = exitNoResult
	default:
		p := filepath.Join(g.saveBaseline, s.ResultFile())
		if err := report.WriteResultFile(p, res); err != nil {
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
		for _, a := range annotations(s, outs) {
			fmt.Fprintln(w, a)
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

// annotations are GitHub Actions error annotations for the failed checks,
// at their line of the scenario file.
func annotations(s *scenario.Scenario, outs []assert.Outcome) []string {
	var out []string
	for _, o := range outs {
		if o.Verdict != assert.Fail {
			continue
		}
		file, line := s.File, s.DeclRange.Start.Line
		if o.Diagnostic != nil && o.Diagnostic.Subject != nil {
			file, line = o.Diagnostic.Subject.Filename, o.Diagnostic.Subject.Start.Line
		}
		msg := o.Message
		if msg == "" && o.Diagnostic != nil {
			msg = o.Diagnostic.Detail
		}
		out = append(out, report.GitHubAnnotation("error", filepath.ToSlash(file), line, fmt.Sprintf("llmload %s: %s %s", s.Name, o.Kind, o.Name), msg))
	}
	return out
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

// probeVersion asks the target for its version before the run; never fatal.
func probeVersion(ctx context.Context, log io.Writer, lt *liveTarget) string {
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	v := probeServerVersion(pctx, lt)
	if v != "" {
		fmt.Fprintf(log, "llmload: target server: %s\n", v)
	}
	return v
}
