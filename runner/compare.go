package runner

import (
	"strings"

	"github.com/llmload/llmload/compare"
	"github.com/llmload/llmload/results"
)

// CompareResults compares two results' summaries; with repeats on both
// sides, the run-to-run spread makes the intervals (compare.MethodRuns).
func CompareResults(basePath string, base, cand *results.Result, tols []compare.Tolerance) *results.Comparison {
	opts := compare.Options{BaseRuns: base.Repeat.Summaries(), NewRuns: cand.Repeat.Summaries()}
	return compareWith(basePath, base, cand, tols, opts)
}

// compareWith compares two results' summaries with the given options.
func compareWith(basePath string, base, cand *results.Result, tols []compare.Tolerance, opts compare.Options) *results.Comparison {
	rows := compareRows(base.Goodput != nil || cand.Goodput != nil)
	ds := compare.Compare(base.Summary, cand.Summary, rows, tols, opts)
	return &results.Comparison{
		Baseline:          basePath,
		BaseRunID:         base.RunID,
		BaseServerVersion: base.ServerVersion,
		ServerVersion:     cand.ServerVersion,
		Verdict:           compare.Verdict(ds),
		Rows:              ds,
	}
}

// compareRows are the table's figures; goodput only when a run measured it.
func compareRows(goodput bool) []compare.Row {
	var rows []compare.Row
	for _, r := range compare.DefaultRows {
		if !goodput && strings.HasSuffix(r.Metric, "goodput") {
			continue
		}
		rows = append(rows, r)
	}
	return rows
}
