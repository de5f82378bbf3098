package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func ptr[T any](v T) *T { return &v }

func TestStreamFormat(t *testing.T) {
	r := startTiny(t, map[string]string{"tokens_per_event": "3"})
	prompt := "one two three four five six seven eight nine ten"
	tests := []struct {
		name       string
		path       string
		body       map[string]any
		wantObject string
		wantPrompt int
		wantTokens int
		wantEvents int
	}{
		{
			name:       "completions",
			path:       "/v1/completions",
			body:       map[string]any{"prompt": prompt, "max_tokens": 20, "ignore_eos": true, "stream": true, "stream_options": map[string]any{"include_usage": true}},
			wantObject: "text_completion",
			wantPrompt: 10, // one token per short word
			wantTokens: 20,
			wantEvents: 7, // 3 tokens per event: 6 × 3 + 2
		},
		{
			name: "chat",
			path: "/v1/chat/completions",
			body: map[string]any{
				"model":                 "sim-tiny",
				"messages":              []any{map[string]any{"role": "system", "content": "be brief"}, map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": prompt}}}},
				"max_completion_tokens": 9, "max_tokens": 50, "ignore_eos": true, "stream": true,
				"stream_options": map[string]any{"include_usage": true},
			},
			wantObject: "chat.completion.chunk",
			wantPrompt: 2 + 4 + 10 + 4, // one token per short word, plus 4 per message
			wantTokens: 9,
			wantEvents: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := post(t, r.URL+tt.path, tt.body)
			if res.status != http.StatusOK || res.readErr != nil {
				t.Fatalf("status %d, read error %v, body %s", res.status, res.readErr, res.body)
			}
			if !res.done || res.payloads[len(res.payloads)-1] != "[DONE]" {
				t.Fatalf("the stream does not end with [DONE]: %q", res.payloads)
			}
			if res.malformed != 0 {
				t.Errorf("%d malformed payloads", res.malformed)
			}
			chunks := res.chunks
			for i, c := range chunks {
				if c.ID != chunks[0].ID || c.Object != tt.wantObject || c.Model != "sim-tiny" || c.Created == 0 {
					t.Errorf("chunk %d: id %q object %q model %q created %d; want id %q, object %q", i, c.ID, c.Object, c.Model, c.Created, chunks[0].ID, tt.wantObject)
				}
			}
			if tt.path == "/v1/chat/completions" {
				first := chunks[0].Choices[0].Delta
				if first == nil || first.Role == nil || *first.Role != "assistant" || first.Content == nil || *first.Content != "" {
					t.Errorf("first chat chunk is not a role-only delta: %s", res.payloads[0])
				}
			}
			last := chunks[len(chunks)-1]
			if len(last.Choices) != 0 || last.Usage == nil {
				t.Fatalf("last chunk is not a usage-only chunk: %s", res.payloads[len(res.payloads)-2])
			}
			text, events := res.text()
			want := usage{PromptTokens: tt.wantPrompt, CompletionTokens: tt.wantTokens, TotalTokens: tt.wantPrompt + tt.wantTokens}
			if diff := cmp.Diff(want, *last.Usage); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
			if got := len(strings.Fields(text)); got != last.Usage.CompletionTokens {
				t.Errorf("streamed %d tokens, usage says %d", got, last.Usage.CompletionTokens)
			}
			if events != tt.wantEvents {
				t.Errorf("%d content events, want %d", events, tt.wantEvents)
			}
			var reasons []string
			for _, c := range chunks {
				for _, ch := range c.Choices {
					if ch.FinishReason != nil {
						reasons = append(reasons, *ch.FinishReason)
					}
				}
			}
			if diff := cmp.Diff([]string{"length"}, reasons); diff != "" {
				t.Errorf("finish reasons (-want +got):\n%s", diff)
			}
		})
	}
}

