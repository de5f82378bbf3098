package runner

import (
	"math"
	"strings"

	"github.com/llmload/llmload/compare"
	"github.com/llmload/llmload/metrics"
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
	rows = append(rows, engineRows(base.Summary, cand.Summary)...)
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

// engineRows are the rows of the engine's own numbers that both sides
// have (an engine that reports them: docs/engines.md), so that a
// regression shows whether it was the engine's or the path to it.
func engineRows(base, cand *metrics.Summary) []compare.Row {
	var rows []compare.Row
	for _, r := range []compare.Row{{Metric: "engine_ttft", Stat: "p50"}, {Metric: "engine_prefill", Stat: "p50"}, {Metric: "engine_tpot", Stat: "p50"}, {Metric: "client_overhead", Stat: "p99"}} {
		if b, c := base.LatencyOf(r.Metric), cand.LatencyOf(r.Metric); b != nil && c != nil && b.Count > 0 && c.Count > 0 {
			rows = append(rows, r)
		}
	}
	if !math.IsNaN(base.PrefixReuse()) && !math.IsNaN(cand.PrefixReuse()) {
		rows = append(rows, compare.Row{Metric: "prefix_reuse"})
	}
	if !math.IsNaN(base.SpecAcceptance()) && !math.IsNaN(cand.SpecAcceptance()) {
		rows = append(rows, compare.Row{Metric: "spec_acceptance"})
	}
	return rows
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
