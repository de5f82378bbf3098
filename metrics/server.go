package metrics

import (
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// The server's side of a run: figures scraped from the server's Prometheus
// endpoint while the load ran, kept as a time series aligned on the same
// wall-clock windows as the run's own series, and summarised as
// server.<name>.<stat>. The catalogue's Server entries say which engine
// metrics each figure is read from.

// How a server figure's samples are read.
const (
	// SeriesGauge is a level (KV usage, queue length): min, mean and max
	// of the scraped values, last the final one, delta last - first.
	SeriesGauge = "gauge"
	// SeriesCounter is a cumulative count: min, mean, max and last are per
	// second rates, delta the increase over the run.
	SeriesCounter = "counter"
	// SeriesRatio is the ratio of two counters' increases (hits over
	// queries): min, max and last over windows, mean over the whole run.
	SeriesRatio = "ratio"
	// SeriesHistogram is a latency histogram, read from its sum and count:
	// min, max and last are window means, mean is the run's mean (ms), and
	// delta the number of observations.
	SeriesHistogram = "histogram"
)

// ServerStatNames are the statistics a server figure may have.
var ServerStatNames = []string{"min", "mean", "max", "last", "delta"}

func serverFigure(name, series, unit string, better Direction, title, desc string, sources ...string) Metric {
	return Metric{Name: ServerPrefix + name, Kind: Server, Unit: unit, Better: better, Title: title,
		Description: desc, Series: series, Sources: sources}
}

// ServerPrefix starts the catalogue name of every server figure:
// "server.kv_cache_usage".
const ServerPrefix = "server."

// ServerStats are the statistics a figure read as series has: a ratio has
// no delta.
func ServerStats(series string) []string {
	if series == SeriesRatio {
		return ServerStatNames[:4]
	}
	return ServerStatNames
}

// ServerFigures lists the catalogue's server figures.
func ServerFigures() []Metric {
	var out []Metric
	for _, m := range Catalogue {
		if m.Kind == Server {
			out = append(out, m)
		}
	}
	return out
}

// ServerUnit is the unit of one statistic of a server figure: a counter's
// min, mean, max and last are rates ("tokens/s"), a histogram's delta a
// number of observations.
func ServerUnit(series, unit, stat string) string {
	switch {
	case series == SeriesCounter && stat != "delta":
		return unit + "/s"
	case series == SeriesHistogram && stat == "delta":
		return "observations"
	}
	return unit
}

// ServerMetrics is what was scraped from the server during a run.
type ServerMetrics struct {
	// URL is the metrics endpoint (several, comma-separated, for a merge of
	// runs against different servers).
	URL      string  `json:"url"`
	Interval Seconds `json:"scrape_interval_s"`
	// Scrapes counts successful scrapes, Failures failed ones (a failed
	// scrape never fails the run); LastError is the last failure.
	Scrapes   int    `json:"scrapes"`
	Failures  int    `json:"failures"`
	LastError string `json:"last_error,omitempty"`
	// Figures are the statistics of every figure the server exported, by
	// name: the catalogue's ("kv_cache_usage") and the raw metric names
	// the target listed in scrape_metrics.
	Figures map[string]ServerFigure `json:"figures"`
	// Series holds the scraped points in the run's time-series windows.
	Series *ServerSeries `json:"series,omitempty"`
}

// ServerFigure is the statistics of one server figure over the run; a nil
// statistic had no sample.
type ServerFigure struct {
	Source  string   `json:"source"` // the engine metric it was read from
	Type    string   `json:"type"`   // SeriesGauge, SeriesCounter, SeriesRatio or SeriesHistogram
	Samples int      `json:"samples"`
	Min     *float64 `json:"min"`
	Mean    *float64 `json:"mean"`
	Max     *float64 `json:"max"`
	Last    *float64 `json:"last"`
	Delta   *float64 `json:"delta,omitempty"`
}

// Stat returns one statistic of the figure.
func (f ServerFigure) Stat(stat string) (float64, bool) {
	var p *float64
	switch stat {
	case "min":
		p = f.Min
	case "mean":
		p = f.Mean
	case "max":
		p = f.Max
	case "last":
		p = f.Last
	case "delta":
		p = f.Delta
	}
	if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
		return 0, false
	}
	return *p, true
}

