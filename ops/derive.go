package ops

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	k8svalidation "k8s.io/apimachinery/pkg/util/validation"

	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
)

// Options are the operator's choices; zero values take the defaults.
type Options struct {
	// Headroom is the share of the capacity's lower bound the autoscaler
	// keeps each replica at (default 0.8): the room left for a burst while
	// a new replica starts.
	Headroom float64
	// WarnShare is the share of the capacity's lower bound at which the
	// warning fires (default 0.9).
	WarnShare float64
	// For is how long an alert's condition must hold before it fires
	// (default 5m); Window the range of rate() and avg_over_time()
	// (default 5m).
	For, Window string
	// Deployment, Namespace: the autoscaler's target (default
	// "llm-server" in "default").
	Deployment, Namespace string
	// MinReplicas and MaxReplicas bound the autoscaler (default 1 and 8).
	MinReplicas, MaxReplicas int
	// PrometheusURL is where KEDA queries Prometheus (default
	// http://prometheus.monitoring.svc:9090).
	PrometheusURL string
	// Source names the result file; Version is llmload's.
	Source, Version string
	// Force derives from an invalid run (the load generator did not do
	// what the scenario said) instead of refusing it.
	Force bool
}

func (o *Options) defaults() {
	if o.Headroom == 0 {
		o.Headroom = 0.8
	}
	if o.WarnShare == 0 {
		o.WarnShare = 0.9
	}
	if o.For == "" {
		o.For = "5m"
	}
	if o.Window == "" {
		o.Window = "5m"
	}
	if o.Deployment == "" {
		o.Deployment = "llm-server"
	}
	if o.Namespace == "" {
		o.Namespace = "default"
	}
	if o.MinReplicas == 0 {
		o.MinReplicas = 1
	}
	if o.MaxReplicas == 0 {
		o.MaxReplicas = 8
	}
	if o.PrometheusURL == "" {
		o.PrometheusURL = "http://prometheus.monitoring.svc:9090"
	}
}

func (o Options) check() error {
	switch {
	case !(o.Headroom > 0 && o.Headroom <= 1):
		return fmt.Errorf("headroom %g: want a share in (0, 1]", o.Headroom)
	case !(o.WarnShare > 0 && o.WarnShare <= 1):
		return fmt.Errorf("warning share %g: want a share in (0, 1]", o.WarnShare)
	case o.Headroom > o.WarnShare:
		return fmt.Errorf("headroom %g over the warning share %g: the autoscaler would keep every replica over the warning, which would fire in steady state", o.Headroom, o.WarnShare)
	case o.MinReplicas < 1 || o.MaxReplicas < o.MinReplicas:
		return fmt.Errorf("replicas %d to %d: want 1 <= min <= max (an HPA cannot scale to 0)", o.MinReplicas, o.MaxReplicas)
	}
	if errs := k8svalidation.IsDNS1123Label(o.Namespace); len(errs) > 0 {
		return fmt.Errorf("namespace %q: %s", o.Namespace, strings.Join(errs, "; "))
	}
	if errs := k8svalidation.IsDNS1123Subdomain(o.Deployment); len(errs) > 0 {
		return fmt.Errorf("deployment %q: %s", o.Deployment, strings.Join(errs, "; "))
	}
	if u, err := url.Parse(o.PrometheusURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("prometheus URL %q: want http(s)://host:port", o.PrometheusURL)
	}
	for name, v := range map[string]string{"for": o.For, "window": o.Window} {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second || d%time.Second != 0 {
			return fmt.Errorf("%s %q: want whole seconds, at least 1s (5m, 90s)", name, v)
		}
	}
	return nil
}

// windowNote warns of a window too short for a usual scrape interval.
func (o Options) windowNote() string {
	if d, err := time.ParseDuration(o.Window); err == nil && d < time.Minute {
		return fmt.Sprintf("the window %s is under a minute: rate() and avg_over_time() need at least 4 scrapes in it (a 15 s scrape interval needs 1m), or the rules see no data and never fire", o.Window)
	}
	return ""
}

// normalize writes the durations as Prometheus does ("90s" -> "1m30s" is
// Go's; Prometheus reads "90s", and not "1.5m").
func (o *Options) normalize() {
	for _, v := range []*string{&o.For, &o.Window} {
		if d, err := time.ParseDuration(*v); err == nil {
			*v = promDuration(d)
		}
	}
}

