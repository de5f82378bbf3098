package runner

import (
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/llmload/llmload/compare"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
)

// scrapedResult is a result whose server scrape read each figure from its
// source, every statistic v; checks are the result's checks.
func scrapedResult(figures map[string]string, v float64, checks ...results.Check) *results.Result {
	sm := &metrics.ServerMetrics{Scrapes: 10, Figures: map[string]metrics.ServerFigure{}}
	for name, src := range figures {
		val := v
		sm.Figures[name] = metrics.ServerFigure{Source: src, Type: metrics.SeriesGauge, Samples: 10, Min: &val, Mean: &val, Max: &val, Last: &val}
	}
	return &results.Result{Extras: results.Extras{Summary: &metrics.Summary{Server: sm}, Checks: checks}}
}

func assertOn(ref string) results.Check {
	return results.Check{Name: "a", Kind: "assert", Refs: []metrics.CheckRef{{Ref: ref}}}
}

// Metric drift between engine versions: vLLM v0.12 renamed
// vllm:gpu_cache_usage_perc to vllm:kv_cache_usage_perc and removed the
// gpu_prefix_cache_* counters. The comparison lists both; a figure a
// check gates that one side read nothing of is an inconclusive row saying
// why, never a zero and never a pass.
func TestMetricDrift(t *testing.T) {
	old := map[string]string{
		"kv_cache_usage":        "vllm:gpu_cache_usage_perc",
		"prefix_cache_hit_rate": "vllm:gpu_prefix_cache_hits_total / vllm:gpu_prefix_cache_queries_total",
		"queue":                 "vllm:num_requests_waiting",
	}
	renamed := map[string]string{"kv_cache_usage": "vllm:kv_cache_usage_perc", "queue": "vllm:num_requests_waiting"}
	cases := []struct {
		name       string
		checks     []results.Check
		drift      []string // figures listed
		rows       []string // gated rows: key verdict
		verdict    string
		messageHas string
	}{
		{"renamed and removed, nothing gated", nil, []string{"kv_cache_usage", "prefix_cache_hit_rate"}, nil, compare.Pass, ""},
		{"a gated figure read under its new name", []results.Check{assertOn("server.kv_cache_usage.max")},
			[]string{"kv_cache_usage", "prefix_cache_hit_rate"}, []string{"server.kv_cache_usage.max "}, compare.Pass, ""},
		{"a gated figure the candidate read nothing of", []results.Check{assertOn("server.prefix_cache_hit_rate.mean"), {Name: "q", Kind: "sla", Metric: "server.queue", Stat: "max"}},
			[]string{"kv_cache_usage", "prefix_cache_hit_rate"}, []string{"server.prefix_cache_hit_rate.mean inconclusive", "server.queue.max "}, compare.Inconclusive,
			"read nothing on one side: the baseline's server exposed it (vllm:gpu_prefix_cache_hits_total / vllm:gpu_prefix_cache_queries_total); the candidate's server exposed none of its engine metrics"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base, cand := scrapedResult(old, 0.5), scrapedResult(renamed, 0.25, c.checks...)
			cmp := CompareResults("base.json", base, cand, []compare.Tolerance{})
			var drift []string
			for _, d := range cmp.ServerMetricDrift {
				drift = append(drift, d.Figure)
			}
			if !slices.Equal(drift, c.drift) {
				t.Errorf("drift %v, want %v", drift, c.drift)
			}
			if s := cmp.ServerMetricDrift[0].String(); !strings.Contains(s, "vllm:kv_cache_usage_perc on the candidate's server, from vllm:gpu_cache_usage_perc on the baseline's") {
				t.Errorf("the rename reads %q", s)
			}
			if s := cmp.ServerMetricDrift[1].String(); !strings.Contains(s, "server.prefix_cache_hit_rate disappeared") {
				t.Errorf("the removal reads %q", s)
			}
			var rows []string
			for _, r := range cmp.Rows {
				if strings.HasPrefix(r.Key, "server.") {
					rows = append(rows, r.Key+" "+r.Verdict)
					if r.Verdict == compare.Inconclusive && !strings.Contains(r.Message, c.messageHas) {
						t.Errorf("row %s: message %q lacks %q", r.Key, r.Message, c.messageHas)
					}
					if r.Verdict == "" && (r.Missing || r.Base != 0.5 || r.New != 0.25) {
						t.Errorf("row %s: %+v, want both values", r.Key, r)
					}
				}
			}
			if !slices.Equal(rows, c.rows) {
				t.Errorf("rows %q, want %q", rows, c.rows)
			}
			if cmp.Verdict != c.verdict {
				t.Errorf("verdict %q, want %q", cmp.Verdict, c.verdict)
			}
		})
	}
	// Nothing scraped on one side is no evidence of a rename: no listing.
	if d := results.MetricDrifts(scrapedResult(old, 1).Summary, &metrics.Summary{}); d != nil {
		t.Errorf("drift against a run that scraped nothing: %v", d)
	}
}

func TestParseServerRef(t *testing.T) {
	for ref, want := range map[string]serverRef{
		"server.kv_cache_usage.max":      {"kv_cache_usage", "max"},
		`server["vllm:foo_total"].delta`: {"vllm:foo_total", "delta"},
		"metrics.ttft.p99":               {},
		"server.kv_cache_usage":          {},
		`server["unterminated`:           {},
	} {
		got, ok := parseServerRef(ref)
		if ok != (want != serverRef{}) || got != want {
			t.Errorf("parseServerRef(%q) = %v, %v; want %v", ref, got, ok, want)
		}
	}
}

func TestCheckServerConfigs(t *testing.T) {
	base := &results.ServerConfig{Engine: "vllm", Settings: map[string]string{"max_num_seqs": "256", "block_size": "16"}}
	cand := &results.ServerConfig{Engine: "vllm", Settings: map[string]string{"max_num_seqs": "128", "block_size": "16"}}
	cases := []struct {
		required []string
		force    bool
		ok       bool
		miss     int
	}{
		{nil, false, true, 0},
		{[]string{"block_size", "engine"}, false, true, 0},
		{[]string{"max_num_seqs"}, false, false, 1},
		{[]string{"max_num_seqs", "kv_cache_dtype"}, true, true, 2},
	}
	for _, c := range cases {
		miss, ok := CheckServerConfigs(io.Discard, "compare", base, cand, c.required, c.force)
		if ok != c.ok || len(miss) != c.miss {
			t.Errorf("%v (force %v): %v %v, want ok %v with %d mismatches", c.required, c.force, miss, ok, c.ok, c.miss)
		}
	}
	changes := results.ConfigChanges(base, cand)
	if len(changes) != 1 || changes[0].String() != "max_num_seqs 128 (baseline 256)" {
		t.Errorf("changes %v", changes)
	}
}