// ServerSeries is the scraped figures in fixed windows, aligned on the
// wall clock like Series (same interval).
type ServerSeries struct {
	Interval Seconds        `json:"interval_s"`
	Windows  []ServerWindow `json:"windows"`
}

// ServerWindow is one window's points, by figure name.
type ServerWindow struct {
	Start  time.Time              `json:"start"`
	Points map[string]ServerPoint `json:"points,omitempty"`
}

// ServerPoint is one figure in one window. A gauge keeps its samples' N,
// Sum, Min, Max, First and Last; a counter its increase Inc over Span
// seconds; a ratio or histogram Num over Inc (hits over queries, summed ms
// over observations). Value is the figure as a plot shows it: the gauge's
// mean, the counter's rate per second, the ratio, the mean latency.
type ServerPoint struct {
	N     int     `json:"n,omitempty"`
	Sum   float64 `json:"sum,omitempty"`
	Min   float64 `json:"min,omitempty"`
	Max   float64 `json:"max,omitempty"`
	First float64 `json:"first,omitempty"`
	Last  float64 `json:"last,omitempty"`
	Inc   float64 `json:"inc,omitempty"`
	Num   float64 `json:"num,omitempty"`
	Span  float64 `json:"span_s,omitempty"`
	Value float64 `json:"value"`
}

// has reports whether the point holds a sample of a figure read as series.
func (p ServerPoint) has(series string) bool {
	switch series {
	case SeriesGauge:
		return p.N > 0
	case SeriesCounter:
		return p.Span > 0
	}
	return p.Inc > 0
}

func (p *ServerPoint) fillValue(series string) {
	switch {
	case series == SeriesGauge && p.N > 0:
		p.Value = p.Sum / float64(p.N)
	case series == SeriesCounter && p.Span > 0:
		p.Value = p.Inc / p.Span
	case (series == SeriesRatio || series == SeriesHistogram) && p.Inc > 0:
		p.Value = p.Num / p.Inc
	default:
		p.Value = 0
	}
}

// Family is one scraped metric family, its series combined: Sum and Max
// over the label sets of a gauge or counter, HSum and HCount summed over a
// histogram's (or summary's).
type Family struct {
	Type         string // SeriesGauge, SeriesCounter or SeriesHistogram
	Sum, Max     float64
	HSum, HCount float64
}

// count is the family read as a counter: a counter's (or gauge's) sum
// over its series, or a histogram's sum of observations (Dynamo counts
// tokens in per-request histograms: their sum is the tokens' count).
func (f Family) count() float64 {
	if f.Type == SeriesHistogram {
		return f.HSum
	}
	return f.Sum
}

// ServerRecorder turns scrapes into a ServerMetrics. It has one owner.
type ServerRecorder struct {
	interval time.Duration
	k0       int64
	windows  []ServerWindow
	extras   []string
	prev     map[string]prevSample
	types    map[string]string // figure -> series type
	sources  map[string]string // figure -> source read
	lastAt   time.Time         // the previous scrape
}

type prevSample struct {
	source string
	at     time.Time
	a, b   float64
}

// NewServerRecorder returns a recorder whose windows align with a Series
// of the same base and interval. extras are raw metric names to keep
// besides the catalogue's figures.
func NewServerRecorder(base time.Time, interval time.Duration, extras []string) *ServerRecorder {
	if interval <= 0 {
		interval = DefaultInterval
	}
	return &ServerRecorder{
		interval: interval,
		k0:       floorDiv(base.UnixNano(), int64(interval)),
		extras:   extras,
		prev:     map[string]prevSample{},
		types:    map[string]string{},
		sources:  map[string]string{},
	}
}