// Plan is what Derive found: the capacity, the signal that tracks it, the
// thresholds and the sla's pages.
type Plan struct {
	Options  Options
	Scenario string
	RunID    string
	Model    string
	Engine   string // "vllm", "sglang", "llamacpp", "tgi" or "" when unknown
	// Vary is what the load varied ("users", "rate", "max_concurrency"),
	// Capacity the highest load meeting every sla check and Lower the
	// highest at which every run of its step met them (Capacity itself
	// without repeats); Upper the lowest failing load above (0 when none
	// failed), so the capacity lies in [Capacity, Upper).
	Vary                   string
	Capacity, Lower, Upper float64
	Runs, RunsPassed       int
	// Concurrency is the requests in flight at the lower bound by Little's
	// law (dispatch rate times mean end-to-end latency); Peak the most in
	// flight measured there.
	Concurrency float64
	Peak        int
	// EngineHeld is the engine's running plus waiting requests at the
	// lower bound (0 when it exports not both), beside Little's law.
	EngineHeld float64
	// Signal is the engine metric chosen, with every candidate's score.
	Signal     Signal
	Candidates []Signal
	// Pages are the sla checks the engine's histograms can watch.
	Pages []Page
	// Notes say what could not be derived and why.
	Notes []string
	// Removed are an earlier run's files in the directory that Write
	// removed because this result gives none of them.
	Removed []string
}

// Signal is one engine gauge as a load signal: its catalogue name, the
// engine's metric, Spearman's rank correlation of its step means with the
// load, its mean at the lower bound (and the spread of its readings
// there, as a coefficient of variation), at the step below the bound and
// at the first failing load, and why it was not chosen ("" when it
// qualifies).
type Signal struct {
	Figure  string
	Metric  string
	Rho     float64
	AtLower float64
	CV      float64
	Below   float64 // NaN without a step below the bound
	AtFail  float64
	Steps   int
	Why     string
}

// Page is an sla check as an alert on the engine's histogram.
type Page struct {
	Check    string  // "ttft_p99"
	Title    string  // "P99 TTFT <= 500 ms"
	Metric   string  // the engine's histogram, "vllm:time_to_first_token_seconds"
	Quantile float64 // 0.99
	Bound    float64 // seconds
}

// saturationNoise is how much lower than at the lower bound a gauge may
// read at the first failing load and still count as not falling: a gauge
// pinned at its limit (4 running requests of a batch of 4) reads a
// percent or two either way from one step to the next.
const saturationNoise = 0.05

// signals are the gauges that may track the load, in order of preference
// on a tie: requests in the batch, then waiting, then KV-cache usage.
var signals = []string{"requests_running", "queue", "kv_cache_usage"}

// Derive finds the capacity of r and what to alert and scale on.
func Derive(r *results.Result, o Options) (*Plan, error) {
	o.defaults()
	if err := o.check(); err != nil {
		return nil, err
	}
	o.normalize()
	sw := results.LoadView(r)
	if sw == nil {
		return nil, errors.New("the result has no load steps: run a capacity search, a sweep, or stages of users (examples/capacity.hcl)")
	}
	if sw.Capacity == nil {
		return nil, errors.New("no load met every sla check: the result has no capacity to derive from")
	}
	if r.Interrupted {
		return nil, errors.New("the run was interrupted: its capacity is not measured")
	}
	if v := r.Validity; v != nil && !v.Valid && !o.Force {
		return nil, errors.New("the run is invalid (the load generator did not do what the scenario said): its capacity is the client's, not the server's (-force derives from it all the same)")
	}
	p := &Plan{Options: o, Scenario: r.Scenario, RunID: r.RunID, Model: r.ModelID, Vary: sw.Vary, Capacity: sw.Capacity.Value,
		Runs: sw.Capacity.Runs, RunsPassed: sw.Capacity.RunsPassed}
	steps := slices.Clone(sw.Steps)
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].Value < steps[j].Value })
	passed := func(st results.Step) bool {
		return st.SLAChecked && len(st.SLAFailed) == 0 && len(st.SLAInconclusive) == 0 && st.Summary != nil && st.Summary.Completed > 0
	}
	var lower, fail *results.Step
	for i := range steps {
		st := &steps[i]
		if st.Value <= p.Capacity && passed(*st) && (len(st.Runs) == 0 || st.RunsPassed == len(st.Runs)) {
			lower = st
		}
		if st.Value > p.Capacity && !passed(*st) && fail == nil {
			fail = st
		}
	}
	if lower == nil {
		return nil, fmt.Errorf("no step up to the capacity %s met every sla check in every run", formatLoad(p.Capacity))
	}
	p.Lower = lower.Value
	if lower.Value < p.Capacity {
		p.Notes = append(p.Notes, fmt.Sprintf("the capacity %s held in %d of %d runs: the lower bound is %s, the highest load that held in every run; the load every run would hold lies in [%s, %s), unsearched (more repeats, or a search between the two, would narrow it)",
			formatLoad(p.Capacity), p.RunsPassed, p.Runs, formatLoad(lower.Value), formatLoad(lower.Value), formatLoad(p.Capacity)))
	}
	if fail != nil {
		p.Upper = fail.Value
	} else {
		p.Notes = append(p.Notes, "no load above the capacity failed: the capacity is at least what was measured")
	}
	// Little's law: in flight = arrival rate x time in the system; the
	// arrival rate is an open loop's achieved dispatch rate.
	// A closed loop's dispatch rate counts its users' first burst, which
	// no steady state has: its arrival rate is its completions'.
	s := lower.Summary
	rate := s.AchievedRate
	if rate <= 0 || lower.MeanUsers > 0 {
		rate = s.RequestThroughput
	}
	p.Concurrency = rate * s.E2EL.Mean / 1000
	p.Peak = s.PeakConcurrency
	if p.Concurrency > float64(p.Peak)*1.0001 && p.Peak > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("Little's law gives %.1f requests in flight at the lower bound, more than the %d measured at the peak: the step was too short for a steady state",
			p.Concurrency, p.Peak))
	}
	p.Engine, p.Candidates = signalsOf(r, steps, lower, fail, o.WarnShare)
	// Of the gauges that track the load, the steadiest at the bound: the
	// fewest false alarms at the same threshold; then the best rank
	// correlation, then the order of preference.
	for _, c := range p.Candidates {
		if c.Why != "" {
			continue
		}
		best := p.Signal
		switch {
		case best.Figure == "":
			p.Signal = c
		case c.CV < best.CV-0.02:
			p.Signal = c
		case math.Abs(c.CV-best.CV) <= 0.02 && c.Rho > best.Rho+1e-9:
			p.Signal = c
		}
	}
	if p.Signal.Figure == "" {
		p.Notes = append(p.Notes, "no scraped engine gauge tracked the load up to the capacity (scrape the server's /metrics: the target's metrics_url, on by default); no warning and no autoscaler are written")
	}
	if fs := r.Summary; fs != nil && fs.Server != nil && p.Signal.Figure != "" {
		var held float64
		n := 0
		for _, c := range p.Candidates {
			if c.Figure == "requests_running" || c.Figure == "queue" {
				held += c.AtLower
				n++
			}
		}
		if n == 2 {
			p.EngineHeld = held
		}
	}
	p.Pages = pages(r, lower)
	if n := o.windowNote(); n != "" {
		p.Notes = append(p.Notes, n)
	}
	return p, nil
}

