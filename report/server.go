package report

import (
	"slices"
	"strconv"
	"strings"

	"github.com/llmload/llmload/metrics"
)

// writeServer prints what was scraped from the server: a line per figure
// it exported, and its own TTFT next to the client's.
func writeServer(p *printer, s *metrics.Summary) {
	sv := s.Server
	if sv == nil {
		return
	}
	p.printf("\nServer metrics: %s, %d scrapes every %gs", sv.URL, sv.Scrapes, float64(sv.Interval))
	if sv.Failures > 0 {
		p.printf(", %d failed (last: %s)", sv.Failures, sv.LastError)
	}
	p.printf("\n")
	if len(sv.Figures) == 0 {
		p.printf("  no known engine metric was found (docs/metrics.md lists those read)\n")
		return
	}
	p.printf("  %-22s %10s %10s %10s %10s %10s  %s\n", "figure", "min", "mean", "max", "last", "delta", "unit")
	var names []string
	for _, m := range metrics.ServerFigures() {
		names = append(names, strings.TrimPrefix(m.Name, metrics.ServerPrefix))
	}
	var extras []string
	for name := range sv.Figures {
		if !slices.Contains(names, name) {
			extras = append(extras, name)
		}
	}
	slices.Sort(extras)
	for _, name := range append(names, extras...) {
		f, ok := sv.Figures[name]
		if !ok {
			continue
		}
		unit := ""
		if m, known := metrics.Lookup(metrics.ServerPrefix + name); known {
			unit = metrics.ServerUnit(m.Series, m.Unit, "mean")
			if m.Unit == "fraction" {
				unit = "fraction (1 = 100%)"
			}
			if m.Series == metrics.SeriesHistogram {
				unit += ", delta: observations"
			}
			if m.Series == metrics.SeriesCounter {
				unit += ", delta: " + m.Unit
			}
		}
		col := func(stat string) string {
			v, ok := f.Stat(stat)
			if !ok {
				return "-"
			}
			return strconv.FormatFloat(v, 'g', 5, 64)
		}
		p.printf("  %-22s %10s %10s %10s %10s %10s  %s\n", name, col("min"), col("mean"), col("max"), col("last"), col("delta"), unit)
	}
	if v, ok := sv.Figures["ttft"].Stat("mean"); ok && s.TTFT.Count > 0 {
		p.printf("  TTFT mean: client %.2f ms, server %.2f ms; %.2f ms in the network and the client\n", s.TTFT.Mean, v, s.TTFT.Mean-v)
	}
}