// point returns the point of figure name in the window holding at, or nil
// before the first window (a baseline scrape).
func (r *ServerRecorder) point(name string, at time.Time) *ServerPoint {
	k := int(floorDiv(at.UnixNano(), int64(r.interval)) - r.k0)
	if k < 0 {
		return nil
	}
	for len(r.windows) <= k {
		start := time.Unix(0, (r.k0+int64(len(r.windows)))*int64(r.interval)).UTC()
		r.windows = append(r.windows, ServerWindow{Start: start})
	}
	w := &r.windows[k]
	if w.Points == nil {
		w.Points = map[string]ServerPoint{}
	}
	p := w.Points[name]
	return &p
}

func (r *ServerRecorder) store(name string, at time.Time, p *ServerPoint) {
	k := int(floorDiv(at.UnixNano(), int64(r.interval)) - r.k0)
	r.windows[k].Points[name] = *p
}

// Add records one scrape taken at at.
func (r *ServerRecorder) Add(at time.Time, fams map[string]Family) {
	for _, m := range ServerFigures() {
		name := strings.TrimPrefix(m.Name, ServerPrefix)
		for _, src := range m.Sources {
			if r.addFigure(name, m.Series, src, m.Unit == "fraction", at, fams) {
				break
			}
		}
	}
	for _, name := range r.extras {
		f, ok := fams[name]
		if !ok {
			continue
		}
		r.addFigure(name, f.Type, name, false, at, fams)
	}
	r.lastAt = at
}

// addFigure records figure name read from source; false when the scrape
// does not hold the source.
func (r *ServerRecorder) addFigure(name, series, source string, useMax bool, at time.Time, fams map[string]Family) bool {
	var a, b float64
	num, den, isRatio := strings.Cut(source, " / ")
	switch {
	case series == SeriesRatio:
		fn, ok1 := fams[num]
		fd, ok2 := fams[den]
		if !ok1 || !ok2 {
			return false
		}
		a, b = fn.count(), fd.count()
	case series == SeriesGauge && isRatio:
		// A level served as two gauges, a part and its whole (Triton's
		// TensorRT-LLM backend: used over max KV-cache blocks), their
		// series summed; without a whole there is no level.
		fn, ok1 := fams[num]
		fd, ok2 := fams[den]
		if !ok1 || !ok2 || fd.Sum <= 0 {
			return false
		}
		a = fn.Sum / fd.Sum
	default:
		f, ok := fams[source]
		if !ok {
			return false
		}
		switch series {
		case SeriesHistogram:
			a, b = f.HSum*1000, f.HCount // seconds to ms
		case SeriesGauge:
			a = f.Sum
			if useMax {
				a = f.Max
			}
		default:
			a = f.count()
		}
	}
	r.types[name], r.sources[name] = series, source
	prev, hadPrev := r.prev[name]
	if hadPrev && prev.source != source {
		hadPrev = false
	}
	if !hadPrev && !r.lastAt.IsZero() {
		// A series that appears after the first scrape was created since
		// (a labelled counter's first increment): it counted from 0.
		prev, hadPrev = prevSample{source: source, at: r.lastAt}, true
	}
	r.prev[name] = prevSample{source: source, at: at, a: a, b: b}
	p := r.point(name, at)
	if p == nil {
		return true
	}
	if series == SeriesGauge {
		if p.N == 0 {
			p.Min, p.Max, p.First = a, a, a
		}
		p.N++
		p.Sum += a
		p.Min, p.Max, p.Last = min(p.Min, a), max(p.Max, a), a
		r.store(name, at, p)
		return true
	}
	if !hadPrev {
		return true
	}
	defer r.store(name, at, p)
	// A counter that went down was reset (the server restarted): its new
	// value is the increase since.
	inc := func(cur, old float64) float64 {
		if cur < old {
			return cur
		}
		return cur - old
	}
	switch series {
	case SeriesCounter:
		p.Inc += inc(a, prev.a)
		p.Span += at.Sub(prev.at).Seconds()
	default: // ratio, histogram: a is the numerator (sum), b the denominator (count)
		p.Num += inc(a, prev.a)
		p.Inc += inc(b, prev.b)
	}
	return true
}