// metricName is what a signal's source must be: one metric, not an
// expression of several (Triton's sources are).
var metricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)

// minRho is the least rank correlation with the load a signal needs.
const minRho = 0.8

// signalsOf scores each gauge the run scraped as a load signal: its
// readings in each step while the step dispatched (each repeated run
// apart), ranked against the steps' loads.
func signalsOf(r *results.Result, steps []results.Step, lower, fail *results.Step, warnShare float64) (string, []Signal) {
	s := r.Summary
	if s == nil || s.Server == nil || s.Server.Series == nil {
		return "", nil
	}
	engine := ""
	for _, f := range s.Server.Figures {
		if e := engineOf(f.Source); e != "" {
			engine = e
			break
		}
	}
	var out []Signal
	for _, name := range signals {
		fig, ok := s.Server.Figures[name]
		if !ok || fig.Type != metrics.SeriesGauge {
			continue
		}
		if e := engineOf(fig.Source); e != "" {
			engine = e
		}
		sig := Signal{Figure: name, Metric: fig.Source, Below: math.NaN()}
		var loads, means []float64
		at := map[int]float64{}
		for _, st := range steps {
			vs := readings(s.Server.Series, st, name)
			if len(vs) == 0 {
				continue
			}
			m := mean(vs)
			at[st.Step] = m
			loads, means = append(loads, st.Value), append(means, m)
			if st.Step == lower.Step && m > 0 {
				sig.CV = stddev(vs, m) / m
			}
		}
		sig.Steps = len(loads)
		sig.AtLower = at[lower.Step]
		if sig.Steps >= 3 {
			sig.Rho = spearman(loads, means)
		}
		// The step just below the bound.
		for _, st := range steps {
			if v, ok := at[st.Step]; ok && st.Value < lower.Value {
				sig.Below = v
			}
		}
		top := steps[len(steps)-1]
		if fail != nil {
			top = *fail
		}
		v, hasTop := at[top.Step]
		sig.AtFail = v
		switch {
		case !metricName.MatchString(fig.Source):
			sig.Why = "an expression of several metrics"
		case sig.Steps < 3:
			sig.Why = "read in fewer than 3 steps"
		case sig.AtLower <= 0:
			sig.Why = "0 at the capacity: no threshold to set"
		case sig.Rho < minRho:
			sig.Why = fmt.Sprintf("rho under %g: it does not track the load", minRho)
		case !hasTop || top.Step == lower.Step:
			sig.Why = "no load past the capacity to compare"
		// Not lower past the capacity (within the noise of a gauge that
		// saturates there, as the batch's running requests do when the
		// batch is the limit): at or over the threshold then means at or
		// over the capacity.
		case v < (1-saturationNoise)*sig.AtLower:
			sig.Why = "lower past the capacity"
		// Still rising into the bound: a gauge already at its warning
		// level a step below the capacity (it stopped rising early) would
		// warn and scale at a load that needs neither.
		case !math.IsNaN(sig.Below) && sig.Below >= warnShare*sig.AtLower:
			sig.Why = "already at the warning level below the capacity"
		}
		out = append(out, sig)
	}
	return engine, out
}

