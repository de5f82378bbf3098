package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmload/llmload/report"
	"github.com/llmload/llmload/results"
)

// Text formats of the report command.
var reportFormats = []string{"table", "markdown", "csv", "json"}

// cmdReport renders saved result files: as text (the console report,
// Markdown, CSV or JSON) and, with -html, as one self-contained HTML page;
// several files are overlaid, the first as the baseline.
func cmdReport(_ context.Context, e env, args []string) int {
	fs := newFlags(e, "report", "RESULT.json...")
	format := fs.String("format", "table", "text `format`: "+strings.Join(reportFormats, ", "))
	htmlPath := fs.String("html", "", "also write a self-contained HTML report to this `file`")
	out := outFlag(fs, "", "write the text report to this `file` instead of stdout")
	paths, code, ok := parseInterspersed(fs, args)
	if !ok {
		return code
	}
	if len(paths) == 0 {
		fmt.Fprintln(e.stderr, "llmload report: no result file given")
		return exitInvalid
	}
	valid := false
	for _, f := range reportFormats {
		valid = valid || *format == f
	}
	if !valid {
		fmt.Fprintf(e.stderr, "llmload report: unknown format %q (valid: %s)\n", *format, strings.Join(reportFormats, ", "))
		return exitInvalid
	}
	var labelled []report.Labelled
	for _, p := range paths {
		r, err := results.ReadResult(p)
		if err != nil {
			fmt.Fprintf(e.stderr, "llmload report: %v\n", err)
			return exitInvalid
		}
		labelled = append(labelled, report.Labelled{Label: resultLabel(p, r, paths), Result: r})
	}
	if *htmlPath != "" {
		if err := writeHTMLFile(*htmlPath, labelled); err != nil {
			fmt.Fprintf(e.stderr, "llmload report: %v\n", err)
			return exitInvalid
		}
		fmt.Fprintf(e.stderr, "llmload: wrote %s\n", *htmlPath)
	}
	w := e.stdout
	var f *os.File
	if *out != "" {
		var err error
		if f, err = os.Create(*out); err != nil {
			fmt.Fprintf(e.stderr, "llmload report: %v\n", err)
			return exitInvalid
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriter(w)
	if err := writeTextReport(bw, *format, labelled); err != nil {
		fmt.Fprintf(e.stderr, "llmload report: %v\n", err)
		return exitInvalid
	}
	if err := bw.Flush(); err != nil {
		fmt.Fprintf(e.stderr, "llmload report: %v\n", err)
		return exitInvalid
	}
	if f != nil {
		if err := f.Close(); err != nil {
			fmt.Fprintf(e.stderr, "llmload report: %v\n", err)
			return exitInvalid
		}
	}
	return exitOK
}

// resultLabel names a result in legends: its file name without .json,
// or the scenario and run when file names repeat.
func resultLabel(path string, r *results.Result, all []string) string {
	base := strings.TrimSuffix(filepath.Base(path), ".json")
	n := 0
	for _, p := range all {
		if strings.TrimSuffix(filepath.Base(p), ".json") == base {
			n++
		}
	}
	if n > 1 {
		return fmt.Sprintf("%s (%s)", filepath.Base(filepath.Dir(path)), base)
	}
	return base
}

func writeTextReport(w io.Writer, format string, labelled []report.Labelled) error {
	switch format {
	case "markdown":
		return report.WriteMarkdownTables(w, labelled)
	case "csv":
		return report.WriteCSV(w, labelled)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if len(labelled) == 1 {
			return enc.Encode(labelled[0].Result)
		}
		var all []*results.Result
		for _, r := range labelled {
			all = append(all, r.Result)
		}
		return enc.Encode(all)
	}
	for i, r := range labelled {
		if len(labelled) > 1 {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "Result %s (scenario %q, run %s)\n", r.Label, r.Result.Scenario, r.Result.RunID)
		}
		if err := report.WriteConsole(w, r.Result); err != nil {
			return err
		}
	}
	return nil
}

// writeHTMLFile writes the HTML report atomically enough: to a temporary
// file beside path, renamed into place.
func writeHTMLFile(path string, labelled []report.Labelled) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	bw := bufio.NewWriter(tmp)
	if err := report.WriteHTML(bw, labelled); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
