package sim

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// promMetrics are the vLLM (V1 engine) metrics the simulator exposes, with
// vLLM's names, labels (model_name, engine) and buckets, on a registry of its own.
type promMetrics struct {
	reg        *prometheus.Registry
	running    prometheus.Gauge
	waiting    prometheus.Gauge
	kvUsage    prometheus.Gauge
	preempted  prometheus.Counter
	lastPre    int64
	prefixQ    prometheus.Counter
	prefixHits prometheus.Counter
	lastQ      int64
	lastHits   int64
	prompt     prometheus.Counter
	generation prometheus.Counter
	success    *prometheus.CounterVec
	ttft       prometheus.Observer
	itl        prometheus.Observer
	tpot       prometheus.Observer
	e2e        prometheus.Observer
}

func newPromMetrics(p Profile) *promMetrics {
	labels := prometheus.Labels{"model_name": p.Model, "engine": "0"}
	reg := prometheus.NewRegistry()
	m := &promMetrics{reg: reg}
	gauge := func(name, help string) prometheus.Gauge {
		g := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: labels})
		reg.MustRegister(g)
		return g
	}
	counter := func(name, help string) prometheus.Counter {
		c := prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: labels})
		reg.MustRegister(c)
		return c
	}
	histogram := func(name, help string, buckets []float64) prometheus.Observer {
		h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, ConstLabels: labels, Buckets: buckets})
		reg.MustRegister(h)
		return h
	}
	m.running = gauge("vllm:num_requests_running", "Number of requests in model execution batches.")
	m.waiting = gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.")
	m.kvUsage = gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.")
	m.preempted = counter("vllm:num_preemptions_total", "Cumulative number of preemption from the engine.")
	m.prefixQ = counter("vllm:prefix_cache_queries_total", "Prefix cache queries, in terms of number of queried tokens.")
	// Without prefix_caching every query misses, and the hit counter
	// stays at 0 (vLLM exports it all the same).
	m.prefixHits = counter("vllm:prefix_cache_hits_total", "Prefix cache hits, in terms of number of cached tokens.")
	m.prompt = counter("vllm:prompt_tokens_total", "Number of prefill tokens processed.")
	m.generation = counter("vllm:generation_tokens_total", "Number of generation tokens processed.")
	m.success = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "vllm:request_success_total", Help: "Count of successfully processed requests.", ConstLabels: labels,
	}, []string{"finished_reason"})
	reg.MustRegister(m.success)
	m.ttft = histogram("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
		[]float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0})
	itlBuckets := []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0}
	m.itl = histogram("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", itlBuckets)
	m.tpot = histogram("vllm:request_time_per_output_token_seconds", "Histogram of time_per_output_token_seconds per request.", itlBuckets)
	m.e2e = histogram("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.",
		[]float64{0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0})
	return m
}

// state sets the scheduler gauges after a step.
func (m *promMetrics) state(running, waiting int, kv float64, preemptions, prefixQueries, prefixHits int64) {
	m.running.Set(float64(running))
	m.waiting.Set(float64(waiting))
	m.kvUsage.Set(kv)
	if d := preemptions - m.lastPre; d > 0 {
		m.preempted.Add(float64(d))
		m.lastPre = preemptions
	}
	if d := prefixQueries - m.lastQ; d > 0 {
		m.prefixQ.Add(float64(d))
		m.lastQ = prefixQueries
	}
	if d := prefixHits - m.lastHits; d > 0 {
		m.prefixHits.Add(float64(d))
		m.lastHits = prefixHits
	}
}

// finished records a request's end-to-end figures when its last token is out.
func (m *promMetrics) finished(q *seq, now time.Duration) {
	m.e2e.Observe((now - q.arrival).Seconds())
	if q.target > 1 {
		m.tpot.Observe((now - q.firstAt).Seconds() / float64(q.target-1))
	}
	m.success.WithLabelValues(q.reason).Inc()
}

func (m *promMetrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}
