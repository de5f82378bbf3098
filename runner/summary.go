package runner

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/scenario"
)

// A run of several scenarios labels each one's block and ends with one
// table of them all, so that its output can be told apart and read at a
// glance (llmload run examples/reference.hcl).

// ScenarioRow is one scenario of a run of several: its name, verdict, exit
// code and why, and its result (nil when it produced none).
type ScenarioRow struct {
	Name    string
	Verdict string // the result's verdict; "no result" or "not run" without one
	Exit    int    // the scenario's exit code; -1 when it did not run
	Reason  string
	Result  *results.Result
}

// NotRun is the exit code of a scenario the run never reached.
const NotRun = -1

// SummaryRow is the row of a scenario that exited with code exit (one of
// llmload's documented exit codes, docs/scenarios.md), with its result or
// nil.
func SummaryRow(name string, res *results.Result, exit int) ScenarioRow {
	row := ScenarioRow{Name: name, Exit: exit, Result: res}
	if res == nil {
		row.Verdict, row.Reason = results.VerdictNoResult, "no result (see the messages above)"
		switch exit {
		case NotRun:
			row.Verdict, row.Reason = "not run", "the run was interrupted before it"
		case 2: // invalid configuration, input or usage
			row.Verdict, row.Reason = "not run", "invalid input (see the messages above)"
		case 130: // interrupted
			row.Verdict, row.Reason = results.VerdictInterrupted, "interrupted before any result"
		}
		return row
	}
	row.Verdict = res.Verdict()
	var failed, inconclusive []string
	for _, c := range res.Checks {
		switch c.Verdict {
		case results.Fail:
			failed = append(failed, c.Name)
		case results.Inconclusive:
			inconclusive = append(inconclusive, c.Name)
		}
	}
	switch row.Verdict {
	case results.VerdictInterrupted:
		row.Reason = "interrupted: partial results"
	case results.VerdictNoResult:
		row.Reason = "no request completed"
	case results.VerdictInvalid:
		var broken []string
		if res.Validity != nil {
			for _, b := range res.Validity.Broken() {
				broken = append(broken, b.Name)
			}
		}
		row.Reason = "invalid run: " + names(broken)
	case results.Fail:
		row.Reason = "failed: " + names(failed)
		if res.Aborted != "" {
			row.Reason = "aborted: " + res.Aborted
		}
	case results.Inconclusive:
		row.Reason = "inconclusive: " + names(inconclusive)
	case results.Skipped:
		row.Reason = "every check skipped"
	default:
		row.Reason = count(len(res.Checks), "check", "checks") + " passed"
		if len(inconclusive) > 0 {
			row.Reason += ", inconclusive allowed: " + names(inconclusive)
		}
	}
	return row
}

// names lists up to three names, and how many more.
func names(ns []string) string {
	if len(ns) == 0 {
		return "-"
	}
	if len(ns) > 3 {
		return strings.Join(ns[:3], ", ") + fmt.Sprintf(" and %d more", len(ns)-3)
	}
	return strings.Join(ns, ", ")
}

// WriteBanner writes the line that opens scenario i (from 1) of n: after
// the first, a blank line sets it off from the block before.
func WriteBanner(w io.Writer, name string, i, n int) {
	if i > 1 {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "== scenario %q (%d of %d) ==\n", name, i, n)
}

// summaryFigures are the figures of the closing table, titled and read by
// the metric catalogue: the load each scenario carried and its latency.
var summaryFigures = [][2]string{
	{"completed", ""}, {"failed", ""}, {"request_throughput", ""}, {"output_throughput", ""}, {"ttft", "p99"}, {"itl", "p99"},
}

// WriteSummary writes the table that closes a run of several scenarios:
// one line each, in the order of the file, those never reached (after an
// interruption) as "not run".
func WriteSummary(w io.Writer, scenarios []*scenario.Scenario, rows []ScenarioRow) error {
	for _, s := range scenarios[len(rows):] {
		rows = append(rows, SummaryRow(s.Name, nil, NotRun))
	}
	head := []string{"scenario", "verdict", "exit"}
	for _, f := range summaryFigures {
		m, _ := metrics.Lookup(f[0])
		h := metrics.Title(f[0], f[1])
		if m.Unit != "requests" {
			h += " (" + m.Unit + ")"
		}
		head = append(head, h)
	}
	table := [][]string{append(head, "why")}
	for _, r := range rows {
		line := []string{r.Name, r.Verdict, strconv.Itoa(r.Exit)}
		if r.Exit == NotRun {
			line[2] = "-"
		}
		for _, f := range summaryFigures {
			cell := "-"
			if r.Result != nil && r.Result.Summary != nil {
				if v, ok := r.Result.Summary.Value(f[0], f[1]); ok {
					m, _ := metrics.Lookup(f[0])
					cell = strings.TrimSuffix(metrics.Format(f[0], f[1], v), " "+m.Unit)
				}
			}
			line = append(line, cell)
		}
		table = append(table, append(line, r.Reason))
	}
	widths := make([]int, len(head)+1)
	for _, line := range table {
		for i, c := range line {
			widths[i] = max(widths[i], len(c))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n== summary of %d scenarios ==\n", len(rows))
	for _, line := range table {
		for i, c := range line {
			switch {
			case i == len(line)-1:
				b.WriteString(c)
			case i >= 2:
				fmt.Fprintf(&b, "%*s  ", widths[i], c) // figures right-aligned
			default:
				fmt.Fprintf(&b, "%-*s  ", widths[i], c)
			}
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
