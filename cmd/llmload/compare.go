package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/llmload/llmload/compare"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/report"
	"github.com/llmload/llmload/runner"
	"github.com/llmload/llmload/scenario"
)

// cmdCompare compares a candidate result with a baseline result and exits
// by the tolerances: 1 when one is crossed beyond noise, 3 when the
// evidence is insufficient, 0 otherwise.
func cmdCompare(_ context.Context, e env, args []string) int {
	fs := newFlags(e, "compare", "BASE.json NEW.json")
	spec := fs.String("max-regression", "", "tolerances, `key=pct,...` such as ttft_p99=10%,itl_p99=10%,output_throughput=5% (default: the baseline scenario's regression block, else "+tolerancesString(compare.DefaultTolerances)+")")
	force := fs.Bool("force", false, "compare results whose workloads differ (printed loudly)")
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
	var res [2]*report.Result
	for i, p := range paths {
		r, err := report.ReadResult(p)
		if err != nil {
			fmt.Fprintf(e.stderr, "llmload compare: %v\n", err)
			return exitInvalid
		}
		res[i] = r
	}
	base, cand := res[0], res[1]
	tols, code := tolerancesFor(e, *spec, paths[0], base)
	if tols == nil {
		return code
	}
	forced, ok := runner.CheckWorkloads(e.stderr, "compare", base.Workload, cand.Workload, *force)
	if !ok {
		return exitInvalid
	}
	c := runner.CompareResults(paths[0], base, cand, tols)
	c.Forced = forced
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
	for i, r := range res {
		if r.Validity != nil && !r.Validity.Valid {
			fmt.Fprintf(e.stderr, "llmload compare: the %s run is invalid (the load generator did not do what its scenario said): no verdict\n", []string{"baseline", "candidate"}[i])
			return exitNoResult
		}
	}
	if c.Verdict == compare.Inconclusive {
		fmt.Fprintln(e.stderr, "llmload compare: inconclusive: the evidence cannot tell whether a tolerance is crossed (longer runs, or repeats, would)")
	}
	return exitCode(runner.StatusOf(c.Verdict))
}

func tolerancesString(ts []compare.Tolerance) string {
	var s []string
	for _, t := range ts {
		s = append(s, t.String())
	}
	return strings.Join(s, ",")
}

// tolerancesFor chooses the tolerances: the flag's, else the baseline
// scenario's regression block, else the defaults.
func tolerancesFor(e env, spec, basePath string, base *report.Result) ([]compare.Tolerance, int) {
	if spec != "" {
		t, err := compare.ParseTolerances(spec)
		if err != nil {
			fmt.Fprintf(e.stderr, "llmload compare: -max-regression: %v\n", err)
			return nil, exitInvalid
		}
		if len(t) == 0 {
			fmt.Fprintln(e.stderr, "llmload compare: -max-regression names no tolerance")
			return nil, exitInvalid
		}
		return t, exitOK
	}
	if len(base.Config) > 0 {
		if sc, diags := scenario.ChecksFromResolved(basePath, base.Config); !diags.HasErrors() && len(sc.Regression) > 0 {
			return sc.Tolerances(), exitOK
		}
	}
	return compare.DefaultTolerances, exitOK
}

// summaryOf is a result's summary (never nil).
func summaryOf(r *report.Result) *metrics.Summary {
	if r == nil || r.Summary == nil {
		return &metrics.Summary{}
	}
	return r.Summary
}
