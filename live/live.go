package live

import (
	"context"
	"errors"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/llmload/llmload/metrics"
)

// Options label and describe the run.
type Options struct {
	Scenario string
	// Shard names this process's part of a sharded run ("" when the run is
	// not sharded); it is the shard label of every metric.
	Shard string
	// ConfiguredRate is the open loop's rate in req/s (0 for a closed loop;
	// +Inf is exported as 0, with nothing to compare against).
	ConfiguredRate float64
	// StageEnds are the closed-loop stages' end offsets from the run's time
	// zero, so that gauges carry the current stage (nil for an open loop;
	// a last stage without an end runs on).
	StageEnds []time.Duration
}

// Label names.
const (
	LabelScenario = "scenario"
	LabelStage    = "stage"
	LabelShard    = "shard"
)

// Buckets are the classic buckets of the latency histograms, in seconds,
// exported next to the native (sparse) ones for Prometheus servers that do
// not ingest native histograms.
// Fine from 1 to 50 ms, where ITL and TPOT live (a gap over ~50 ms is a
// stutter a reader sees), so that a P99 ITL read from them is not a guess
// between 10 and 25 ms.
var Buckets = []float64{0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.0125, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 0.75, 1, 2.5, 5, 10, 20, 40, 80, 160}

// Family is one metric the exporter serves, as docs/metrics.md lists it.
type Family struct {
	Name string
	Type string // "histogram", "counter" or "gauge"
	// Label is its label beside scenario, stage and shard ("" for none).
	Label string
	Help  string
	// metric is a histogram's distribution in the catalogue.
	metric metrics.Metric
}

// own are the exporter's figures beside the catalogue's distributions: the
// run's counts, and its load while it goes on.
var own = []Family{
	{Name: "llmload_requests_total", Type: "counter", Label: "outcome", Help: "Measured requests that ended, by outcome (completed, failed, canceled, abandoned)."},
	{Name: "llmload_request_errors_total", Type: "counter", Label: "kind", Help: "Failed requests by error kind."},
	{Name: "llmload_input_tokens_total", Type: "counter", Help: "Prompt tokens of completed requests (the server's usage count, else the dataset's)."},
	{Name: "llmload_output_tokens_total", Type: "counter", Help: description("total_output_tokens")},
	{Name: "llmload_requests_in_flight", Type: "gauge", Help: "Requests sent and not yet finished."},
	{Name: "llmload_active_users", Type: "gauge", Help: "Closed-loop users running."},
	{Name: "llmload_configured_rate", Type: "gauge", Help: "The open loop's configured request rate (req/s; 0 for a closed loop or an infinite rate)."},
	{Name: "llmload_achieved_rate", Type: "gauge", Help: "Requests dispatched per second over the last second or so."},
	{Name: "llmload_schedule_lag_seconds", Type: "gauge", Help: "The largest schedule lag (dispatch minus intended time) among requests finished since the last update."},
}

func description(name string) string {
	m, _ := metrics.Lookup(name)
	return m.Description
}

// Families are the metrics the exporter serves: a histogram of each
// distribution the catalogue exports live (metrics.Metric.Live, described
// as the catalogue describes it), then its own counters and gauges.
func Families() []Family {
	var out []Family
	for _, m := range metrics.Catalogue {
		if m.Live != "" {
			out = append(out, Family{Name: m.Live, Type: "histogram", Help: m.Description, metric: m})
		}
	}
	return append(out, own...)
}

// Exporter is the observer that keeps the metrics.
type Exporter struct {
	opts Options
	reg  *prometheus.Registry

	// hists are the catalogue's live distributions and their histograms.
	hists                     []liveHist
	requests                  *prometheus.CounterVec
	errors                    *prometheus.CounterVec
	inTokens, outTokens       *prometheus.CounterVec
	inFlight, users           *prometheus.GaugeVec
	configured, achieved, lag *prometheus.GaugeVec

	stage   string // the stage label gauges carry now
	maxLag  time.Duration
	prevAt  time.Duration
	prevN   int
	started bool
	// seen: the stages whose outcome and error series exist (initSeries).
	seen map[string]bool

	srv *http.Server
	ln  net.Listener
}

