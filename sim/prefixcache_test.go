package sim

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestPrefixCachingAnswers: with prefix_caching each API's answer says how
// many of its prompt tokens the cache served, in the field vLLM uses, and
// /metrics counts the same hits; prompts that share a 40-word system
// message share its whole blocks, and the second answer of each pair is
// served from the first one's.
func TestPrefixCachingAnswers(t *testing.T) {
	r := startTiny(t, map[string]string{"prefix_caching": "true"})
	system := strings.Repeat("shared words of a long system message ", 5) // 40 words
	chat := func(user string) []any {
		return []any{map[string]any{"role": "system", "content": system}, map[string]any{"role": "user", "content": user}}
	}
	// The chat template adds 3 tokens before the system message's 40
	// words and 1 after: its first 32 tokens are two whole blocks, and
	// the block holding the end of turn and the user's text differs.
	const shared = 32
	tests := []struct {
		name, path string
		body       func(user string) map[string]any
		stream     bool
		cached     string // gjson path of the cached tokens in the answer's usage
	}{
		{"chat streamed", "/v1/chat/completions", func(u string) map[string]any {
			return map[string]any{"messages": chat(u), "stream": true, "stream_options": map[string]any{"include_usage": true}}
		}, true, "usage.prompt_tokens_details.cached_tokens"},
		{"chat", "/v1/chat/completions", func(u string) map[string]any { return map[string]any{"messages": chat(u)} }, false,
			"usage.prompt_tokens_details.cached_tokens"},
		{"completions", "/v1/completions", func(u string) map[string]any { return map[string]any{"prompt": "x " + system + u} }, false,
			"usage.prompt_tokens_details.cached_tokens"},
		{"responses", "/v1/responses", func(u string) map[string]any { return map[string]any{"input": chat(u)} }, false,
			"usage.input_tokens_details.cached_tokens"},
	}
	var hits int64
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []int64
			for j, user := range []string{"the first question", "another question"} {
				body := tt.body(user + " " + tt.name)
				body["max_tokens"], body["ignore_eos"] = 3, true
				if tt.path == "/v1/responses" {
					delete(body, "max_tokens")
					body["max_output_tokens"] = 3
				}
				res := post(t, r.URL+tt.path, body)
				if res.status != http.StatusOK {
					t.Fatalf("status %d: %s", res.status, res.body)
				}
				answer := res.body
				if tt.stream {
					answer = []byte(res.payloads[len(res.payloads)-2]) // the usage chunk before [DONE]
				}
				v := gjson.GetBytes(answer, tt.cached)
				if !v.Exists() {
					t.Fatalf("answer %d has no %s: %s", j, tt.cached, answer)
				}
				got = append(got, v.Int())
			}
			// The first of each pair shares the system message with the
			// pairs before it (but the completions prompt starts with
			// another word, so its blocks are its own).
			want := []int64{shared, shared}
			if i == 0 || tt.path == "/v1/completions" {
				want[0] = 0
			}
			if got[0] != want[0] || got[1] != want[1] {
				t.Errorf("cached tokens %v, want %v", got, want)
			}
			hits += got[0] + got[1]
		})
	}
	_, page := getBody(t, r.URL+"/metrics")
	want := `vllm:prefix_cache_hits_total{engine="0",model_name="sim-tiny"} ` + strconv.FormatInt(hits, 10)
	if !strings.Contains(page, want) {
		t.Errorf("/metrics lacks %q", want)
	}
}

// TestCacheSalt: as vLLM's cache_salt, a salt keys the prefix cache:
// prompts with different salts share no block, with the same salt they
// do, and an unsalted prompt finds no salted block.
func TestCacheSalt(t *testing.T) {
	r := startTiny(t, map[string]string{"prefix_caching": "true"})
	prompt := strings.Repeat("the same long prompt of many words ", 8)
	var got []int64
	for _, salt := range []string{"run-a", "run-b", "run-a", ""} {
		body := map[string]any{"prompt": prompt, "max_tokens": 2}
		if salt != "" {
			body["cache_salt"] = salt
		}
		res := post(t, r.URL+"/v1/completions", body)
		if res.status != http.StatusOK {
			t.Fatalf("status %d: %s", res.status, res.body)
		}
		got = append(got, gjson.GetBytes(res.body, "usage.prompt_tokens_details.cached_tokens").Int())
	}
	// 56 words: the third request finds three whole blocks of the first.
	if want := []int64{0, 0, 48, 0}; !slices.Equal(got, want) {
		t.Errorf("cached tokens by salt run-a, run-b, run-a, none: %v, want %v", got, want)
	}
}