// Metrics returns what was recorded, with its statistics.
func (r *ServerRecorder) Metrics(url string, interval time.Duration, scrapes, failures int, lastErr string) *ServerMetrics {
	sm := &ServerMetrics{
		URL: url, Interval: Seconds(interval.Seconds()),
		Scrapes: scrapes, Failures: failures, LastError: lastErr,
		Series: &ServerSeries{Interval: Seconds(r.interval.Seconds()), Windows: r.windows},
	}
	for _, w := range sm.Series.Windows {
		for name, p := range w.Points {
			p.fillValue(r.types[name])
			w.Points[name] = p
		}
	}
	sm.Figures = figuresOf(sm.Series, r.types, r.sources)
	return sm
}

// figuresOf computes every figure's statistics from the series.
func figuresOf(s *ServerSeries, types, sources map[string]string) map[string]ServerFigure {
	out := map[string]ServerFigure{}
	for name, series := range types {
		f := ServerFigure{Source: sources[name], Type: series}
		var vals []float64
		var tot, totNum, totSpan, sum float64
		var n int
		var first, last *ServerPoint
		for i := range s.Windows {
			p, ok := s.Windows[i].Points[name]
			if !ok || !p.has(series) {
				continue
			}
			if first == nil {
				first = &p
			}
			last = &p
			vals = append(vals, p.Value)
			switch series {
			case SeriesGauge:
				sum += p.Sum
				n += p.N
			default:
				tot += p.Inc
				totNum += p.Num
				totSpan += p.Span
			}
		}
		f.Samples = len(vals)
		if len(vals) == 0 {
			out[name] = f
			continue
		}
		pf := func(v float64) *float64 { return &v }
		switch series {
		case SeriesGauge:
			lo, hi := math.Inf(1), math.Inf(-1)
			for i := range s.Windows {
				if p, ok := s.Windows[i].Points[name]; ok && p.N > 0 {
					lo, hi = min(lo, p.Min), max(hi, p.Max)
				}
			}
			f.Min, f.Max = pf(lo), pf(hi)
			f.Mean = pf(sum / float64(n))
			f.Last = pf(last.Last)
			f.Delta = pf(last.Last - first.First)
			f.Samples = n
		default:
			f.Min, f.Max = pf(slices.Min(vals)), pf(slices.Max(vals))
			f.Last = pf(last.Value)
			if series == SeriesCounter {
				f.Mean = pf(tot / totSpan)
				f.Delta = pf(tot)
			} else {
				f.Mean = pf(totNum / tot)
				if series == SeriesHistogram {
					f.Delta = pf(tot)
				}
			}
		}
		out[name] = f
	}
	return out
}

