package main

import (
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/llmload/llmload/live"
	"github.com/llmload/llmload/sim"
)

// promqlWords are the PromQL functions, aggregations and keywords the
// dashboard may use; every other identifier outside label matchers and
// grouping clauses must be a metric name.
var promqlWords = []string{"sum", "max", "min", "avg", "count", "rate", "irate", "increase", "histogram_quantile",
	"by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "offset", "bool"}

var (
	promqlStrings  = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	promqlMatchers = regexp.MustCompile(`\{[^}]*\}`)
	promqlRanges   = regexp.MustCompile(`\[[^\]]*\]`)
	promqlGroups   = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promqlIdent    = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)
)

// metricNames returns the metric names a PromQL expression reads.
func metricNames(expr string) []string {
	e := promqlStrings.ReplaceAllString(expr, `""`)
	e = promqlMatchers.ReplaceAllString(e, "")
	e = promqlRanges.ReplaceAllString(e, "")
	e = promqlGroups.ReplaceAllString(e, "")
	var out []string
	for _, loc := range promqlIdent.FindAllStringIndex(e, -1) {
		w := e[loc[0]:loc[1]]
		if loc[0] > 0 && (e[loc[0]-1] >= '0' && e[loc[0]-1] <= '9' || e[loc[0]-1] == '.' || e[loc[0]-1] == '$') {
			continue // 0.99, 1e3, $__rate_interval
		}
		if slices.Contains(promqlWords, w) || strings.HasPrefix(w, "__") {
			continue
		}
		out = append(out, w)
	}
	return out
}

func TestMetricNamesFromPromQL(t *testing.T) {
	got := metricNames(`histogram_quantile(0.99, sum by (le) (rate(llmload_ttft_seconds_bucket{scenario=~"$scenario"}[$__rate_interval]))) / sum(rate(vllm:prefix_cache_queries_total[5m]))`)
	if want := []string{"llmload_ttft_seconds_bucket", "vllm:prefix_cache_queries_total"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// simMetricNames are the families the simulator's /metrics serves after
// one request.
func simMetricNames(t *testing.T) []string {
	t.Helper()
	p, err := sim.LookupProfile("tiny")
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.Listen("127.0.0.1:0", p, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	resp, err := http.Post(r.URL+"/v1/completions", "application/json", strings.NewReader(`{"model":"sim-tiny","prompt":"a b","max_tokens":3}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	resp, err = http.Get(r.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p2 := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p2.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for n := range mfs {
		out = append(out, n)
	}
	return out
}

// TestGrafanaDashboard checks that examples/grafana/llmload.json parses and
// that every PromQL expression in it reads only metrics llmload's live
// endpoint or the simulator (vLLM's names) exports.
func TestGrafanaDashboard(t *testing.T) {
	data, err := os.ReadFile("../../examples/grafana/llmload.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Query string `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("the dashboard does not parse: %v", err)
	}
	known := map[string]bool{}
	for _, n := range live.MetricNames() {
		known[n] = true
		for _, suf := range []string{"_bucket", "_sum", "_count"} {
			known[n+suf] = true
		}
	}
	for _, n := range simMetricNames(t) {
		known[n] = true
		for _, suf := range []string{"_bucket", "_sum", "_count"} {
			known[n+suf] = true
		}
	}
	var exprs []string
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	for _, v := range dash.Templating.List {
		if m := regexp.MustCompile(`label_values\((\w+)`).FindStringSubmatch(v.Query); m != nil {
			exprs = append(exprs, m[1])
		}
	}
	if len(exprs) < 10 {
		t.Fatalf("found %d expressions in the dashboard", len(exprs))
	}
	seenLive, seenServer := false, false
	for _, e := range exprs {
		names := metricNames(e)
		if len(names) == 0 {
			t.Errorf("%q reads no metric", e)
		}
		for _, n := range names {
			if !known[n] {
				t.Errorf("%q reads %s, which neither llmload nor the simulator exports", e, n)
			}
			seenLive = seenLive || strings.HasPrefix(n, "llmload_")
			seenServer = seenServer || strings.HasPrefix(n, "vllm:")
		}
	}
	if !seenLive || !seenServer {
		t.Errorf("the dashboard should show llmload's metrics (%v) and the server's (%v) on one screen", seenLive, seenServer)
	}
}
