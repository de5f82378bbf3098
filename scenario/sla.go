package scenario

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/llmload/llmload/metrics"
)

// SLA is one named bound from a scenario's sla block.
type SLA struct {
	// Key is the attribute as written: "ttft_p99", "error_rate",
	// "min_output_throughput".
	Key string `json:"key"`
	// Metric and Stat name the figure in the metric catalogue: "ttft" and
	// "p99" for latencies; for scalars Metric is the scalar's name
	// ("error_rate", "request_throughput", "output_throughput",
	// "request_goodput") and Stat is "".
	Metric string `json:"metric"`
	Stat   string `json:"stat,omitempty"`
	// Bound is in the metric's unit: milliseconds for latencies, a
	// fraction for error_rate, req/s or tok/s for throughputs.
	Bound float64 `json:"bound"`
	// Upper is true when the measured value must be <= Bound, false when it
	// must be >= Bound.
	Upper bool      `json:"upper"`
	Range hcl.Range `json:"-"`
}

// slaStats are the statistics an sla key may bound (min and stddev make
// poor service levels and are left to asserts).
var slaStats = []string{"mean", "p50", "p90", "p95", "p99", "p999", "max"}

type slaScalar struct {
	key, metric string
	upper       bool
}

// slaScalars maps the scalar sla keys to their catalogue metric and
// direction.
var slaScalars = []slaScalar{
	{"error_rate", "error_rate", true},
	{"min_request_throughput", "request_throughput", false},
	{"min_output_throughput", "output_throughput", false},
	{"min_goodput", "request_goodput", false},
}

// slaKeys lists every valid sla attribute name.
func slaKeys() []string {
	var keys []string
	for _, m := range metrics.LatencyMetrics {
		for _, s := range slaStats {
			keys = append(keys, m+"_"+s)
		}
	}
	for _, s := range slaScalars {
		keys = append(keys, s.key)
	}
	return keys
}

var latencyNames = map[string]string{
	"ttft": "TTFT", "itl": "ITL", "tpot": "TPOT", "e2el": "E2EL", "queue": "queue time",
}

// StatName renders a statistic for people: "P99", "P99.9", "mean".
func StatName(stat string) string {
	switch stat {
	case "p999":
		return "P99.9"
	case "mean", "max", "min", "stddev":
		return stat
	}
	return strings.ToUpper(stat)
}

// MetricName renders a catalogue metric for people: "TTFT", "error rate",
// "output throughput".
func MetricName(metric string) string {
	if n, ok := latencyNames[metric]; ok {
		return n
	}
	if metric == "request_goodput" {
		return "goodput"
	}
	return strings.ReplaceAll(metric, "_", " ")
}

// FormatValue renders a value of the given metric with its unit:
// "612.3 ms", "1.5%", "2500 tok/s".
func FormatValue(metric string, v float64) string {
	num := func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
	if _, ok := latencyNames[metric]; ok {
		return num(round(v, 3)) + " ms"
	}
	switch unit := metrics.ScalarUnit[metric]; unit {
	case "fraction":
		return num(round(v*100, 4)) + "%"
	case "":
		return num(round(v, 3))
	default:
		return num(round(v, 3)) + " " + unit
	}
}

func round(v float64, digits int) float64 {
	s := strconv.FormatFloat(v, 'f', digits, 64)
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// Describe renders the check in words: "P99 TTFT <= 500 ms",
// "error rate <= 1%", "output throughput >= 2500 tok/s".
func (s SLA) Describe() string {
	op := ">="
	if s.Upper {
		op = "<="
	}
	name := MetricName(s.Metric)
	if s.Stat != "" {
		name = StatName(s.Stat) + " " + name
	}
	return fmt.Sprintf("%s %s %s", name, op, FormatValue(s.Metric, s.Bound))
}