// liveHist is a distribution of the catalogue and its histogram.
type liveHist struct {
	m metrics.Metric
	h *prometheus.HistogramVec
}

// New returns an exporter with its metrics (Families) registered on a
// registry of its own (Registry).
func New(o Options) *Exporter {
	e := &Exporter{opts: o, reg: prometheus.NewRegistry(), stage: stageLabel(o, 0, 0)}
	labels := []string{LabelScenario, LabelStage, LabelShard}
	counters, gauges := map[string]*prometheus.CounterVec{}, map[string]*prometheus.GaugeVec{}
	for _, f := range Families() {
		var c prometheus.Collector
		switch f.Type {
		case "histogram":
			h := prometheus.NewHistogramVec(prometheus.HistogramOpts{
				Name: f.Name, Help: f.Help, Buckets: Buckets,
				NativeHistogramBucketFactor:     1.1,
				NativeHistogramMaxBucketNumber:  160,
				NativeHistogramMinResetDuration: time.Hour,
			}, labels)
			e.hists, c = append(e.hists, liveHist{f.metric, h}), h
		case "counter":
			l := labels
			if f.Label != "" {
				l = append(labels[:3:3], f.Label)
			}
			counters[f.Name] = prometheus.NewCounterVec(prometheus.CounterOpts{Name: f.Name, Help: f.Help}, l)
			c = counters[f.Name]
		case "gauge":
			gauges[f.Name] = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: f.Name, Help: f.Help}, labels)
			c = gauges[f.Name]
		}
		e.reg.MustRegister(c)
	}
	e.requests, e.errors = counters["llmload_requests_total"], counters["llmload_request_errors_total"]
	e.inTokens, e.outTokens = counters["llmload_input_tokens_total"], counters["llmload_output_tokens_total"]
	e.inFlight, e.users = gauges["llmload_requests_in_flight"], gauges["llmload_active_users"]
	e.configured, e.achieved, e.lag = gauges["llmload_configured_rate"], gauges["llmload_achieved_rate"], gauges["llmload_schedule_lag_seconds"]
	return e
}

// Registry is where the exporter's metrics are registered.
func (e *Exporter) Registry() *prometheus.Registry { return e.reg }

// Listen serves the metrics on addr at /metrics until Close.
func (e *Exporter) Listen(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{EnableOpenMetrics: true}))
	e.ln = ln
	e.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := e.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = err // the run goes on without its live metrics
		}
	}()
	return nil
}

// Addr is the address Listen bound ("" before).
func (e *Exporter) Addr() string {
	if e.ln == nil {
		return ""
	}
	return e.ln.Addr().String()
}

// Close stops serving.
func (e *Exporter) Close() error {
	if e.srv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return e.srv.Shutdown(ctx)
}

// stageLabel is the stage label of a request of stage index idx, or, for
// the gauges, of the stage running at offset at (idx < 0): "" in an open
// loop, the 1-based stage number in a closed one.
func stageLabel(o Options, idx int, at time.Duration) string {
	if len(o.StageEnds) == 0 {
		return ""
	}
	if idx < 0 {
		idx = len(o.StageEnds) - 1
		for i, end := range o.StageEnds {
			if at < end {
				idx = i
				break
			}
		}
	}
	return strconv.Itoa(idx + 1)
}

// initSeries sets every outcome and error kind of a label set to 0 the
// first time the set is seen, so that a healthy run's error panel shows
// zeros rather than no data, and a rate over the first failure counts it.
func (e *Exporter) initSeries(l prometheus.Labels) {
	key := l[LabelStage]
	if e.seen[key] {
		return
	}
	if e.seen == nil {
		e.seen = map[string]bool{}
	}
	e.seen[key] = true
	with := func(name, value string) prometheus.Labels {
		m := prometheus.Labels{name: value}
		for k, v := range l {
			m[k] = v
		}
		return m
	}
	for _, o := range []string{"completed", "failed", "canceled", "abandoned"} {
		e.requests.With(with("outcome", o))
	}
	for _, k := range metrics.ErrorKinds {
		if k != metrics.ErrCanceled && k != metrics.ErrAbandoned {
			e.errors.With(with("kind", string(k)))
		}
	}
}

