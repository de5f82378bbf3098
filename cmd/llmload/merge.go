package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/llmload/llmload/report"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/runner"
)

// cmdMerge combines result files of one scenario into one result and
// judges it by the scenario's checks, as a run would.
func cmdMerge(_ context.Context, e env, args []string) int {
	fs := newFlags(e, "merge", "RESULT.json...")
	outp := outFlag(fs, "", "write the merged result to this `file` (default: print only)")
	quiet := fs.Bool("quiet", false, "print no report, only errors")
	partial := fs.Bool("allow-partial", false, "judge a merge of shards that lacks some (default: a missing shard means no valid result, exit 3)")
	paths, code, ok := parseInterspersed(fs, args)
	if !ok {
		return code
	}
	if len(paths) == 0 {
		fmt.Fprintln(e.stderr, "llmload merge: no result file given")
		return exitInvalid
	}
	var parts []*results.Result
	for _, p := range paths {
		r, err := results.ReadResult(p)
		if err != nil {
			fmt.Fprintf(e.stderr, "llmload merge: %v\n", err)
			return exitInvalid
		}
		parts = append(parts, r)
	}
	res, err := results.MergeResults(parts)
	if err != nil {
		fmt.Fprintf(e.stderr, "llmload merge: %v\n", err)
		return exitInvalid
	}
	// The checks are the scenario's own, as the result files recorded them,
	// evaluated once on the merged figures.
	sc, outs, st, diags := runner.JudgeMerged(res, paths[0], runner.Options{Log: e.stderr, ValidityBounds: validityBounds})
	if diags.HasErrors() {
		writeDiags(e, nil, diags)
	}
	if st != runner.StatusOK || diags.HasErrors() {
		return exitCode(st)
	}
	if !*quiet {
		fmt.Fprintf(e.stdout, "Merged %s of scenario %q\n", plural(len(paths), "result", "results"), res.Scenario)
		if err := report.WriteConsole(e.stdout, res); err != nil {
			fmt.Fprintf(e.stderr, "llmload merge: writing the report: %v\n", err)
		}
	}
	code = exitCode(runner.Judge(e.stderr, res.Interrupted, res.Summary, outs, res.Validity, sc.AllowInconclusive))
	if n := len(res.MissingShards); n > 0 {
		fmt.Fprintf(e.stderr, "llmload merge: %d of %d shards of run %s missing (%s)", n, res.ShardCount, res.RunID, joinInts(res.MissingShards))
		if *partial {
			fmt.Fprintln(e.stderr, "; -allow-partial: judged on the shards present")
		} else {
			fmt.Fprintln(e.stderr, ": no valid result (-allow-partial judges the shards present)")
			code = worse(code, exitNoResult)
		}
	}
	if out := *outp; out != "" {
		if err := results.WriteResultFile(out, res); err != nil {
			fmt.Fprintf(e.stderr, "llmload merge: %v\n", err)
			return worse(code, exitNoResult)
		}
		fmt.Fprintf(e.stderr, "llmload: wrote %s\n", out)
	}
	return code
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

// plural writes n with the singular or plural noun: "1 result", "2 results".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