// Without ignore_eos, replies end on their own ("stop") before max_tokens
// some of the time, and never exceed it.
func TestEOS(t *testing.T) {
	r := startTiny(t, nil)
	const maxTokens = 24 // tiny's mean natural length is 16
	reasons := map[string]int{}
	for range 30 {
		res := post(t, r.URL+"/v1/completions", map[string]any{"prompt": "hi", "max_tokens": maxTokens, "stream": true, "stream_options": map[string]any{"include_usage": true}})
		if res.readErr != nil || len(res.chunks) < 2 {
			t.Fatalf("status %d, %v, %q", res.status, res.readErr, res.payloads)
		}
		text, _ := res.text()
		n := len(strings.Fields(text))
		u := res.chunks[len(res.chunks)-1].Usage
		reason := *res.chunks[len(res.chunks)-2].Choices[0].FinishReason
		reasons[reason]++
		if u.CompletionTokens != n || n > maxTokens || (reason == "length") != (n == maxTokens) {
			t.Errorf("%d tokens streamed, usage %d, finish_reason %q, max_tokens %d", n, u.CompletionTokens, reason, maxTokens)
		}
	}
	if reasons["stop"] == 0 || reasons["length"] == 0 {
		t.Errorf("finish reasons %v: want both stop and length", reasons)
	}
}