// Result records one finished request (warmup requests are left out).
func (e *Exporter) Result(r *metrics.Request) {
	if r.Warmup {
		return
	}
	l := prometheus.Labels{LabelScenario: e.opts.Scenario, LabelStage: stageLabel(e.opts, r.Stage, 0), LabelShard: e.opts.Shard}
	e.maxLag = max(e.maxLag, r.Lag())
	e.initSeries(l)
	for _, h := range e.hists {
		for _, v := range h.m.Samples(r) {
			h.h.With(l).Observe(v.Seconds())
		}
	}
	outcome := func(o string) prometheus.Labels {
		m := prometheus.Labels{"outcome": o}
		for k, v := range l {
			m[k] = v
		}
		return m
	}
	switch {
	case r.Error == metrics.ErrCanceled:
		e.requests.With(outcome("canceled")).Inc()
		return
	case r.Error == metrics.ErrAbandoned:
		// Closed by the client on purpose: not a failure; its tokens so
		// far were served.
		e.requests.With(outcome("abandoned")).Inc()
		e.outTokens.With(l).Add(float64(r.OutputTokens))
		return
	case !r.OK():
		e.requests.With(outcome("failed")).Inc()
		k := prometheus.Labels{"kind": string(r.Error)}
		for n, v := range l {
			k[n] = v
		}
		e.errors.With(k).Inc()
		return
	}
	e.requests.With(outcome("completed")).Inc()
	e.inTokens.With(l).Add(float64(r.PromptTokens))
	e.outTokens.With(l).Add(float64(r.OutputTokens))
}

// Snapshot updates the gauges.
func (e *Exporter) Snapshot(s metrics.Snapshot) {
	stage := stageLabel(e.opts, -1, s.Elapsed)
	if stage != e.stage {
		// Only the running stage's gauges exist.
		for _, g := range []*prometheus.GaugeVec{e.inFlight, e.users, e.configured, e.achieved, e.lag} {
			g.DeleteLabelValues(e.opts.Scenario, e.stage, e.opts.Shard)
		}
		e.stage = stage
	}
	l := prometheus.Labels{LabelScenario: e.opts.Scenario, LabelStage: stage, LabelShard: e.opts.Shard}
	e.inFlight.With(l).Set(float64(s.InFlight))
	e.users.With(l).Set(float64(s.ActiveUsers))
	rate := e.opts.ConfiguredRate
	if rate > 1e300 {
		rate = 0
	}
	e.configured.With(l).Set(rate)
	if !e.started {
		e.prevAt, e.prevN, e.started = s.Elapsed, s.Sent, true
	} else if dt := s.Elapsed - e.prevAt; dt >= time.Second || s.Final {
		if dt > 0 {
			e.achieved.With(l).Set(float64(s.Sent-e.prevN) / dt.Seconds())
		}
		e.prevAt, e.prevN = s.Elapsed, s.Sent
	}
	e.lag.With(l).Set(e.maxLag.Seconds())
	e.maxLag = 0
}

// MetricNames lists the names of every metric the exporter serves, as
// Prometheus sees them (a histogram's _bucket, _sum and _count series and
// a counter's _total are under the names given here).
func MetricNames() []string {
	e := New(Options{})
	ch := make(chan *prometheus.Desc, 64)
	go func() { e.reg.Describe(ch); close(ch) }()
	var out []string
	for d := range ch {
		out = append(out, descName(d))
	}
	return out
}

var fqName = regexp.MustCompile(`fqName: ("(?:[^"\\]|\\.)*")`)

func descName(d *prometheus.Desc) string {
	m := fqName.FindStringSubmatch(d.String())
	if m == nil {
		return ""
	}
	s, _ := strconv.Unquote(m[1])
	return s
}
