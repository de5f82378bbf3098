package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/llmload/llmload/compare"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
)

// rowValue is one of a comparison row's figures (base, new, delta, delta
// %) and whether the row shows it: both runs have the figure and it is a
// number ("-" otherwise, null in the result file).
func rowValue(d compare.Delta, v float64) (float64, bool) {
	return v, !d.Missing && isNumber(v)
}

// rowBound is one end of a row's interval and whether the row has it.
func rowBound(d compare.Delta, v float64) (float64, bool) {
	return v, d.HasInterval && isNumber(v)
}

func isNumber(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// rowNum renders a value of the row's metric without its unit.
func rowNum(d compare.Delta, v float64) string {
	if d.Unit == "fraction" {
		return strconv.FormatFloat(100*v, 'f', 2, 64) + "%"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func rowSigned(d compare.Delta, v float64) string {
	s := rowNum(d, math.Abs(v))
	if v < 0 {
		return "-" + s
	}
	return "+" + s
}

// rowCells renders the row's columns: metric, base, new, delta, delta %,
// interval, verdict.
func rowCells(d compare.Delta) []string {
	title := metrics.Title(d.Metric, d.Stat)
	if d.Unit != "" && d.Unit != "fraction" {
		title += " (" + d.Unit + ")"
	}
	c := []string{title, "-", "-", "-", "-", "-", verdictCell(d)}
	base, hasBase := rowValue(d, d.Base)
	if hasBase {
		c[1] = rowNum(d, base)
	}
	if v, ok := rowValue(d, d.New); ok {
		c[2] = rowNum(d, v)
	}
	if v, ok := rowValue(d, d.Delta); ok {
		c[3] = rowSigned(d, v)
	}
	if v, ok := rowValue(d, d.Percent); ok && d.Unit != "fraction" {
		c[4] = fmt.Sprintf("%+.1f%%", v)
	}
	lo, hasLo := rowBound(d, d.Lower)
	hi, hasHi := rowBound(d, d.Upper)
	switch {
	case hasLo && hasHi && hasBase && base != 0 && d.Unit != "fraction":
		c[5] = fmt.Sprintf("[%+.1f%%, %+.1f%%]", 100*lo/math.Abs(base), 100*hi/math.Abs(base))
	case hasLo && hasHi:
		c[5] = fmt.Sprintf("[%s, %s]", rowSigned(d, lo), rowSigned(d, hi))
	}
	return c
}

// verdictCell: "FAIL (> +10%)", "pass (<= +5%)", "inconclusive", or the
// change for a row without a tolerance.
func verdictCell(d compare.Delta) string {
	if d.Verdict == "" {
		return d.Change
	}
	v := d.Verdict
	if v == results.Fail {
		v = "FAIL"
	}
	if t := d.Tolerance; t != nil && isNumber(t.Fraction) {
		tol := strconv.FormatFloat(t.Fraction*100, 'f', -1, 64) + "%"
		if t.Absolute() {
			tol += " pt"
		}
		v += " (tolerance " + tol + ")"
	}
	return v
}

// ComparisonHeader is the comparison table's header row.
var ComparisonHeader = []string{"metric", "base", "new", "delta", "delta %", "95% interval of delta", "verdict"}

// comparisonHeader is c's header row: its intervals' confidence, when a
// sequential gate set another than 95%.
func comparisonHeader(c *results.Comparison) []string {
	h := slices.Clone(ComparisonHeader)
	if c.Confidence > 0 && c.Confidence != 0.95 {
		h[5] = compare.FormatConfidence(c.Confidence) + " interval of delta"
	}
	return h
}

// WriteComparison writes a comparison as an aligned table, followed by the
// messages of the rows that did not pass, the verdict and the notes (an
// output figure that moved sharply).
func WriteComparison(w io.Writer, c *results.Comparison) error {
	p := &printer{w: w}
	p.printf("Baseline: %s (run %s)\n", c.Baseline, c.BaseRunID)
	if c.BaseServerVersion != "" || c.ServerVersion != "" {
		p.printf("Server version: %s -> %s\n", orNone(c.BaseServerVersion), orNone(c.ServerVersion))
	}
	for _, f := range c.Forced {
		p.printf("WARNING: -force: the workloads differ: %s\n", f)
	}
	writeConfigText(p, c)
	rows := [][]string{comparisonHeader(c)}
	for _, r := range c.Rows {
		rows = append(rows, rowCells(r))
	}
	widths := make([]int, len(ComparisonHeader))
	for _, r := range rows {
		for i, cell := range r {
			widths[i] = max(widths[i], len(cell))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		for i, cell := range r {
			switch {
			case i == 0 || i == len(r)-1:
				fmt.Fprintf(&b, "%-*s", widths[i], cell)
			default:
				fmt.Fprintf(&b, "%*s", widths[i], cell)
			}
			if i < len(r)-1 {
				b.WriteString("  ")
			}
		}
		p.printf("%s\n", strings.TrimRight(b.String(), " "))
	}
	for _, r := range c.Rows {
		if r.Verdict != "" && r.Verdict != results.Pass && r.Message != "" {
			p.printf("%s %s: %s\n", strings.ToUpper(r.Verdict[:1])+r.Verdict[1:], r.Key, r.Message)
		}
	}
	verdict := c.Verdict
	if verdict == "" {
		verdict = results.Pass
	}
	p.printf("Comparison: %s\n", verdict)
	for _, n := range c.Notes {
		p.printf("%s\n", n)
	}
	return p.err
}

func orNone(s string) string {
	if s == "" {
		return "(not reported)"
	}
	return s
}