func TestNonStream(t *testing.T) {
	r := startTiny(t, nil)
	tests := []struct {
		path string
		body map[string]any
		want map[string]any
	}{
		{
			path: "/v1/completions",
			body: map[string]any{"prompt": []int{1, 2, 3, 4, 5}, "max_tokens": 6, "ignore_eos": true},
			want: map[string]any{"object": "text_completion", "model": "sim-tiny",
				"choices": []any{map[string]any{"index": 0.0, "logprobs": nil, "finish_reason": "length", "stop_reason": nil, "text": "<6 tokens>"}},
				"usage":   map[string]any{"prompt_tokens": 5.0, "completion_tokens": 6.0, "total_tokens": 11.0}},
		},
		{
			path: "/v1/chat/completions",
			body: map[string]any{"messages": []any{map[string]any{"role": "user", "content": "hello there"}}, "max_tokens": 4, "ignore_eos": true},
			want: map[string]any{"object": "chat.completion", "model": "sim-tiny",
				"choices": []any{map[string]any{"index": 0.0, "logprobs": nil, "finish_reason": "length", "message": map[string]any{"role": "assistant", "content": "<4 tokens>"}}},
				"usage":   map[string]any{"prompt_tokens": 6.0, "completion_tokens": 4.0, "total_tokens": 10.0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			res := post(t, r.URL+tt.path, tt.body)
			if res.status != http.StatusOK {
				t.Fatalf("status %d: %s", res.status, res.body)
			}
			var got map[string]any
			if err := json.Unmarshal(res.body, &got); err != nil {
				t.Fatalf("%v: %s", err, res.body)
			}
			if id, _ := got["id"].(string); id == "" {
				t.Errorf("no id in %s", res.body)
			}
			if created, _ := got["created"].(float64); created == 0 {
				t.Errorf("no created in %s", res.body)
			}
			delete(got, "id")
			delete(got, "created")
			// Replace the generated text by its token count.
			choice := got["choices"].([]any)[0].(map[string]any)
			if text, ok := choice["text"].(string); ok {
				choice["text"] = "<" + strconv.Itoa(len(strings.Fields(text))) + " tokens>"
			}
			if msg, ok := choice["message"].(map[string]any); ok {
				msg["content"] = "<" + strconv.Itoa(len(strings.Fields(msg["content"].(string)))) + " tokens>"
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	r := startTiny(t, nil)
	long := strings.Repeat(" word", 2100) // 2,100 tokens > max_model_len 2,048
	tests := []struct {
		name       string
		path       string
		body       any
		wantStatus int
		wantParam  any
	}{
		{"bad JSON", "/v1/completions", "not an object", 400, nil},
		{"unknown model", "/v1/completions", map[string]any{"model": "gpt-9", "prompt": "hi"}, 404, "model"},
		{"no prompt", "/v1/completions", map[string]any{"max_tokens": 3}, 400, "prompt"},
		{"no messages", "/v1/chat/completions", map[string]any{"messages": []any{}}, 400, "messages"},
		{"zero max_tokens", "/v1/completions", map[string]any{"prompt": "hi", "max_tokens": 0}, 400, "max_tokens"},
		{"prompt too long", "/v1/completions", map[string]any{"prompt": long}, 400, "messages"},
		{"context too long", "/v1/completions", map[string]any{"prompt": "hi there", "max_tokens": 2047}, 400, "max_tokens"}, // 2 + 2,047 > 2,048
		{"negative token id", "/detokenize", map[string]any{"tokens": []int{1, -1}}, 400, "tokens"},
		{"token id past the specials", "/detokenize", map[string]any{"tokens": []int{eotID + 1}}, 400, "tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := post(t, r.URL+tt.path, tt.body)
			var got struct {
				Error struct {
					Message string `json:"message"`
					Type    string `json:"type"`
					Param   any    `json:"param"`
					Code    int    `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(res.body, &got); err != nil {
				t.Fatalf("status %d, body %q: %v", res.status, res.body, err)
			}
			if res.status != tt.wantStatus || got.Error.Code != tt.wantStatus || got.Error.Message == "" || got.Error.Type == "" || got.Error.Param != tt.wantParam {
				t.Errorf("status %d, error %+v; want status %d, param %v", res.status, got.Error, tt.wantStatus, tt.wantParam)
			}
		})
	}
}

func TestTokenize(t *testing.T) {
	r := startTiny(t, nil)
	prompt := "The quick brown fox jumps over the lazy dog"
	var tok struct {
		Tokens      []int `json:"tokens"`
		Count       int   `json:"count"`
		MaxModelLen int   `json:"max_model_len"`
	}
	res := post(t, r.URL+"/tokenize", map[string]any{"model": "sim-tiny", "prompt": prompt})
	if err := json.Unmarshal(res.body, &tok); err != nil || res.status != 200 {
		t.Fatalf("status %d, %s: %v", res.status, res.body, err)
	}
	gen := post(t, r.URL+"/v1/completions", map[string]any{"prompt": prompt, "max_tokens": 1, "stream": true, "stream_options": map[string]any{"include_usage": true}})
	if len(gen.chunks) == 0 || gen.chunks[len(gen.chunks)-1].Usage == nil {
		t.Fatalf("no usage chunk: %q", gen.payloads)
	}
	want := gen.chunks[len(gen.chunks)-1].Usage.PromptTokens
	if tok.Count != want || len(tok.Tokens) != want || tok.MaxModelLen != 2048 {
		t.Errorf("tokenize: count %d, %d ids, max_model_len %d; want %d tokens (as usage counts), 2048", tok.Count, len(tok.Tokens), tok.MaxModelLen, want)
	}

	// Chat messages count as the chat endpoint counts them.
	msgs := []any{map[string]any{"role": "user", "content": prompt}}
	res = post(t, r.URL+"/tokenize", map[string]any{"messages": msgs})
	if err := json.Unmarshal(res.body, &tok); err != nil {
		t.Fatal(err)
	}
	chat := post(t, r.URL+"/v1/chat/completions", map[string]any{"messages": msgs, "max_tokens": 1})
	var cr struct{ Usage usage }
	if err := json.Unmarshal(chat.body, &cr); err != nil {
		t.Fatal(err)
	}
	if tok.Count != cr.Usage.PromptTokens {
		t.Errorf("tokenize messages: count %d, chat usage prompt_tokens %d", tok.Count, cr.Usage.PromptTokens)
	}

	// The chat ids detokenize to text, special tokens included, that
	// tokenizes back to the same ids.
	if got := tokenizeIDs(t, r.URL, detokenizeIDs(t, r.URL, tok.Tokens)); !slices.Equal(got, tok.Tokens) {
		t.Errorf("tokenize(detokenize(chat ids)):\n got %v\nwant %v", got, tok.Tokens)
	}
}

// A client can build a prompt of an exact token count from /detokenize of
// that many ids (the random dataset with tokenizer = "server"): /tokenize
// and usage.prompt_tokens both count exactly that many.
func TestExactLengthPrompt(t *testing.T) {
	r := startTiny(t, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 17, 309, 2000} {
		ids := make([]int, n)
		for i := range ids {
			ids[i] = rng.IntN(startHeaderID)
		}
		prompt := detokenizeIDs(t, r.URL, ids)
		if got := tokenizeIDs(t, r.URL, prompt); !slices.Equal(got, ids) {
			t.Errorf("%d ids: /tokenize of their text gives %d ids, not the same", n, len(got))
		}
		res := post(t, r.URL+"/v1/completions", map[string]any{"prompt": prompt, "max_tokens": 1, "stream": true, "stream_options": map[string]any{"include_usage": true}})
		if len(res.chunks) == 0 || res.chunks[len(res.chunks)-1].Usage == nil {
			t.Fatalf("%d ids: no usage chunk: status %d %q", n, res.status, res.payloads)
		}
		if got := res.chunks[len(res.chunks)-1].Usage.PromptTokens; got != n {
			t.Errorf("%d ids: usage.prompt_tokens = %d", n, got)
		}
	}
}

// tokenizeIDs is /tokenize's ids for a prompt.
func tokenizeIDs(t *testing.T, url, prompt string) []int {
	t.Helper()
	var tok struct {
		Tokens []int `json:"tokens"`
		Count  int   `json:"count"`
	}
	res := post(t, url+"/tokenize", map[string]any{"prompt": prompt})
	if err := json.Unmarshal(res.body, &tok); err != nil || res.status != 200 || tok.Count != len(tok.Tokens) {
		t.Fatalf("/tokenize: status %d, %s: %v", res.status, res.body, err)
	}
	return tok.Tokens
}

// detokenizeIDs is /detokenize's text for ids.
func detokenizeIDs(t *testing.T, url string, ids []int) string {
	t.Helper()
	var detok struct {
		Prompt string `json:"prompt"`
	}
	res := post(t, url+"/detokenize", map[string]any{"tokens": ids})
	if err := json.Unmarshal(res.body, &detok); err != nil || res.status != 200 {
		t.Fatalf("/detokenize: status %d, %s: %v", res.status, res.body, err)
	}
	return detok.Prompt
}

func TestModelsHealthMetrics(t *testing.T) {
	r := startTiny(t, nil)
	if code, body := getBody(t, r.URL+"/health"); code != 200 {
		t.Errorf("/health: %d %s", code, body)
	}
	code, body := getBody(t, r.URL+"/v1/models")
	var models struct {
		Object string `json:"object"`
		Data   []struct {
			ID     string `json:"id"`
			Object string `json:"object"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(body), &models); err != nil || code != 200 {
		t.Fatalf("/v1/models: %d %s %v", code, body, err)
	}
	if models.Object != "list" || len(models.Data) != 1 || models.Data[0].ID != "sim-tiny" || models.Data[0].Object != "model" {
		t.Errorf("/v1/models: %s", body)
	}

	post(t, r.URL+"/v1/completions", map[string]any{"prompt": "a b c", "max_tokens": 5, "ignore_eos": true})
	_, metrics := getBody(t, r.URL+"/metrics")
	for _, want := range []string{
		`vllm:num_requests_running{engine="0",model_name="sim-tiny"} 0`,
		`vllm:num_requests_waiting{engine="0",model_name="sim-tiny"} 0`,
		`vllm:kv_cache_usage_perc{engine="0",model_name="sim-tiny"} 0`,
		`vllm:prompt_tokens_total{engine="0",model_name="sim-tiny"} 3`,
		`vllm:generation_tokens_total{engine="0",model_name="sim-tiny"} 5`,
		`vllm:request_success_total{engine="0",finished_reason="length",model_name="sim-tiny"} 1`,
		`vllm:time_to_first_token_seconds_count{engine="0",model_name="sim-tiny"} 1`,
		`vllm:inter_token_latency_seconds_count{engine="0",model_name="sim-tiny"} 4`,
		`vllm:request_time_per_output_token_seconds_count{engine="0",model_name="sim-tiny"} 1`,
		`vllm:e2e_request_latency_seconds_count{engine="0",model_name="sim-tiny"} 1`,
		`vllm:prefix_cache_queries_total{engine="0",model_name="sim-tiny"} 3`,
		`vllm:prefix_cache_hits_total{engine="0",model_name="sim-tiny"} 0`,
		`# TYPE vllm:num_preemptions_total counter`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

// A client that goes away frees its sequence and its KV cache at once;
// with the leak_on_disconnect fault the engine goes on generating it,
// holding both.
func TestClientGone(t *testing.T) {
	for _, leak := range []bool{false, true} {
		t.Run(fmt.Sprintf("leak_on_disconnect=%v", leak), func(t *testing.T) {
			r := startTiny(t, map[string]string{"leak_on_disconnect": strconv.FormatBool(leak)})
			ctx, cancel := context.WithCancel(context.Background())
			req, err := http.NewRequestWithContext(ctx, "POST", r.URL+"/v1/completions",
				strings.NewReader(`{"prompt":"x","max_tokens":2000,"ignore_eos":true,"stream":true}`))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := resp.Body.Read(make([]byte, 512)); err != nil {
				t.Fatal(err)
			}
			if st := r.Server.Stats(); st.Running != 1 || st.KVUsed == 0 {
				t.Fatalf("running = %d, KV used %d while streaming; want 1 and some", st.Running, st.KVUsed)
			}
			cancel()
			resp.Body.Close()
			if leak {
				// Once the handler has seen the client leave, the sequence
				// stays, holding its cache, and no longer runs: the engine's
				// steps stop. When the handler sees it is the machine's
				// business, so the test waits (up to 5 s) for a quiet
				// 200 ms: no step while the sequence is still there. Had
				// the sequence been freed, running would drop to 0; had it
				// gone on running, the steps would go on (its 2,000 tokens
				// take over 2 s) until it finished and left.
				deadline := time.Now().Add(5 * time.Second)
				for {
					before := r.Server.Stats()
					time.Sleep(200 * time.Millisecond)
					st := r.Server.Stats()
					if st.Running == 1 && st.KVUsed != 0 && st.Steps == before.Steps {
						return
					}
					if time.Now().After(deadline) {
						t.Fatalf("leak mode: running = %d, KV used %d, %d steps in the last 200 ms, 5 s after the client left; want the sequence stuck there", st.Running, st.KVUsed, st.Steps-before.Steps)
					}
				}
			}
			deadline := time.Now().Add(5 * time.Second)
			for st := r.Server.Stats(); st.Running != 0 || st.KVUsed != 0; st = r.Server.Stats() {
				if time.Now().After(deadline) {
					t.Fatalf("the sequence of a client that went away is still running: %+v", st)
				}
				time.Sleep(5 * time.Millisecond)
			}
			_, metrics := getBody(t, r.URL+"/metrics")
			for _, want := range []string{
				`vllm:num_requests_running{engine="0",model_name="sim-tiny"} 0`,
				`vllm:kv_cache_usage_perc{engine="0",model_name="sim-tiny"} 0`,
			} {
				if !strings.Contains(metrics, want) {
					t.Errorf("/metrics lacks %q", want)
				}
			}
		})
	}
}

// Each fault happens at its configured rate, within tolerance, and shows
// to the client as it should.
func TestFaultRates(t *testing.T) {
	const n, rate = 400, 0.1
	r := startTiny(t, map[string]string{
		"fault_http_500": "0.1", "fault_http_429": "0.1", "fault_http_503": "0.1",
		"fault_drop": "0.1", "fault_stall": "0.1", "fault_malformed": "0.1",
		"stall_duration": "1ms",
	})
	results := make(chan streamResult, n)
	sem := make(chan struct{}, 16)
	for range n {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			results <- post(t, r.URL+"/v1/completions", map[string]any{"prompt": "p", "max_tokens": 4, "ignore_eos": true, "stream": true})
		}()
	}
	seen := map[string]int{}
	for range n {
		res := <-results
		switch {
		case res.status == 500:
			seen[FaultKindHTTP500]++
		case res.status == 429:
			seen[FaultKindHTTP429]++
		case res.status == 503:
			seen[FaultKindHTTP503]++
		case res.status != 200:
			t.Errorf("unexpected status %d: %s", res.status, res.body)
		case res.readErr != nil && !res.done:
			seen[FaultKindDrop]++
		case res.malformed == 1 && res.done:
			seen[FaultKindMalformed]++
		case res.malformed == 0 && res.done:
			seen["ok"]++
		default:
			t.Errorf("unexpected stream: %v %q", res.readErr, res.payloads)
		}
	}
	stats := r.Server.Stats()
	// 0.1 of 400 is 40 ± 6 (one standard deviation); allow ±4 sd.
	lo, hi := int64(n*rate-24), int64(n*rate+24)
	for _, kind := range []string{FaultKindHTTP500, FaultKindHTTP429, FaultKindHTTP503, FaultKindDrop, FaultKindStall, FaultKindMalformed} {
		got := stats.Faults[kind]
		if got < lo || got > hi {
			t.Errorf("%s: %d of %d requests, want %d..%d", kind, got, n, lo, hi)
		}
		if kind != FaultKindStall && int64(seen[kind]) != got {
			t.Errorf("%s: the client saw %d, the server injected %d", kind, seen[kind], got)
		}
	}
	// Stalled streams complete normally.
	if want := n - int(stats.Faults[FaultKindHTTP500]+stats.Faults[FaultKindHTTP429]+stats.Faults[FaultKindHTTP503]+stats.Faults[FaultKindDrop]+stats.Faults[FaultKindMalformed]); seen["ok"] != want {
		t.Errorf("%d clean streams, want %d", seen["ok"], want)
	}
	if stats.Requests != n {
		t.Errorf("Stats.Requests = %d, want %d", stats.Requests, n)
	}
}

// A stalled stream goes silent for stall_duration.
func TestStall(t *testing.T) {
	r := startTiny(t, map[string]string{"fault_stall": "1", "stall_duration": "300ms"})
	start := time.Now()
	res := post(t, r.URL+"/v1/chat/completions", map[string]any{"messages": []any{map[string]any{"role": "user", "content": "x"}}, "max_tokens": 3, "ignore_eos": true, "stream": true})
	if !res.done || res.readErr != nil {
		t.Fatalf("%v %q", res.readErr, res.payloads)
	}
	if el := time.Since(start); el < 300*time.Millisecond {
		t.Errorf("stalled request took %v, want at least the 300ms stall", el)
	}
}

// A dropped non-streamed request closes the connection without a response.
func TestNonStreamDrop(t *testing.T) {
	r := startTiny(t, map[string]string{"fault_drop": "1"})
	resp, err := http.Post(r.URL+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"x","max_tokens":2}`))
	if err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("got status %d, body %q; want the connection closed", resp.StatusCode, b)
	}
}

// /get_server_info answers as SGLang's does, with every setting of the
// profile: an override shows in it.
func TestServerInfo(t *testing.T) {
	cases := []struct {
		overrides map[string]string
		key, want string
	}{
		{nil, "max_num_seqs", "16"},
		{map[string]string{"max_num_seqs": "2"}, "max_num_seqs", "2"},
		{map[string]string{"step_overhead": "5ms"}, "step_overhead", "5ms"},
		{nil, "version", "llmload-sim tiny"},
		{nil, "model_path", "sim-tiny"},
	}
	for _, c := range cases {
		r := startTiny(t, c.overrides)
		code, body := getBody(t, r.URL+"/get_server_info")
		var info map[string]any
		if err := json.Unmarshal([]byte(body), &info); err != nil || code != 200 {
			t.Fatalf("/get_server_info: %d %s %v", code, body, err)
		}
		if got := fmt.Sprint(info[c.key]); got != c.want {
			t.Errorf("with %v: %s = %q, want %q", c.overrides, c.key, got, c.want)
		}
	}
}
