package opstest

import (
	"time"

	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
)

var t0 = time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)

func ptr(v float64) *float64 { return &v }

// Sweep is a users sweep of one vLLM replica, 20 s a step: the batch
// holds about 0.9 requests per user, nothing waits until 40 users, where
// P99 TTFT breaks its 500 ms bound; throughput 1 req/s per 10 users at a
// mean E2E latency of 5 s. runs, when set, repeats each step that many
// times, with the 30-user step passing in only runs-1 of them.
func Sweep(vary string, runs int) *results.Result {
	r := &results.Result{}
	r.Scenario, r.RunID, r.ModelID = "sweep", "run1", "llama"
	sw := &results.Sweep{Mode: results.ModeSweep, Vary: vary}
	srv := &metrics.ServerSeries{Interval: 1}
	for i, load := range []float64{10, 20, 30, 40} {
		from := t0.Add(time.Duration(i*25) * time.Second)
		s := &metrics.Summary{Completed: 100, SpanStart: from, SpanEnd: from.Add(20 * time.Second), RequestThroughput: load / 10,
			PeakConcurrency: int(load)}
		s.E2EL.Mean = 5000
		ttft := 100 + 10*load
		if load == 40 {
			ttft = 900
		}
		st := results.Step{Step: i + 1, Value: load, Summary: s, SLAChecked: true,
			Checks: []results.Check{{Name: "ttft_p99", Kind: "sla", Description: "P99 TTFT <= 500 ms", Metric: "ttft", Stat: "p99", Op: "<=", Threshold: ptr(500), Unit: "ms", Value: ptr(ttft)}}}
		if ttft > 500 {
			st.SLAFailed = []string{"ttft_p99"}
		}
		if runs > 0 {
			for k := range runs {
				// Each run dispatches in its share of the step's 20 s.
				part := 20 * time.Second / time.Duration(runs)
				rs := &metrics.Summary{Completed: 100 / runs, FirstDispatch: from.Add(time.Duration(k) * part), LastDispatch: from.Add(time.Duration(k+1)*part - time.Second)}
				st.Runs = append(st.Runs, results.StepRun{Run: k + 1, Passed: ttft <= 500 && !(load == 30 && k == 0), Summary: rs})
				if st.Runs[k].Passed {
					st.RunsPassed++
				}
			}
		}
		sw.Steps = append(sw.Steps, st)
		for k := range 20 {
			waiting := 0.0
			if load == 40 {
				waiting = 5
			}
			srv.Windows = append(srv.Windows, metrics.ServerWindow{Start: from.Add(time.Duration(k) * time.Second), Points: map[string]metrics.ServerPoint{
				"requests_running": {Value: 0.9 * load}, "queue": {Value: waiting}, "kv_cache_usage": {Value: load / 100},
			}})
		}
	}
	sw.Capacity = &results.LoadCapacity{Value: 30, Step: 3}
	if runs > 0 {
		sw.Capacity.Runs, sw.Capacity.RunsPassed = runs, runs-1
	}
	r.Sweep = sw
	r.Summary = &metrics.Summary{Server: &metrics.ServerMetrics{Series: srv, Figures: map[string]metrics.ServerFigure{
		"requests_running": {Source: "vllm:num_requests_running", Type: metrics.SeriesGauge},
		"queue":            {Source: "vllm:num_requests_waiting", Type: metrics.SeriesGauge},
		"kv_cache_usage":   {Source: "vllm:kv_cache_usage_perc", Type: metrics.SeriesGauge},
		"ttft":             {Source: "vllm:time_to_first_token_seconds", Type: metrics.SeriesHistogram},
	}}}
	return r
}
