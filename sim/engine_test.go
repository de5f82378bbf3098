package sim

import (
	"math/rand"
	"testing"
	"time"
)

func mustProfile(t *testing.T, name string, overrides map[string]string) Profile {
	t.Helper()
	p, err := LookupProfile(name)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range overrides {
		if err := p.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// The engine never exceeds its bounds, and every request, preempted or
// not, gets exactly its tokens.
func TestEngineInvariants(t *testing.T) {
	p := mustProfile(t, "tiny", map[string]string{"kv_cache_tokens": "2100", "max_num_batched_tokens": "64", "tokens_per_event": "2"})
	rng := rand.New(rand.NewSource(7))
	e := newEngine(p)
	got := map[*seq]int{}
	var all []*seq
	for range 300 {
		s := &seq{prompt: 1 + rng.Intn(300), target: 1 + rng.Intn(200)}
		all = append(all, s)
		e.add(s)
	}
	for steps := 0; !e.idle(); steps++ {
		if steps > 1e6 {
			t.Fatal("the engine does not drain")
		}
		d, out := e.step()
		if d <= 0 {
			t.Fatalf("step %d: duration %v with work left", steps, d)
		}
		if e.kvUsed > p.KVCacheTokens || e.kvUsed < 0 {
			t.Fatalf("step %d: KV used %d of %d", steps, e.kvUsed, p.KVCacheTokens)
		}
		if len(e.running) > p.MaxNumSeqs {
			t.Fatalf("step %d: %d running, max_num_seqs %d", steps, len(e.running), p.MaxNumSeqs)
		}
		for _, o := range out {
			if o.n < 1 || o.n > p.TokensPerEvent || o.first != (got[o.s] == 0) {
				t.Fatalf("step %d: emit of %d tokens (first %v) after %d", steps, o.n, o.first, got[o.s])
			}
			got[o.s] += o.n
			if o.done != (got[o.s] == o.s.target) {
				t.Fatalf("step %d: done %v at %d of %d tokens", steps, o.done, got[o.s], o.s.target)
			}
		}
	}
	for i, s := range all {
		if got[s] != s.target {
			t.Errorf("request %d: %d tokens, want %d", i, got[s], s.target)
		}
	}
	if e.kvUsed != 0 || e.preemptions == 0 {
		t.Errorf("after draining: KV used %d (want 0), %d preemptions (this load should preempt)", e.kvUsed, e.preemptions)
	}
}

// Throughput grows with users until a bound (max_num_seqs, or the KV
// cache) holds the batch, then flattens, while TTFT grows with the queue.
func TestSaturation(t *testing.T) {
	work := []Work{{PromptTokens: 100, MaxTokens: 200, IgnoreEOS: true}, {PromptTokens: 50, MaxTokens: 300, IgnoreEOS: true}}
	tests := []struct {
		name      string
		overrides map[string]string
		bound     int // the largest user count the batch still holds
	}{
		{"max_num_seqs", map[string]string{"max_num_seqs": "32"}, 32},
		{"kv_cache", map[string]string{"kv_cache_tokens": "8400"}, 32}, // the cache holds about 42 sequences of this mix
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustProfile(t, "a100-llama3-8b", tt.overrides)
			var prev ClosedLoopResult
			for _, users := range []int{1, 2, 4, 8, 16, 24, 32, 64, 128} {
				r := SimulateClosedLoop(p, work, users, 20*users, 1)
				t.Logf("%3d users: %6.0f tok/s, TTFT p50 %v, batch %.1f", users, r.OutputTokPerSec, r.TTFTP50, r.MeanBatch)
				switch {
				case users == 1:
				case users <= tt.bound/2:
					if r.OutputTokPerSec < 1.2*prev.OutputTokPerSec {
						t.Errorf("%d users: %.0f tok/s, not clearly above %.0f at %d users", users, r.OutputTokPerSec, prev.OutputTokPerSec, prev.Users)
					}
				case users > tt.bound:
					if r.OutputTokPerSec > 1.05*prev.OutputTokPerSec {
						t.Errorf("%d users: %.0f tok/s, more than 5%% over %.0f at %d users: no flattening", users, r.OutputTokPerSec, prev.OutputTokPerSec, prev.Users)
					}
					if r.TTFTP50 < 2*prev.TTFTP50 {
						t.Errorf("%d users: TTFT p50 %v, not twice the %v at %d users: no queueing", users, r.TTFTP50, prev.TTFTP50, prev.Users)
					}
				}
				prev = r
			}
		})
	}
}

