package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/llmload/llmload/report"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/runner"
)

// cmdCompare compares a candidate result with a baseline result and exits
// by the tolerances: 1 when one is crossed beyond noise, 3 when the
// evidence is insufficient, 0 otherwise.
func cmdCompare(_ context.Context, e env, args []string) int {
	fs := newFlags(e, "compare", "BASE.json NEW.json")
	spec := fs.String("max-regression", "", "tolerances, `key=pct,...` such as ttft_p99=10%,itl_p99=10%,output_throughput=5% (default: the baseline scenario's regression block, else "+runner.DefaultTolerances()+")")
	force := fs.Bool("force", false, "compare results whose workloads or required server settings differ, or a run that was interrupted (printed loudly)")
	same := fs.String("require-same-server-config", "", "refuse (exit 2) unless both servers exposed these settings with equal values, `key,...` such as max_num_seqs,model (and the baseline scenario's require_same_server_config)")
	format := fs.String("format", "text", "output `format`: text (the table) or json (the comparison as data)")
	markdown := fs.String("markdown", "", "also write the comparison as GitHub-flavoured Markdown to `file` (and append it to $GITHUB_STEP_SUMMARY when set)")
	paths, code, ok := parseInterspersed(fs, args)
	if !ok {
		return code
	}
	if len(paths) != 2 {
		return fs.usageError(fmt.Sprintf("want two result files, the baseline and the candidate; got %d", len(paths)))
	}
	if *format != "text" && *format != "json" {
		return fs.usageError(fmt.Sprintf("-format %q: want text or json", *format))
	}
	var res [2]*results.Result
	for i, p := range paths {
		r, err := results.ReadResult(p)
		if err != nil {
			fmt.Fprintf(e.stderr, "llmload compare: %v\n", err)
			return exitInvalid
		}
		res[i] = r
	}
	base, cand := res[0], res[1]
	tols, err := runner.TolerancesFor(*spec, paths[0], base)
	if err != nil {
		fmt.Fprintf(e.stderr, "llmload compare: %v\n", err)
		return exitInvalid
	}
	if !runner.CheckFormats(e.stderr, "compare", base.Format(), cand.Format()) {
		return exitInvalid
	}
	forced, ok := runner.CheckWorkloads(e.stderr, "compare", base.Workload, cand.Workload, *force)
	if !ok {
		return exitInvalid
	}
	forcedCfg, ok := runner.CheckServerConfigs(e.stderr, "compare", base.ServerConfig, cand.ServerConfig, runner.RequiredServerConfig(*same, paths[0], base), *force)
	if !ok {
		return exitInvalid
	}
	c, err := runner.CompareFiles(paths[0], paths[1], base, cand, tols)
	if err != nil {
		fmt.Fprintf(e.stderr, "llmload compare: %v\n", err)
		return exitInvalid
	}
	c.Forced, c.ForcedServerConfig, c.Notes = forced, forcedCfg, runner.OutputNotes(base.Summary, cand.Summary)
	if *format == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(c); err != nil {
			fmt.Fprintf(e.stderr, "llmload compare: %v\n", err)
		}
	} else if err := report.WriteComparison(e.stdout, c); err != nil {
		fmt.Fprintf(e.stderr, "llmload compare: %v\n", err)
	}
	if code := writeMarkdown(e, *markdown, func(w *strings.Builder) { report.WriteComparisonMarkdown(w, c) }); code != exitOK {
		return code
	}
	return exitCode(runner.CompareStatus(e.stderr, c, base, cand, *force))
}