// readings are a server figure's values in the windows that start while a
// step dispatched (its first to its last dispatch, each repeated run
// apart): not the tail of its last requests, which ends under the next
// step's load, nor the pauses between runs.
func readings(series *metrics.ServerSeries, st results.Step, name string) []float64 {
	spans := []*metrics.Summary{st.Summary}
	if len(st.Runs) > 0 {
		spans = nil
		for _, run := range st.Runs {
			spans = append(spans, run.Summary)
		}
	}
	var out []float64
	for _, s := range spans {
		if s == nil {
			continue
		}
		from, to := s.FirstDispatch, s.LastDispatch
		if from.IsZero() || !to.After(from) {
			from, to = s.SpanStart, s.SpanEnd
		}
		if from.IsZero() {
			continue
		}
		for _, w := range series.Windows {
			if w.Start.Before(from) || !w.Start.Before(to) {
				continue
			}
			if pt, ok := w.Points[name]; ok && !math.IsNaN(pt.Value) {
				out = append(out, pt.Value)
			}
		}
	}
	return out
}

func mean(vs []float64) float64 {
	var sum float64
	for _, v := range vs {
		sum += v
	}
	return sum / float64(len(vs))
}

func stddev(vs []float64, m float64) float64 {
	var ss float64
	for _, v := range vs {
		ss += (v - m) * (v - m)
	}
	return math.Sqrt(ss / float64(len(vs)))
}

// spearman is the rank correlation of x and y (ties take their mean rank).
func spearman(x, y []float64) float64 {
	rx, ry := ranks(x), ranks(y)
	var mx, my float64
	for i := range rx {
		mx += rx[i]
		my += ry[i]
	}
	mx /= float64(len(rx))
	my /= float64(len(ry))
	var sxy, sxx, syy float64
	for i := range rx {
		sxy += (rx[i] - mx) * (ry[i] - my)
		sxx += (rx[i] - mx) * (rx[i] - mx)
		syy += (ry[i] - my) * (ry[i] - my)
	}
	if sxx == 0 || syy == 0 {
		return 0
	}
	return sxy / math.Sqrt(sxx*syy)
}

func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	out := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && v[idx[j+1]] == v[idx[i]] {
			j++
		}
		for k := i; k <= j; k++ {
			out[idx[k]] = float64(i+j)/2 + 1
		}
		i = j + 1
	}
	return out
}

// engineOf names the engine a metric comes from by its prefix.
func engineOf(metric string) string {
	switch {
	case strings.HasPrefix(metric, "vllm:"):
		return "vllm"
	case strings.HasPrefix(metric, "sglang:"):
		return "sglang"
	case strings.HasPrefix(metric, "llamacpp:"):
		return "llamacpp"
	case strings.HasPrefix(metric, "tgi_"):
		return "tgi"
	}
	return ""
}

// pages are the lower bound's sla checks on a latency percentile that the
// engine exports as a histogram.
func pages(r *results.Result, lower *results.Step) []Page {
	s := r.Summary
	if s == nil || s.Server == nil {
		return nil
	}
	var out []Page
	for _, c := range lower.Checks {
		if c.Kind != "sla" || c.Threshold == nil || c.Op != "<=" || (c.Unit != "ms" && c.Unit != "") {
			continue
		}
		q, ok := quantile(c.Stat)
		if !ok {
			continue
		}
		fig, ok := s.Server.Figures[c.Metric]
		if !ok || fig.Type != metrics.SeriesHistogram {
			continue
		}
		out = append(out, Page{Check: c.Name, Title: c.Description, Metric: fig.Source, Quantile: q, Bound: *c.Threshold / 1000})
	}
	return out
}

// quantile reads "p99" as 0.99 and "p999" as 0.999.
func quantile(stat string) (float64, bool) {
	if !strings.HasPrefix(stat, "p") || len(stat) < 3 {
		return 0, false
	}
	digits := stat[1:]
	var v float64
	for _, ch := range digits {
		if ch < '0' || ch > '9' {
			return 0, false
		}
	}
	fmt.Sscanf("0."+digits, "%g", &v)
	return v, v > 0 && v < 1
}

func formatLoad(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", v), "0"), ".")
}