// MergeServer combines the server figures of several results. Parts that
// scraped the same URL saw the same server: of windows with the same
// start, the first part's is kept. Parts that scraped different servers
// add up (a gauge's levels, a counter's increases, a ratio's or
// histogram's numerators and denominators), except a fraction gauge (KV
// usage), of which the largest is kept.
func MergeServer(parts ...*ServerMetrics) *ServerMetrics {
	var out *ServerMetrics
	var urls []string
	types, sources := map[string]string{}, map[string]string{}
	byStart := map[int64]int{}
	fromURL := map[int64]string{}
	for _, p := range parts {
		if p == nil {
			continue
		}
		if out == nil {
			out = &ServerMetrics{Interval: p.Interval, Series: &ServerSeries{}}
		}
		if !slices.Contains(urls, p.URL) {
			urls = append(urls, p.URL)
		}
		out.Scrapes += p.Scrapes
		out.Failures += p.Failures
		if p.LastError != "" {
			out.LastError = p.LastError
		}
		for name, f := range p.Figures {
			types[name], sources[name] = f.Type, f.Source
		}
		if p.Series == nil {
			continue
		}
		out.Series.Interval = p.Series.Interval
		for _, w := range p.Series.Windows {
			key := w.Start.UnixNano()
			i, ok := byStart[key]
			if !ok {
				byStart[key] = len(out.Series.Windows)
				fromURL[key] = p.URL
				out.Series.Windows = append(out.Series.Windows, cloneWindow(w))
				continue
			}
			if fromURL[key] == p.URL {
				continue // the same server, seen twice
			}
			m := &out.Series.Windows[i]
			if m.Points == nil {
				m.Points = map[string]ServerPoint{}
			}
			for name, q := range w.Points {
				pt, ok := m.Points[name]
				if !ok {
					m.Points[name] = q
					continue
				}
				m.Points[name] = combinePoints(pt, q, types[name], fractionFigure(name))
			}
		}
	}
	if out == nil {
		return nil
	}
	out.URL = strings.Join(urls, ", ")
	sort.Slice(out.Series.Windows, func(i, j int) bool {
		return out.Series.Windows[i].Start.Before(out.Series.Windows[j].Start)
	})
	for _, w := range out.Series.Windows {
		for name, p := range w.Points {
			p.fillValue(types[name])
			w.Points[name] = p
		}
	}
	out.Figures = figuresOf(out.Series, types, sources)
	return out
}

func cloneWindow(w ServerWindow) ServerWindow {
	c := ServerWindow{Start: w.Start}
	if w.Points != nil {
		c.Points = make(map[string]ServerPoint, len(w.Points))
		for k, v := range w.Points {
			c.Points[k] = v
		}
	}
	return c
}

// combinePoints adds one server's point to another's of the same window.
func combinePoints(a, b ServerPoint, series string, fraction bool) ServerPoint {
	if series != SeriesGauge {
		a.Inc += b.Inc
		a.Num += b.Num
		a.Span = max(a.Span, b.Span)
		return a
	}
	if a.N == 0 || b.N == 0 {
		if a.N == 0 {
			return b
		}
		return a
	}
	ma, mb := a.Sum/float64(a.N), b.Sum/float64(b.N)
	if fraction {
		return ServerPoint{N: 1, Sum: max(ma, mb), Min: max(a.Min, b.Min), Max: max(a.Max, b.Max), First: max(a.First, b.First), Last: max(a.Last, b.Last)}
	}
	return ServerPoint{N: 1, Sum: ma + mb, Min: a.Min + b.Min, Max: a.Max + b.Max, First: a.First + b.First, Last: a.Last + b.Last}
}

func fractionFigure(name string) bool {
	m, ok := Lookup(ServerPrefix + name)
	return ok && m.Unit == "fraction"
}

// serverValue reads server.<name>.<stat> from s.
func (s *Summary) serverValue(name, stat string) (float64, bool) {
	if s.Server == nil {
		return 0, false
	}
	f, ok := s.Server.Figures[strings.TrimPrefix(name, ServerPrefix)]
	if !ok {
		return 0, false
	}
	return f.Stat(stat)
}

// Slice returns the figures of the windows that start in [from, to): a
// closed-loop stage's share of the run's server series.
func (m *ServerMetrics) Slice(from, to time.Time) *ServerMetrics {
	if m == nil || m.Series == nil {
		return nil
	}
	out := *m
	out.Series = &ServerSeries{Interval: m.Series.Interval}
	for _, w := range m.Series.Windows {
		if !w.Start.Before(from) && w.Start.Before(to) {
			out.Series.Windows = append(out.Series.Windows, w)
		}
	}
	types, sources := map[string]string{}, map[string]string{}
	for name, f := range m.Figures {
		types[name], sources[name] = f.Type, f.Source
	}
	out.Figures = figuresOf(out.Series, types, sources)
	return &out
}
