package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
)

// LoadUnit names the unit of a varied load: "users", "req/s",
// "concurrent".
func LoadUnit(vary string) string {
	switch vary {
	case results.VaryUsers:
		return "users"
	case results.VaryRate:
		return "req/s"
	case results.VaryMaxConcurrency:
		return "concurrent"
	}
	return vary
}

// LoadTitle names a varied load for a column or an axis.
func LoadTitle(vary string) string {
	switch vary {
	case results.VaryUsers:
		return "users"
	case results.VaryRate:
		return "rate (req/s)"
	case results.VaryMaxConcurrency:
		return "max concurrency"
	}
	return vary
}

// perUnitTitle names the per-unit throughput column.
func perUnitTitle(vary string) string {
	if vary == results.VaryUsers {
		return "tok/s/user"
	}
	return "tok/s/conc"
}

// formatLoad writes a load value without needless decimals.
func formatLoad(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// StepRow is one row of the steps table as numbers, shared by the console,
// Markdown and CSV renderings.
type StepRow struct {
	Step                             int
	Value, Duration                  float64
	ReqPerS, OutTokPerS, PerUnit     float64
	TTFTP50, TTFTP99, ITLP50, ITLP99 float64
	ErrorRate                        float64
	Ran                              bool
	Verdict                          string // "ok", "FAIL key, key" or "" when unchecked
}

// StepRows returns the rows of a sweep's table, in the order the steps
// ran.
func StepRows(sw *results.Sweep) []StepRow {
	var rows []StepRow
	for _, st := range sw.Steps {
		s := st.Summary
		if s == nil {
			s = &metrics.Summary{}
		}
		row := StepRow{Step: st.Step, Value: st.Value, Duration: st.Duration, Ran: s.Completed+s.Failed > 0,
			ReqPerS: s.RequestThroughput, OutTokPerS: s.OutputThroughput, PerUnit: st.PerUnit(sw.Vary),
			TTFTP50: s.TTFT.P50, TTFTP99: s.TTFT.P99, ITLP50: s.ITL.P50, ITLP99: s.ITL.P99, ErrorRate: s.ErrorRate()}
		row.Verdict = slaVerdict(st.SLAChecked, st.SLAFailed, st.SLAInconclusive)
		rows = append(rows, row)
	}
	return rows
}

func writeSweep(p *printer, sw *results.Sweep) {
	if sw == nil || len(sw.Steps) == 0 {
		return
	}
	if sw.Mode == results.ModeCapacity {
		p.printf("\nCapacity search over %s (probes in the order run, each judged by the sla checks on its own)\n", sw.Vary)
	} else {
		p.printf("\nSweep over %s (each step judged by the sla checks on its own)\n", sw.Vary)
	}
	p.printf("%5s %10s %9s %8s %10s %10s %10s %10s %9s %9s %7s  %s\n",
		"step", sw.Vary, "time (s)", "req/s", "out tok/s", perUnitTitle(sw.Vary), "TTFT p50", "TTFT p99", "ITL p50", "ITL p99", "err %", "sla")
	for _, r := range StepRows(sw) {
		if !r.Ran {
			p.printf("%5d %10s   not run\n", r.Step, formatLoad(r.Value))
			continue
		}
		p.printf("%5d %10s %9.1f %8.2f %10.2f %10.2f %10.2f %10.2f %9.2f %9.2f %7.2f  %s\n",
			r.Step, formatLoad(r.Value), r.Duration, r.ReqPerS, r.OutTokPerS, r.PerUnit,
			r.TTFTP50, r.TTFTP99, r.ITLP50, r.ITLP99, 100*r.ErrorRate, cmpOrStr(r.Verdict, "-"))
	}
	p.printf("(latencies in ms; %s: output tok/s per %s)\n", perUnitTitle(sw.Vary), map[bool]string{true: "user", false: "request in flight"}[sw.Vary == results.VaryUsers])
	for _, line := range SweepFindings(sw) {
		p.printf("%s\n", line)
	}
}

func cmpOrStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// SweepFindings are the sentences under a sweep's table: the knee, the
// capacity with its evidence, and for a search its bracket.
func SweepFindings(sw *results.Sweep) []string {
	unit := LoadUnit(sw.Vary)
	var out []string
	if k := sw.Knee; k != nil {
		out = append(out, fmt.Sprintf("Knee: %s %s (step %d): past it, output throughput rises %.2f tok/s per added unit of load, under %g%% of the initial %.2f.",
			formatLoad(k.Value), unit, k.Step, k.Slope, 100*k.Share, k.InitialSlope))
	} else if sw.Mode == results.ModeSweep {
		out = append(out, fmt.Sprintf("Knee: none: output throughput never rose by less than %g%% of its initial slope per added unit of load.", 100*sw.KneeShare))
	}
	step := func(n int) *results.Step {
		for i := range sw.Steps {
			if sw.Steps[i].Step == n {
				return &sw.Steps[i]
			}
		}
		return nil
	}
	evidence := func(st *results.Step) string {
		s := st.Summary
		line := fmt.Sprintf("step %d at %s %s: %.2f req/s, %.2f out tok/s", st.Step, formatLoad(st.Value), unit, s.RequestThroughput, s.OutputThroughput)
		for _, c := range st.Checks {
			line += fmt.Sprintf(", %s %s (bound %s)", c.Name, c.MeasuredText(), c.ThresholdText())
			if sp := st.SpreadOf(spreadKey(c.Metric, c.Stat)); sp != nil && sp.Min != nil && c.Metric != "" {
				line += fmt.Sprintf(" [runs %s to %s]", fmtNum(*sp.Min), fmtNum(*sp.Max))
			}
		}
		if len(st.Runs) > 0 {
			line += fmt.Sprintf("; pooled over %d runs, %d of which met every sla check alone", len(st.Runs), st.RunsPassed)
		}
		return line
	}
	checked := false
	for _, st := range sw.Steps {
		checked = checked || st.SLAChecked
	}
	switch c := sw.Capacity; {
	case !checked:
		out = append(out, "Capacity: not judged: the scenario has no sla check.")
	case c == nil:
		out = append(out, "Capacity: no load met every sla check.")
	default:
		line := fmt.Sprintf("Capacity: %s %s, the highest load meeting every sla check", formatLoad(c.Value), unit)
		if st := step(c.Step); st != nil {
			line += " (" + evidence(st) + ")"
		}
		if c.Runs > 0 {
			line += fmt.Sprintf("; the capacity held in %d of %d runs", c.RunsPassed, c.Runs)
		}
		out = append(out, line+".")
	}
	if sr := sw.Search; sr != nil {
		switch sr.Outcome {
		case results.SearchConverged:
			out = append(out, fmt.Sprintf("Search: converged after %d probes: the capacity lies in [%s, %s) %s, a bracket of %s (%.1f%%; precision asked %g%%).",
				len(sw.Steps), formatLoad(sr.Low), formatLoad(sr.High), unit, formatLoad(*sr.Width), 100**sr.RelWidth, 100*sr.Precision))
		case results.SearchMaxPassed:
			out = append(out, fmt.Sprintf("Search: every probe up to max (%s %s) passed: the capacity is at least that; raise max to find it.", formatLoad(sr.Max), unit))
		case results.SearchMinFailed:
			out = append(out, fmt.Sprintf("Search: the probe at min (%s %s) failed: the capacity is below it; lower min to find it.", formatLoad(sr.Min), unit))
		case results.SearchMaxProbes:
			line := fmt.Sprintf("Search: stopped at max_probes (%d) before reaching the precision", len(sw.Steps))
			if sr.Width != nil {
				line += fmt.Sprintf("; the capacity lies in [%s, %s) %s (%.1f%%)", formatLoad(sr.Low), formatLoad(sr.High), unit, 100**sr.RelWidth)
			}
			out = append(out, line+".")
		case results.SearchInterrupted:
			out = append(out, "Search: interrupted; the bracket above is partial.")
		}
		if st := step(sr.LastPass); st != nil {
			out = append(out, "  last passing probe: "+evidence(st))
		}
		if st := step(sr.FirstFail); st != nil {
			out = append(out, "  first failing probe: "+evidence(st)+"; failed "+strings.Join(st.SLAFailed, ", "))
		}
	}
	return out
}

// spreadKey is a figure's key in a Spread: "ttft_p99", "error_rate".
func spreadKey(metric, stat string) string {
	if stat == "" {
		return metric
	}
	return metric + "_" + stat
}

func cmpOr(a, b float64) float64 {
	if a > 0 {
		return a
	}
	return b
}

func perUnit(v, n float64) float64 {
	if n <= 0 {
		return 0
	}
	return v / n
}
