package sim

import (
	"bufio"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkConcurrentStreams runs rounds of 2,000 concurrent streams (the
// client in the same process) and reports the scheduler's jitter next to the
// planned step time and the ITL clients see: with the a100 profile (its
// max_num_seqs raised to 2,048, so all 2,000 decode together: about 0.57 s
// steps) and with a decode about 10× cheaper (about 62 ms steps, 32,000
// events/s).
// Run it with -benchtime=1x.
func BenchmarkConcurrentStreams(b *testing.B) {
	base := map[string]string{"max_num_seqs": "2048", "max_num_batched_tokens": "8192", "kv_cache_tokens": "1000000"}
	b.Run("a100", func(b *testing.B) { benchStreams(b, base) })
	fast := map[string]string{"decode_compute_per_seq": "30us"}
	for k, v := range base {
		fast[k] = v
	}
	b.Run("fast-steps", func(b *testing.B) { benchStreams(b, fast) })
}

func benchStreams(b *testing.B, overrides map[string]string) {
	const streams, tokens = 2000, 40
	p, _ := LookupProfile("a100-llama3-8b")
	for k, v := range overrides {
		if err := p.Set(k, v); err != nil {
			b.Fatal(err)
		}
	}
	r, err := Listen("127.0.0.1:0", p, 1)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: streams}}
	body := `{"prompt":"a short prompt of some words","max_tokens":` + strconv.Itoa(tokens) + `,"ignore_eos":true,"stream":true}`
	var mu sync.Mutex
	var itl []time.Duration
	failed := 0
	for range b.N {
		var wg sync.WaitGroup
		for range streams {
			wg.Go(func() {
				gaps, ok := streamGaps(client, r.URL+"/v1/completions", body)
				mu.Lock()
				defer mu.Unlock()
				itl = append(itl, gaps...)
				if !ok {
					failed++
				}
			})
		}
		wg.Wait()
	}
	if failed > 0 {
		b.Fatalf("%d streams failed", failed)
	}
	st := r.Server.Stats()
	slices.Sort(itl)
	b.ReportMetric(float64(p.stepTime(streams, 0, streams*(7+tokens/2)))/1e6, "planned-step-ms")
	b.ReportMetric(float64(itl[len(itl)/2])/1e6, "client-itl-p50-ms")
	b.ReportMetric(float64(itl[len(itl)*99/100])/1e6, "client-itl-p99-ms")
	b.ReportMetric(float64(st.JitterP50)/1e6, "jitter-p50-ms")
	b.ReportMetric(float64(st.JitterP99)/1e6, "jitter-p99-ms")
	b.ReportMetric(float64(st.JitterMax)/1e6, "jitter-max-ms")
}

// streamGaps reads one stream and returns the gaps between its token events.
func streamGaps(client *http.Client, url, body string) ([]time.Duration, bool) {
	resp, err := client.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return nil, false
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	var gaps []time.Duration
	var last time.Time
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return gaps, false
		}
		if line == "data: [DONE]\n" {
			return gaps, true
		}
		if strings.HasPrefix(line, "data: ") {
			now := time.Now()
			if !last.IsZero() {
				gaps = append(gaps, now.Sub(last))
			}
			last = now
		}
	}
}

// BenchmarkAppendChunk is the per-event work of a stream: no allocations.
func BenchmarkAppendChunk(b *testing.B) {
	s := NewServer(tiny(), 1)
	c := &call{s: s, id: "cmpl-1", created: 1, q: &seq{target: 10, reason: "length"}}
	head := c.chunkHead()
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		buf = c.appendChunk(append(buf[:0], head...), 0, 1, false)
	}
}
