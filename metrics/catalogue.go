package metrics

// The metric catalogue: the names checks may use. In HCL they read
// metrics.<latency>.<stat> (milliseconds) and metrics.<scalar>.

// LatencyMetrics are the latency metrics, each with every stat in LatencyStats.
var LatencyMetrics = []string{"ttft", "itl", "tpot", "e2el", "queue"}

// LatencyStats are the statistics of a latency metric.
var LatencyStats = []string{"mean", "p50", "p90", "p95", "p99", "p999", "max", "min", "stddev"}

// Scalars are the run-wide figures, with their units.
var Scalars = []string{
	"completed", "failed", "error_rate", "request_throughput", "output_throughput",
	"total_token_throughput", "request_goodput", "duration",
}

// ScalarUnit gives a scalar's unit for messages.
var ScalarUnit = map[string]string{
	"completed":              "requests",
	"failed":                 "requests",
	"error_rate":             "fraction",
	"request_throughput":     "req/s",
	"output_throughput":      "tok/s",
	"total_token_throughput": "tok/s",
	"request_goodput":        "req/s",
	"duration":               "s",
}

// LatencyOf returns the named latency metric, or nil when there is none.
func (s *Summary) LatencyOf(metric string) *Latency {
	switch metric {
	case "ttft":
		return &s.TTFT
	case "itl":
		return &s.ITL
	case "tpot":
		return &s.TPOT
	case "e2el":
		return &s.E2EL
	case "queue":
		return &s.Queue
	}
	return nil
}

// Stat returns one statistic of the latency in milliseconds.
func (l *Latency) Stat(stat string) (float64, bool) {
	switch stat {
	case "mean":
		return l.Mean, true
	case "p50":
		return l.P50, true
	case "p90":
		return l.P90, true
	case "p95":
		return l.P95, true
	case "p99":
		return l.P99, true
	case "p999":
		return l.P999, true
	case "max":
		return l.Max, true
	case "min":
		return l.Min, true
	case "stddev":
		return l.Stddev, true
	}
	return 0, false
}

// Scalar returns a run-wide figure by its catalogue name.
func (s *Summary) Scalar(name string) (float64, bool) {
	switch name {
	case "completed":
		return float64(s.Completed), true
	case "failed":
		return float64(s.Failed), true
	case "error_rate":
		return s.ErrorRate(), true
	case "request_throughput":
		return s.RequestThroughput, true
	case "output_throughput":
		return s.OutputThroughput, true
	case "total_token_throughput":
		return s.TotalTokenThroughput, true
	case "request_goodput":
		return s.RequestGoodput, true
	case "duration":
		return s.Duration, true
	}
	return 0, false
}
