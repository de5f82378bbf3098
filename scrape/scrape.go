package scrape

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/llmload/llmload/internal/safehttp"
	"github.com/llmload/llmload/metrics"
)

// DefaultInterval is how often the endpoint is scraped unless the target
// says otherwise.
const DefaultInterval = time.Second

// Config says what to scrape.
type Config struct {
	URL      string
	Interval time.Duration
	// Extras are metric names to keep besides the catalogue's sources.
	Extras []string
	// Headers go with every scrape (an API key's Authorization).
	Headers map[string]string
	// FollowRedirects is the target's redirect policy (safehttp's "never",
	// the default, or "same-host"); the headers never leave the
	// endpoint's host either way.
	FollowRedirects string
	// Client defaults to one with a timeout of the interval (at least 1 s)
	// and the FollowRedirects policy.
	Client *http.Client
}

// Sample is one successful scrape.
type Sample struct {
	At       time.Time
	Families map[string]metrics.Family
}

// Scraper scrapes in a goroutine of its own until Stop.
type Scraper struct {
	cfg    Config
	wanted map[string]bool
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	samples  []Sample
	failures int
	lastErr  string
}

// Wanted lists the metric families the catalogue's server figures read.
func Wanted() []string {
	var out []string
	for _, m := range metrics.ServerFigures() {
		for _, s := range m.Sources {
			a, b, ratio := strings.Cut(s, " / ")
			out = append(out, a)
			if ratio {
				out = append(out, b)
			}
		}
	}
	return out
}

// FirstScrapeTimeout bounds the scrape Start takes before it returns.
const FirstScrapeTimeout = time.Second

// Start scrapes cfg.URL at once and then every interval.
func Start(ctx context.Context, cfg Config) *Scraper {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.Client == nil {
		// A redirect is followed as the target's follow_redirects says,
		// and to the endpoint's own host at most: the headers (the API
		// key) never go elsewhere.
		cfg.Client = &http.Client{Timeout: max(cfg.Interval, time.Second), CheckRedirect: safehttp.CheckRedirect(cfg.FollowRedirects)}
	}
	s := &Scraper{cfg: cfg, wanted: map[string]bool{}, done: make(chan struct{})}
	for _, n := range append(Wanted(), cfg.Extras...) {
		s.wanted[n] = true
	}
	ctx, s.cancel = context.WithCancel(ctx)
	// The first scrape is taken before Start returns, so before the load
	// begins: the counters' deltas then cover every request of the run,
	// however late a background goroutine would have been scheduled. It
	// waits at most a second, so that an endpoint that does not answer
	// cannot hold back the run's start (a failed scrape is counted).
	first, cancel := context.WithTimeout(ctx, FirstScrapeTimeout)
	s.scrapeOnce(first)
	cancel()
	go s.loop(ctx)
	return s
}

func (s *Scraper) loop(ctx context.Context) {
	defer close(s.done)
	t := time.NewTicker(s.cfg.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.scrapeOnce(ctx)
	}
}

// Stop ends the scraping, takes one last scrape (so that the counters'
// final increases are seen) and returns the scrapes.
func (s *Scraper) Stop() (samples []Sample, failures int, lastErr string) {
	s.cancel()
	<-s.done
	s.scrapeOnce(context.Background())
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.samples, s.failures, s.lastErr
}

func (s *Scraper) scrapeOnce(ctx context.Context) {
	at := time.Now()
	fams, err := s.fetch(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if errors.Is(ctx.Err(), context.Canceled) {
			return // stopped, not failed
		}
		s.failures++
		s.lastErr = err.Error()
		return
	}
	s.samples = append(s.samples, Sample{At: at, Families: fams})
}

func (s *Scraper) fetch(ctx context.Context) (map[string]metrics.Family, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.cfg.URL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	for k, v := range s.cfg.Headers {
		req.Header.Set(k, v)
	}
	resp, err := s.cfg.Client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return nil, fmt.Errorf("GET %s: HTTP %d", s.cfg.URL, resp.StatusCode)
	}
	return Parse(resp.Body, s.wanted)
}