// TestPerRequestMetricsQueue: as vLLM, the per-request metrics' TTFT
// counts from the request's scheduling and its queue time before that:
// with one sequence at a time, of two requests sent together one waits
// for the other's whole answer, and its queue time, not its TTFT, shows
// it.
func TestPerRequestMetricsQueue(t *testing.T) {
	r := startTiny(t, map[string]string{"per_request_metrics": "true", "max_num_seqs": "1"})
	body := map[string]any{"prompt": "a b c", "max_tokens": 40, "ignore_eos": true, "stream": true,
		"stream_options": map[string]any{"include_usage": true}}
	results := make(chan streamResult)
	for range 2 {
		go func() { results <- post(t, r.URL+"/v1/completions", body) }()
	}
	var queues, ttfts []float64
	for i := range 2 {
		res := <-results
		if res.status != http.StatusOK || len(res.payloads) < 2 {
			t.Fatalf("request %d: status %d, %d payloads", i, res.status, len(res.payloads))
		}
		m := gjson.Get(res.payloads[len(res.payloads)-2], "metrics")
		if !m.Get("queue_time_ms").Exists() || m.Get("queue_time_ms").Float() < 0 || m.Get("time_to_first_token_ms").Float() <= 0 {
			t.Fatalf("request %d: metrics %s", i, m.Raw)
		}
		queues = append(queues, m.Get("queue_time_ms").Float())
		ttfts = append(ttfts, m.Get("time_to_first_token_ms").Float())
	}
	// The one that waited did so for the other's 40 tokens: longer than
	// either's TTFT, a prefill of three tokens.
	if slices.Max(queues) <= slices.Max(ttfts) {
		t.Errorf("queue times %v ms, TTFTs %v ms: the waiting request's queue time should exceed a TTFT", queues, ttfts)
	}
}

// TestSpecAcceptance: with speculative decoding (tokens_per_event 4: three
// drafts a step and a bonus token) each sequence accepts spec_acceptance
// of its drafts, step after step; its per-request metrics report exactly
// what it drafted and accepted, and the answer is as long as asked.
func TestSpecAcceptance(t *testing.T) {
	tests := []struct {
		acceptance      string
		steps, accepted int64 // of 60 tokens
	}{
		// Every draft: 15 steps of 4 tokens.
		{"1", 15, 45},
		// Half: steps of 2, 3, 2, 3, ... tokens (1.5 drafts a step
		// accepted, in whole tokens): 24 steps, 36 of 72 drafts.
		{"0.5", 24, 36},
		// None: one token a step, the bonus.
		{"0", 60, 0},
	}
	for _, tt := range tests {
		t.Run(tt.acceptance, func(t *testing.T) {
			r := startTiny(t, map[string]string{"per_request_metrics": "true", "tokens_per_event": "4", "spec_acceptance": tt.acceptance})
			body := map[string]any{"prompt": "a b c", "max_tokens": 60, "ignore_eos": true, "stream": true,
				"stream_options": map[string]any{"include_usage": true}}
			res := post(t, r.URL+"/v1/completions", body)
			if res.status != http.StatusOK || len(res.payloads) < 2 {
				t.Fatalf("status %d, %d payloads", res.status, len(res.payloads))
			}
			last := gjson.Parse(res.payloads[len(res.payloads)-2])
			sd := last.Get("metrics.speculative_decoding")
			if got := last.Get("usage.completion_tokens").Int(); got != 60 {
				t.Errorf("%d tokens, want 60", got)
			}
			if sd.Get("num_spec_steps").Int() != tt.steps || sd.Get("num_draft_tokens").Int() != 3*tt.steps ||
				sd.Get("num_accepted_draft_tokens").Int() != tt.accepted || sd.Get("num_spec_tokens").Int() != 3 {
				t.Errorf("speculative decoding %s, want %d steps, %d drafts, %d accepted, 3 a step", sd.Raw, tt.steps, 3*tt.steps, tt.accepted)
			}
		})
	}
	p, err := LookupProfile("tiny")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Set("spec_acceptance", "1.5"); err == nil {
		err = p.Validate()
		if err == nil || !strings.Contains(err.Error(), "spec_acceptance") {
			t.Errorf("spec_acceptance 1.5: %v, want a refusal naming it", err)
		}
	}
}
