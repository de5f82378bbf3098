package runner

import (
	"math"
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
		Rows:              deltaRows(ds),
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

// deltaRows turns the comparison's deltas into the result file's rows.
func deltaRows(ds []compare.Delta) []results.DeltaRow {
	ptr := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	out := make([]results.DeltaRow, 0, len(ds))
	for _, d := range ds {
		r := results.DeltaRow{
			Key: d.Key, Metric: d.Metric, Stat: d.Stat, Unit: d.Unit,
			Method: d.Method, BaseSamples: d.BaseSamples, NewSamples: d.NewSamples,
			Verdict: d.Verdict, Change: d.Change, Message: d.Message,
		}
		if !d.Missing {
			r.Base, r.New, r.Delta, r.Percent = ptr(d.Base), ptr(d.New), ptr(d.Delta), ptr(d.Percent)
		}
		if d.HasInterval {
			r.Lower, r.Upper = ptr(d.Lower), ptr(d.Upper)
		}
		if d.Tolerance != nil {
			r.Tolerance, r.Absolute = ptr(d.Tolerance.Fraction), d.Tolerance.Absolute()
		}
		out = append(out, r)
	}
	return out
}
