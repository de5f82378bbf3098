package runner

// Watching a run: the live Prometheus metrics of the load generator
// (-metrics-addr, metrics_addr) and the scraping of the server's own
// metrics endpoint (a target's metrics_url) around executor.Run.

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/llmload/llmload/executor"
	"github.com/llmload/llmload/live"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/scenario"
	"github.com/llmload/llmload/scrape"
)

// startLive serves the run's live metrics on addr ("" = not at all) and
// adds the exporter to the plan's observers.
func startLive(log io.Writer, s *scenario.Scenario, plan *executor.Plan, addr string) (*live.Exporter, error) {
	if addr == "" {
		return nil, nil
	}
	o := live.Options{Scenario: s.Name}
	if plan.Shards > 1 {
		o.Shard = fmt.Sprintf("%d/%d", plan.Shard, plan.Shards)
	}
	if plan.Open != nil {
		o.ConfiguredRate = plan.Open.Rate
	}
	if plan.Closed != nil {
		var end time.Duration
		for _, st := range plan.Closed.Stages {
			end += st.Duration
			if st.Duration == 0 {
				break
			}
			o.StageEnds = append(o.StageEnds, end)
		}
		if n := len(plan.Closed.Stages); n > 0 && len(o.StageEnds) < n {
			o.StageEnds = append(o.StageEnds, 1<<62) // the last stage runs on
		}
	}
	x := live.New(o)
	if err := x.Listen(addr); err != nil {
		return nil, fmt.Errorf("serving live metrics on %s: %w", addr, err)
	}
	fmt.Fprintf(log, "llmload: live metrics on http://%s/metrics\n", x.Addr())
	plan.Observers = append(plan.Observers, x)
	return x, nil
}

// serverScrape is the scraping of one run's server.
type serverScrape struct {
	cfg      scrape.Config
	url      string // redacted, for reports
	implicit bool   // the default <base_url>/metrics: kept only when it answered
	s        *scrape.Scraper
	ctx      context.Context
	cooldown time.Duration // the target's scrape_cooldown
}

// metricsURL is the endpoint a target's server metrics are read from, and
// whether it is the default; "" when scraping is off.
func metricsURL(t *scenario.Target, lt *liveTarget) (string, bool) {
	if !t.MetricsURLDefault {
		return t.MetricsURL, false
	}
	base := strings.TrimSuffix(strings.TrimSuffix(lt.target.BaseURL, "/"), "/v1")
	return base + "/metrics", true
}

// startScrape begins scraping the target's metrics endpoint (nil when
// scraping is off).
func startScrape(ctx context.Context, s *scenario.Scenario, lt *liveTarget) *serverScrape {
	u, implicit := metricsURL(s.Target, lt)
	if u == "" {
		return nil
	}
	cfg := scrape.Config{URL: u, Interval: s.Target.ScrapeInterval, Extras: s.Target.ScrapeMetrics, FollowRedirects: s.Target.FollowRedirects}
	if name, value := lt.target.KeyHeader(); implicit && name != "" {
		// The same server as the API: the same credentials, in the API's
		// header (a bearer token, or Messages' x-api-key).
		cfg.Headers = map[string]string{name: value}
	}
	return &serverScrape{cfg: cfg, url: RedactURL(u), implicit: implicit, s: scrape.Start(ctx, cfg),
		ctx: ctx, cooldown: s.Target.ScrapeCooldown}
}

// finish stops the scraping and puts the server figures into the run's
// summary, in windows aligned with its time series. A default endpoint that
// never answered leaves no trace but a note; a named one that failed is
// reported with its failures, so checks on it say why they have no value.
//
// With a scrape_cooldown it first keeps scraping that long after the load
// (not after an interruption), so that the last scrape shows the server
// once the load has gone: server.requests_running.last is then its
// running count a cooldown after the last request ended.
func (sc *serverScrape) finish(log io.Writer, o *executor.Outcome) {
	if sc == nil {
		return
	}
	if sc.cooldown > 0 && sc.ctx.Err() == nil && o != nil && !o.Interrupted {
		t := time.NewTimer(sc.cooldown)
		select {
		case <-t.C:
		case <-sc.ctx.Done():
		}
		t.Stop()
	}
	samples, failures, lastErr := sc.s.Stop()
	if len(samples) == 0 && sc.implicit {
		fmt.Fprintf(log, "llmload: no server metrics: %s did not answer (%s); set the target's metrics_url to name the endpoint, or metrics_url = \"\" to stop trying\n", sc.url, lastErr)
		return
	}
	if failures > 0 {
		fmt.Fprintf(log, "llmload: %d of %d scrapes of %s failed (last: %s); the run goes on\n", failures, failures+len(samples), sc.url, lastErr)
	}
	if o.Overall == nil {
		return
	}
	interval := metrics.DefaultInterval
	if o.Overall.Series != nil && o.Overall.Series.Interval > 0 {
		interval = o.Overall.Series.Interval.Duration()
	}
	o.Overall.Server = scrape.Record(sc.url, sc.cfg, o.Started, interval, samples, failures, redactError(lastErr))
	// Each closed-loop stage gets the windows it ran in, so that its sla
	// checks on server figures judge its own share.
	var at time.Duration
	for _, st := range o.Stages {
		if st.Summary != nil {
			st.Summary.Server = o.Overall.Server.Slice(o.Started.Add(at), o.Started.Add(at+st.Duration))
		}
		at += st.Duration
	}
}

// redactError hides URL passwords in an error message.
func redactError(msg string) string {
	for _, f := range strings.Fields(msg) {
		f = strings.Trim(f, `"':,`)
		if u, err := url.Parse(f); err == nil && u.User != nil {
			msg = strings.ReplaceAll(msg, f, u.Redacted())
		}
	}
	return msg
}
