package scrape

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/llmload/llmload/metrics"
)

// exposition renders one scrape of a vLLM-like server.
func exposition(kv1, kv2, waiting, preempt float64, success string) string {
	s := `# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0"} ` + f(kv1) + `
vllm:kv_cache_usage_perc{engine="1"} ` + f(kv2) + `
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0"} ` + f(waiting) + `
# TYPE vllm:num_preemptions_total counter
vllm:num_preemptions_total ` + f(preempt) + `
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{le="+Inf"} ` + f(preempt) + `
vllm:time_to_first_token_seconds_sum ` + f(preempt*0.1) + `
vllm:time_to_first_token_seconds_count ` + f(preempt) + `
`
	if success != "" {
		s += "# TYPE vllm:request_success_total counter\nvllm:request_success_total{finished_reason=\"stop\"} " + success + "\n"
	}
	return s
}

func f(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// TestRecord feeds four scrapes, 1 s apart, through Parse and Record: KV
// usage keeps the fuller engine, the preemption counter's reset counts its
// new value, the TTFT histogram's mean comes from its sum and count, and a
// labelled counter that appears after the first scrape counts from 0.
func TestRecord(t *testing.T) {
	base := time.Unix(1000, 0)
	texts := []string{
		exposition(0.1, 0.2, 0, 10, ""),
		exposition(0.5, 0.3, 4, 12, "3"),
		exposition(0.4, 0.9, 2, 1, "5"), // the server restarted: 1 since
		exposition(0.0, 0.0, 0, 4, "6"),
	}
	var samples []Sample
	for i, text := range texts {
		fams, err := Parse(strings.NewReader(text), nil)
		if err != nil {
			t.Fatal(err)
		}
		samples = append(samples, Sample{At: base.Add(time.Duration(i)*time.Second + 100*time.Millisecond), Families: fams})
	}
	sm := Record("http://x/metrics", Config{Extras: []string{"vllm:request_success_total"}}, base, time.Second, samples, 1, "boom")
	get := func(name, stat string) float64 {
		v, ok := sm.Figures[name].Stat(stat)
		if !ok {
			t.Errorf("%s.%s has no value", name, stat)
		}
		return v
	}
	got := map[string]float64{
		"kv max":           get("kv_cache_usage", "max"),
		"kv last":          get("kv_cache_usage", "last"),
		"queue mean":       get("queue", "mean"),
		"preempt delta":    get("preemptions", "delta"),
		"ttft delta":       get("ttft", "delta"),
		"success delta":    get("vllm:request_success_total", "delta"),
		"preempt max (/s)": get("preemptions", "max"),
	}
	want := map[string]float64{
		"kv max": 0.9, "kv last": 0, "queue mean": 1.5,
		"preempt delta": 2 + 1 + 3, "ttft delta": 2 + 1 + 3,
		"success delta": 6, "preempt max (/s)": 3,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if m := get("ttft", "mean"); m < 99.999 || m > 100.001 {
		t.Errorf("ttft mean %v ms, want 100", m)
	}
	if sm.Scrapes != 4 || sm.Failures != 1 || len(sm.Series.Windows) != 4 {
		t.Errorf("scrapes %d, failures %d, windows %d", sm.Scrapes, sm.Failures, len(sm.Series.Windows))
	}

	// Two servers merge: their queues add up, KV usage keeps the fuller.
	other := Record("http://y/metrics", Config{}, base, time.Second, samples, 0, "")
	m := metrics.MergeServer(sm, other)
	if v, _ := m.Figures["queue"].Stat("mean"); v != 3 {
		t.Errorf("merged queue mean %v, want 3", v)
	}
	if v, _ := m.Figures["kv_cache_usage"].Stat("max"); v != 0.9 {
		t.Errorf("merged KV max %v, want 0.9", v)
	}
	// The same server twice is counted once.
	if v, _ := metrics.MergeServer(sm, sm).Figures["preemptions"].Stat("delta"); v != 6 {
		t.Errorf("the same server merged with itself: preemptions %v, want 6", v)
	}
}

// TestEnginePages reads /metrics pages recorded from real engines (each
// file says where it came from) through Parse and Record: the catalogue's
// server figures find each engine's own names. An engine recorded before
// and after some requests has a .before and an .after page; one found as a
// single page (in docs, an issue or another project's tests) is read after
// an empty scrape, as if the server had started just before it: a gauge's
// last value is its value on the page, a counter's delta its value, a
// histogram's mean its sum over its count (in ms) and its delta its count.
// source names the engine metric each figure must have been read from.
func TestEnginePages(t *testing.T) {
	wanted := map[string]bool{} // as Start builds it
	for _, n := range Wanted() {
		wanted[n] = true
	}
	for _, tc := range []struct {
		engine string
		single bool               // one page, read after an empty scrape
		want   map[string]float64 // figure.stat
		source map[string]string  // figure -> the engine metric read
	}{
		// Three 16-token completions of one 5-token prompt: 5 + 1 + 1
		// prompt tokens evaluated, 4 + 4 from the cache (llama.cpp keeps
		// the last prompt token to evaluate again), 48 generated, and
		// nothing running or deferred once they were done.
		{engine: "llamacpp-b1-80fb11a", want: map[string]float64{
			"prompt_tokens.delta": 7, "prefix_cache_hits.delta": 8, "generation_tokens.delta": 48,
			"prompt_tokens_cached.delta": 8, // the same counter: llama.cpp has one cache
			"requests_running.last":      0, "queue.last": 0,
		}, source: map[string]string{
			"prefix_cache_hits": "llamacpp:prompt_tokens_cached_total", "prompt_tokens_cached": "llamacpp:prompt_tokens_cached_total",
		}},
		// A vLLM page of September 2026 (version not stated), with
		// speculative decoding on: every name of today's vLLM the
		// catalogue reads, none of the deprecated ones. Its ITL histogram
		// counts 17807 observations, as many as its spec_decode drafts,
		// for 44995 generated tokens: one per engine step, however many
		// tokens the step produced. Its local_cache_hit tokens
		// (prompt_tokens_by_source) are its prefix-cache hits, and with no
		// external cache hits prompt_tokens_cached is the same count.
		{engine: "vllm-2026-09", single: true, want: map[string]float64{
			"kv_cache_usage.last":        0,       // vllm:kv_cache_usage_perc 0.0
			"requests_running.last":      0,       // vllm:num_requests_running 0.0
			"queue.last":                 0,       // vllm:num_requests_waiting 0.0
			"preemptions.delta":          0,       // vllm:num_preemptions_total 0.0
			"prefix_cache_queries.delta": 3675428, // vllm:prefix_cache_queries_total 3.675428e+06
			"prefix_cache_hits.delta":    3241216, // vllm:prefix_cache_hits_total 3.241216e+06
			"prefix_cache_hit_rate.mean": ratio(3241216, 3675428),
			"prompt_tokens_cached.delta": 3241216, // vllm:prompt_tokens_cached_total 3.241216e+06
			"prompt_tokens.delta":        3675428, // vllm:prompt_tokens_total 3.675428e+06
			"generation_tokens.delta":    44995,   // vllm:generation_tokens_total 44995.0
			"ttft.delta":                 26,      // _count 26.0
			"ttft.mean":                  ms(417.90156173706055, 26),
			"itl.delta":                  17807, // _count 17807.0
			"itl.mean":                   ms(1419.8547863351414, 17807),
			"tpot.delta":                 26, // _count 26.0
			"tpot.mean":                  ms(0.6654860103620512, 26),
			"e2el.delta":                 26, // _count 26.0
			"e2el.mean":                  ms(1837.7475888729095, 26),
		}, source: map[string]string{
			"kv_cache_usage": "vllm:kv_cache_usage_perc", "requests_running": "vllm:num_requests_running",
			"queue": "vllm:num_requests_waiting", "preemptions": "vllm:num_preemptions_total",
			"prefix_cache_queries": "vllm:prefix_cache_queries_total", "prefix_cache_hits": "vllm:prefix_cache_hits_total",
			"prefix_cache_hit_rate": "vllm:prefix_cache_hits_total / vllm:prefix_cache_queries_total",
			"prompt_tokens_cached":  "vllm:prompt_tokens_cached_total", "prompt_tokens": "vllm:prompt_tokens_total",
			"generation_tokens": "vllm:generation_tokens_total", "ttft": "vllm:time_to_first_token_seconds",
			"itl": "vllm:inter_token_latency_seconds", "tpot": "vllm:request_time_per_output_token_seconds",
			"e2el": "vllm:e2e_request_latency_seconds",
		}},
		// vLLM 0.10.0 served the new names beside the deprecated ones; the
		// new ones win. The excerpt ends before vllm:prefix_cache_hits_total,
		// so hits fall back to the deprecated gpu_ counter (0.0 on the page),
		// and no pair of hits and queries is whole: no hit rate.
		{engine: "vllm-0.10.0", single: true, want: map[string]float64{
			"kv_cache_usage.last":        9.75010481363281e-06, // vllm:kv_cache_usage_perc
			"prefix_cache_queries.delta": 32,                   // vllm:prefix_cache_queries_total 32.0
			"prefix_cache_hits.delta":    0,                    // vllm:gpu_prefix_cache_hits_total 0.0
		}, source: map[string]string{
			"kv_cache_usage": "vllm:kv_cache_usage_perc", "prefix_cache_queries": "vllm:prefix_cache_queries_total",
			"prefix_cache_hits": "vllm:gpu_prefix_cache_hits_total", "prefix_cache_hit_rate": "",
		}},
		// SGLang's late-2024 page: per-token latency still under its old name
		// sglang:time_per_output_token_seconds, read as itl.
		{engine: "sglang-docs-00b08c4", single: true, want: map[string]float64{
			"kv_cache_usage.last":        0.28,    // sglang:token_usage
			"requests_running.last":      162,     // sglang:num_running_reqs 162.0
			"queue.last":                 2826,    // sglang:num_queue_reqs 2826.0
			"prompt_tokens.delta":        8128902, // sglang:prompt_tokens_total 8.128902e+06
			"prefix_cache_queries.delta": 8128902, // the same counter: SGLang counts no lookups
			"generation_tokens.delta":    7557572, // sglang:generation_tokens_total 7.557572e+06
			"ttft.delta":                 11008,   // _count 11008.0
			"ttft.mean":                  ms(2.3518979474117756e+06, 11008),
			"e2el.delta":                 11228, // _count 11228.0
			"e2el.mean":                  ms(3.116093850019932e+06, 11228),
			"itl.delta":                  7400757, // _count 7.400757e+06
			"itl.mean":                   ms(866964.5791549598, 7400757),
		}, source: map[string]string{
			"itl": "sglang:time_per_output_token_seconds", "kv_cache_usage": "sglang:token_usage",
			"preemptions": "", "prefix_cache_hits": "", // no retraction or cached-token counter yet
		}},
		// Triton's TensorRT-LLM backend (late 2023): one gauge family of
		// request counts and one of KV-cache blocks, told apart by a label.
		// The requests scheduled in the iteration are the running batch
		// (its active count also holds the requests waiting in the batch
		// manager, and reads 0 here beside 1 scheduled: the stats are set
		// once per iteration, not when idle); KV usage is used over max
		// blocks, as the backend's own later "fraction" is. Nothing on the
		// page counts waiting requests or tokens.
		{engine: "triton-trtllm-3a61c37", single: true, want: map[string]float64{
			"requests_running.last": 1,              // request_type="scheduled" 1
			"kv_cache_usage.last":   ratio(1, 6239), // kv_cache_block_type="used" 1, "max" 6239
		}, source: map[string]string{
			"requests_running": `nv_trt_llm_request_metrics{request_type="scheduled"}`,
			"kv_cache_usage":   `nv_trt_llm_kv_cache_block_metrics{kv_cache_block_type="used"} / nv_trt_llm_kv_cache_block_metrics{kv_cache_block_type="max"}`,
			"queue":            "", "prompt_tokens": "", "generation_tokens": "",
		}},
		// Dynamo's frontend: per-token ITL, and prompt tokens from the sum
		// of its per-request input-length histogram. Its inflight gauge
		// counts queued requests too, so it is no requests_running.
		{engine: "dynamo-frontend", single: true, want: map[string]float64{
			"itl.delta":                  16637145, // _count 16637145
			"itl.mean":                   ms(813545.702521758, 16637145),
			"prompt_tokens.delta":        18408629, // dynamo_frontend_input_sequence_tokens_sum 18408629
			"prefix_cache_queries.delta": 18408629,
		}, source: map[string]string{
			"itl": "dynamo_frontend_inter_token_latency_seconds", "prompt_tokens": "dynamo_frontend_input_sequence_tokens",
			"requests_running": "",
		}},
	} {
		t.Run(tc.engine, func(t *testing.T) {
			base := time.Unix(1000, 0)
			pages := []string{".before.metrics", ".after.metrics"}
			if tc.single {
				pages = []string{"", ".metrics"}
			}
			var samples []Sample
			for i, page := range pages {
				fams := map[string]metrics.Family{}
				if page != "" {
					b, err := os.ReadFile(filepath.Join("testdata", tc.engine+page))
					if err != nil {
						t.Fatal(err)
					}
					if fams, err = Parse(bytes.NewReader(b), wanted); err != nil {
						t.Fatalf("%s: %v", page, err)
					}
				}
				samples = append(samples, Sample{At: base.Add(time.Duration(i) * time.Second), Families: fams})
			}
			sm := Record("http://x/metrics", Config{}, base, time.Second, samples, 0, "")
			got := map[string]float64{}
			for key := range tc.want {
				name, stat, _ := strings.Cut(key, ".")
				v, ok := sm.Figures[name].Stat(stat)
				if !ok {
					t.Errorf("%s has no value: the catalogue does not read %s's name for it", key, tc.engine)
				}
				got[key] = v
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			for name, want := range tc.source {
				if got := sm.Figures[name].Source; got != want {
					t.Errorf("%s read from %q, want %q", name, got, want)
				}
			}
		})
	}
}

// TestParseSelectors: a wanted name{label="value"} keeps, under that key,
// the series of the family that carry the value, and the family itself
// only when it is wanted too; a value no series carries gives no key; nil
// keeps every family and every label value of it.
func TestParseSelectors(t *testing.T) {
	page := `# TYPE g gauge
g{kind="a",m="x"} 1
g{kind="a",m="y"} 2
g{kind="b",m="x"} 4
# TYPE c counter
c{kind="a"} 8
`
	fams, err := Parse(strings.NewReader(page), map[string]bool{`g{kind="a"}`: true, `g{kind="z"}`: true, `c_total{kind="a"}`: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for k, f := range fams {
		got[k] = f.Sum
	}
	if diff := cmp.Diff(map[string]float64{`g{kind="a"}`: 3, `c_total{kind="a"}`: 8}, got); diff != "" {
		t.Errorf("wanted selectors (-want +got):\n%s", diff)
	}
	if fams, err = Parse(strings.NewReader(page), nil); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]float64{"g": 7, `g{kind="b"}`: 4, `g{m="x"}`: 5, "c_total": 8, `c{kind="a"}`: 8, `c_total{kind="a"}`: 8} {
		if f, ok := fams[k]; !ok || f.Sum != want {
			t.Errorf("nil wants all: %s = %v (%v), want %v", k, f.Sum, ok, want)
		}
	}
}

// TestGaugeRatio: a gauge read as the ratio of two (Triton's used over max
// KV-cache blocks) takes their quotient at each scrape, and no sample when
// the whole is 0 or missing.
func TestGaugeRatio(t *testing.T) {
	page := func(used, most string) string {
		s := "# TYPE nv_trt_llm_kv_cache_block_metrics gauge\n" +
			`nv_trt_llm_kv_cache_block_metrics{kv_cache_block_type="used",model="m",version="1"} ` + used + "\n"
		if most != "" {
			s += `nv_trt_llm_kv_cache_block_metrics{kv_cache_block_type="max",model="m",version="1"} ` + most + "\n"
		}
		return s
	}
	base := time.Unix(1000, 0)
	var samples []Sample
	for i, text := range []string{page("2", "8"), page("0", "0"), page("3", ""), page("4", "8")} {
		fams, err := Parse(strings.NewReader(text), nil)
		if err != nil {
			t.Fatal(err)
		}
		samples = append(samples, Sample{At: base.Add(time.Duration(i) * time.Second), Families: fams})
	}
	f := Record("http://x/metrics", Config{}, base, time.Second, samples, 0, "").Figures["kv_cache_usage"]
	last, _ := f.Stat("last")
	mean, _ := f.Stat("mean")
	if f.Samples != 2 || last != 0.5 || mean != 0.375 {
		t.Errorf("kv_cache_usage: %d samples, last %v, mean %v; want 2, 0.5, 0.375", f.Samples, last, mean)
	}
}

// ratio is a quotient as the recorder computes it: a hit rate from its
// counters' increases, a KV usage from used and max blocks.
func ratio(hits, queries float64) float64 { return hits / queries }

// ms is a histogram's mean in ms from its sum (s) and count, computed as
// the recorder does (a constant expression would round differently).
func ms(sum, count float64) float64 { return sum * 1000 / count }

// TestTRTLLMNames: no /metrics page recorded from TensorRT-LLM was found
// (docs/engines.md), so this page is written from the names its
// MetricsCollector registers (tensorrt_llm/metrics/collector.py), not
// recorded, with made-up values. It checks what the names alone decide:
// trtllm_time_per_output_token_seconds, one observation per request, is
// read as the server's TPOT and never as its ITL, whose observations are
// per output step (per token without speculative decoding); and the KV
// utilization gauge is already a fraction.
func TestTRTLLMNames(t *testing.T) {
	page := `# TYPE trtllm_time_per_output_token_seconds histogram
trtllm_time_per_output_token_seconds_sum{model_name="m",engine_type="trtllm"} 0.06
trtllm_time_per_output_token_seconds_count{model_name="m",engine_type="trtllm"} 3
# TYPE trtllm_kv_cache_utilization gauge
trtllm_kv_cache_utilization{model_name="m",engine_type="trtllm"} 0.25
# TYPE trtllm_prompt_tokens_total counter
trtllm_prompt_tokens_total{model_name="m",engine_type="trtllm"} 100
# TYPE trtllm_prompt_cached_tokens_total counter
trtllm_prompt_cached_tokens_total{model_name="m",engine_type="trtllm"} 40
`
	fams, err := Parse(strings.NewReader(page), nil)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Unix(1000, 0)
	samples := []Sample{{At: base, Families: map[string]metrics.Family{}}, {At: base.Add(time.Second), Families: fams}}
	sm := Record("http://x/metrics", Config{}, base, time.Second, samples, 0, "")
	if _, ok := sm.Figures["itl"]; ok {
		t.Errorf("itl read from %s: a per-request TPOT is not a per-token latency", sm.Figures["itl"].Source)
	}
	got := map[string]float64{}
	for _, key := range []string{"tpot.mean", "kv_cache_usage.last", "prefix_cache_hit_rate.mean", "prompt_tokens_cached.delta"} {
		name, stat, _ := strings.Cut(key, ".")
		got[key], _ = sm.Figures[name].Stat(stat)
	}
	want := map[string]float64{
		"tpot.mean":                  ms(0.06, 3),
		"kv_cache_usage.last":        0.25,
		"prefix_cache_hit_rate.mean": 40.0 / 100,
		"prompt_tokens_cached.delta": 40,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestNewerEngineNames reads, from pages written after the engines'
// sources (values made up, each wanted figure following from them), what
// the recorded pages cannot show: SGLang's retractions as preemptions and
// its cached tokens summed over every cache_source (the recorded SGLang
// page predates both names); and vLLM's waiting gauge beside the
// by-reason split that sums to it, not double counted (the September 2026
// vLLM page serves both, but with nothing waiting: 0 either way). Its
// other newer names (vllm:prompt_tokens_cached_total,
// vllm:prefix_cache_hits_total) are read from that recorded page in
// TestEnginePages.
func TestNewerEngineNames(t *testing.T) {
	for _, tc := range []struct {
		engine, page string
		want         map[string]float64
	}{
		{"vllm", `# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="m"} 5
# TYPE vllm:num_requests_waiting_by_reason gauge
vllm:num_requests_waiting_by_reason{engine="0",model_name="m",reason="capacity"} 3
vllm:num_requests_waiting_by_reason{engine="0",model_name="m",reason="deferred"} 2
`, map[string]float64{"queue.last": 5}},
		{"sglang", `# TYPE sglang:num_retracted_requests_total counter
sglang:num_retracted_requests_total{model_name="m"} 7
# TYPE sglang:cached_tokens_total counter
sglang:cached_tokens_total{model_name="m",cache_source="device"} 100
sglang:cached_tokens_total{model_name="m",cache_source="host"} 20
sglang:cached_tokens_total{model_name="m",cache_source="storage_file"} 3
# TYPE sglang:prompt_tokens_total counter
sglang:prompt_tokens_total{model_name="m"} 246
`, map[string]float64{"preemptions.delta": 7, "prompt_tokens_cached.delta": 123, "prefix_cache_hits.delta": 123, "prefix_cache_hit_rate.mean": 0.5}},
	} {
		t.Run(tc.engine, func(t *testing.T) {
			fams, err := Parse(strings.NewReader(tc.page), nil)
			if err != nil {
				t.Fatal(err)
			}
			base := time.Unix(1000, 0)
			samples := []Sample{{At: base, Families: map[string]metrics.Family{}}, {At: base.Add(time.Second), Families: fams}}
			sm := Record("http://x/metrics", Config{}, base, time.Second, samples, 0, "")
			got := map[string]float64{}
			for key := range tc.want {
				name, stat, _ := strings.Cut(key, ".")
				got[key], _ = sm.Figures[name].Stat(stat)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
