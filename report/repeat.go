package report

import (
	"math"
	"strconv"

	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
)

// writeRepeats prints the spread of a repeated run's figures.
func writeRepeats(p *printer, r *results.Repeats) {
	if r == nil || len(r.Runs) == 0 {
		return
	}
	p.center(" Repeats ", "=")
	p.printf("%d of %d runs, pooled above (cooldown %gs); per-run spread:\n", len(r.Runs), r.Count, r.Cooldown)
	defer writeStopping(p, r.Stopping)
	p.printf("%-32s %10s %10s %10s %7s\n", "figure", "median", "min", "max", "CV")
	for _, s := range r.Spread {
		if s.Median == nil {
			continue
		}
		cv := "-"
		if s.CV != nil {
			cv = fmtPct(*s.CV)
		}
		p.printf("%-32s %10s %10s %10s %7s\n", metrics.Title(s.Metric, s.Stat)+unitSuffix(s.Unit), fmtNum(*s.Median), fmtNum(*s.Min), fmtNum(*s.Max), cv)
	}
	for _, run := range r.Runs {
		if !run.Valid {
			p.printf("Run %d was invalid on its own (see its summary in the result file).\n", run.Run)
		}
	}
}

// writeAB prints an A/B run's arms.
func writeAB(p *printer, ab *results.AB, cand *metrics.Summary) {
	if ab == nil {
		return
	}
	p.center(" A/B ", "=")
	p.printf("Interleaved in %d blocks of %s per arm, alternating which arm goes first.\n", ab.Blocks, ab.Interleave)
	p.printf("The figures above are the candidate arm's; the comparison below is candidate minus baseline.\n")
	writeStopping(p, ab.Stopping)
	b := ab.Baseline.Summary
	if b == nil {
		b = &metrics.Summary{}
	}
	p.printf("%-32s %14s %14s\n", "", "baseline", "candidate")
	p.printf("%-32s %14s %14s\n", "target", ab.Baseline.Target, ab.Candidate.Target)
	p.printf("%-32s %14d %14d\n", "completed", b.Completed, cand.Completed)
	p.printf("%-32s %14d %14d\n", "failed", b.Failed, cand.Failed)
	for _, m := range []struct{ metric, stat string }{{"ttft", "p50"}, {"ttft", "p99"}, {"itl", "p50"}, {"e2el", "p50"}, {"output_throughput", ""}} {
		bv, ok1 := b.Value(m.metric, m.stat)
		cv, ok2 := cand.Value(m.metric, m.stat)
		if !ok1 || !ok2 {
			continue
		}
		unit := ""
		if mm, ok := metrics.Lookup(m.metric); ok {
			unit = unitSuffix(mm.Unit)
		}
		p.printf("%-32s %14s %14s\n", metrics.Title(m.metric, m.stat)+unit, fmtNum(bv), fmtNum(cv))
	}
}

func unitSuffix(u string) string {
	switch u {
	case "", "fraction", "count":
		return ""
	}
	return " (" + u + ")"
}

func fmtNum(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1000:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

func fmtPct(f float64) string { return strconv.FormatFloat(100*f, 'f', 1, 64) + "%" }