// Parse reads the Prometheus text format and combines the series of each
// wanted family (nil wants all): gauges and counters summed (and their
// largest value kept), histograms and summaries by their sum and count. A
// counter family written without its _total suffix is also known by it.
//
// A wanted name may select the series of a family that carry one label
// value, name{label="value"} (Triton's TensorRT-LLM backend serves its
// request counts and KV blocks as one gauge family each, told apart by a
// label): those series are combined alone under that key, and the key is
// absent when no series carries the value. With nil, every family is also
// kept under every one of its label values.
func Parse(r io.Reader, wanted map[string]bool) (map[string]metrics.Family, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, err
	}
	selectors := map[string][]string{} // family name -> wanted selectors of it
	for k := range wanted {
		if base, _, ok := strings.Cut(k, "{"); ok {
			selectors[base] = append(selectors[base], k)
		}
	}
	out := map[string]metrics.Family{}
	for name, mf := range mfs {
		alias := ""
		if mf.GetType() == dto.MetricType_COUNTER && !strings.HasSuffix(name, "_total") {
			alias = name + "_total"
		}
		if wanted == nil || wanted[name] || wanted[alias] {
			f := family(mf.GetType(), mf.GetMetric())
			out[name] = f
			if alias != "" {
				out[alias] = f
			}
		}
		sels := append(append([]string(nil), selectors[name]...), selectors[alias]...)
		if wanted == nil {
			sels = allSelectors(name, alias, mf.GetMetric())
		}
		for _, sel := range sels {
			base, rest, _ := strings.Cut(sel, "{")
			label, value, ok := strings.Cut(strings.TrimSuffix(rest, "\"}"), "=\"")
			if !ok || (base != name && base != alias) {
				continue
			}
			var ms []*dto.Metric
			for _, m := range mf.GetMetric() {
				for _, lp := range m.GetLabel() {
					if lp.GetName() == label && lp.GetValue() == value {
						ms = append(ms, m)
						break
					}
				}
			}
			if len(ms) > 0 {
				out[sel] = family(mf.GetType(), ms)
			}
		}
	}
	return out, nil
}

// allSelectors names every label value a family's series carry, under the
// family's name and its alias.
func allSelectors(name, alias string, ms []*dto.Metric) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range ms {
		for _, lp := range m.GetLabel() {
			for _, n := range []string{name, alias} {
				sel := n + "{" + lp.GetName() + "=\"" + lp.GetValue() + "\"}"
				if n != "" && !seen[sel] {
					seen[sel] = true
					out = append(out, sel)
				}
			}
		}
	}
	return out
}

func family(typ dto.MetricType, ms []*dto.Metric) metrics.Family {
	var f metrics.Family
	switch typ {
	case dto.MetricType_COUNTER:
		f.Type = metrics.SeriesCounter
	case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM, dto.MetricType_SUMMARY:
		f.Type = metrics.SeriesHistogram
	default:
		f.Type = metrics.SeriesGauge
	}
	for i, m := range ms {
		var v float64
		switch {
		case m.Counter != nil:
			v = m.Counter.GetValue()
		case m.Gauge != nil:
			v = m.Gauge.GetValue()
		case m.Untyped != nil:
			v = m.Untyped.GetValue()
		case m.Histogram != nil:
			f.HSum += m.Histogram.GetSampleSum()
			f.HCount += float64(m.Histogram.GetSampleCount())
			continue
		case m.Summary != nil:
			f.HSum += m.Summary.GetSampleSum()
			f.HCount += float64(m.Summary.GetSampleCount())
			continue
		}
		f.Sum += v
		if i == 0 || v > f.Max {
			f.Max = v
		}
	}
	return f
}

// Record turns the scrapes of a run into its server figures, in windows
// aligned with the run's time series (base is its time zero, interval its
// window length). Scrapes before base are the counters' baseline.
func Record(url string, cfg Config, base time.Time, interval time.Duration, samples []Sample, failures int, lastErr string) *metrics.ServerMetrics {
	rec := metrics.NewServerRecorder(base, interval, cfg.Extras)
	for _, s := range samples {
		rec.Add(s.At, s.Families)
	}
	iv := cfg.Interval
	if iv <= 0 {
		iv = DefaultInterval
	}
	return rec.Metrics(url, iv, len(samples), failures, lastErr)
}
