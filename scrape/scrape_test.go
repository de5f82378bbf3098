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
// server figures find each engine's own names.
func TestEnginePages(t *testing.T) {
	for _, tc := range []struct {
		engine string
		want   map[string]float64 // figure.stat
	}{
		// Three 16-token completions of one 5-token prompt: 5 + 1 + 1
		// prompt tokens evaluated, 4 + 4 from the cache (llama.cpp keeps
		// the last prompt token to evaluate again), 48 generated, and
		// nothing running or deferred once they were done.
		{"llamacpp-b1-80fb11a", map[string]float64{
			"prompt_tokens.delta": 7, "prefix_cache_hits.delta": 8, "generation_tokens.delta": 48,
			"requests_running.last": 0, "queue.last": 0,
		}},
	} {
		t.Run(tc.engine, func(t *testing.T) {
			base := time.Unix(1000, 0)
			var samples []Sample
			for i, page := range []string{"before", "after"} {
				b, err := os.ReadFile(filepath.Join("testdata", tc.engine+"."+page+".metrics"))
				if err != nil {
					t.Fatal(err)
				}
				fams, err := Parse(bytes.NewReader(b), nil)
				if err != nil {
					t.Fatalf("%s: %v", page, err)
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
		})
	}
}