// The H100 profile, with more bandwidth and compute, beats the A100 one.
func TestH100Faster(t *testing.T) {
	work := []Work{{PromptTokens: 200, MaxTokens: 200, IgnoreEOS: true}}
	for _, users := range []int{1, 64} {
		a := SimulateClosedLoop(mustProfile(t, "a100-llama3-8b", nil), work, users, 4*users, 1)
		h := SimulateClosedLoop(mustProfile(t, "h100-llama3-8b", nil), work, users, 4*users, 1)
		if h.OutputTokPerSec < 1.4*a.OutputTokPerSec {
			t.Errorf("%d users: H100 %.0f tok/s, A100 %.0f: want at least 1.4×", users, h.OutputTokPerSec, a.OutputTokPerSec)
		}
	}
}

func TestStepTime(t *testing.T) {
	p := Profile{WeightsReadTime: 3 * time.Millisecond, DecodeComputePerSeq: 100 * time.Microsecond, StepOverhead: time.Millisecond}
	tests := []struct {
		decodes int
		want    time.Duration
	}{
		{0, 4 * time.Millisecond},         // memory alone
		{40, 6 * time.Millisecond},        // sqrt(3² + 4²) = 5, plus 1
		{400, 41112342 * time.Nanosecond}, // compute dominates: sqrt(3² + 40²) = 40.112342
	}
	for _, tt := range tests {
		if got := p.stepTime(tt.decodes, 0, 0); got != tt.want {
			t.Errorf("stepTime(%d decodes) = %v, want %v", tt.decodes, got, tt.want)
		}
	}
}

// TestPrefixCache: with prefix_caching a prompt's leading whole blocks
// that an earlier prompt computed are served from the cache (never its
// last token), prefill skips them, the hits are counted, and the least
// recently used blocks go first when the cache is full.
func TestPrefixCache(t *testing.T) {
	ids := func(from, n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = from + i
		}
		return out
	}
	// Prompts as token ids: a and b share their first 40 tokens (two
	// whole blocks), c is a again, d shares nothing.
	a := ids(0, 50)
	b := append(ids(0, 40), ids(1000, 30)...)
	d := ids(5000, 64)
	for _, tc := range []struct {
		name    string
		kv      string // kv_cache_tokens: the cache holds kv/16 blocks (of a max_model_len of 70)
		prompts [][]int
		want    []int // cached tokens per prompt, run one after another
	}{
		{"shared blocks", "4096", [][]int{a, b, a}, []int{0, 32, 48}},
		// a's 50 tokens are three whole blocks; at most its 49th token is
		// served, so three blocks would cover 48 of them.
		{"whole prompt again", "4096", [][]int{ids(0, 48), ids(0, 48)}, []int{0, 32}},
		{"nothing shared", "4096", [][]int{a, d}, []int{0, 0}},
		// A cache of five blocks: d's four evict a's first two, and a
		// chain broken at its first block finds nothing.
		{"evicted", "80", [][]int{a, d, a}, []int{0, 0, 0}},
		{"off", "", [][]int{a, a}, []int{0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := mustProfile(t, "tiny", nil)
			if tc.kv != "" {
				// In this order: each setting is checked against the others.
				for _, kv := range [][2]string{{"max_model_len", "70"}, {"kv_cache_tokens", tc.kv}, {"prefix_caching", "true"}} {
					if err := p.Set(kv[0], kv[1]); err != nil {
						t.Fatal(err)
					}
				}
			}
			e := newEngine(p)
			var hits int64
			for i, prompt := range tc.prompts {
				s := &seq{prompt: len(prompt), target: 4}
				if p.PrefixCaching {
					s.blocks = blockHashes("", prompt)
				}
				e.add(s)
				before := e.prefilled
				for !e.idle() {
					e.step()
				}
				prefill := int(e.prefilled - before)
				if s.cached != tc.want[i] {
					t.Errorf("prompt %d: %d tokens from the cache, want %d", i, s.cached, tc.want[i])
				}
				// Prefill computed just what the cache did not hold.
				if prefill != len(prompt)-s.cached {
					t.Errorf("prompt %d: prefill computed %d tokens, want %d", i, prefill, len(prompt)-s.cached)
				}
				hits += int64(tc.want[i])
			}
			if e.prefixHits != hits {
				t.Errorf("prefix hits counted %d, want %d", e.prefixHits, hits)
			}
		})
	}
}
