package executor

import (
	"context"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/executor/executortest"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/tokenizer"
)

// wordTokenizer counts whitespace-separated words: a stand-in with
// predictable counts.
type wordTokenizer struct{}

func (wordTokenizer) Encode(text string, _ bool) []int { return make([]int, len(strings.Fields(text))) }
func (wordTokenizer) Decode([]int) string              { return "" }
func (wordTokenizer) VocabSize() int                   { return 1 }
func (wordTokenizer) Name() string                     { return "words" }
func (wordTokenizer) Exact() bool                      { return true }

// sendOne sends req to srv through a fresh client and returns the result.
func sendOne(t *testing.T, target Target, req dataset.Request, tok tokenizer.Tokenizer) *metrics.Request {
	t.Helper()
	c, err := newClient(target, 1, tok)
	if err != nil {
		t.Fatal(err)
	}
	preps, err := prepare(target, []dataset.Request{req})
	if err != nil {
		t.Fatal(err)
	}
	res := &metrics.Request{RequestID: "test-1"}
	c.do(context.Background(), time.Now(), &preps[0], res)
	return res
}

// shape is the part of a result that does not depend on timing.
type shape struct {
	Error        metrics.ErrorKind
	StatusCode   int
	OutputEvents int
	ITLs         int
	OutputTokens int
	OutputSource string
	PromptTokens int
	PromptSource string
	// DatasetPromptTokens is the dataset's count, whatever the server says.
	DatasetPromptTokens int
	FinishReason        string
}

func shapeOf(r *metrics.Request) shape {
	return shape{r.Error, r.StatusCode, r.OutputEvents, len(r.ITL), r.OutputTokens, r.OutputTokensSource,
		r.PromptTokens, r.PromptTokensSource, r.DatasetPromptTokens, r.FinishReason}
}

// Each metric definition against a server with a known stream.
func TestClientMetrics(t *testing.T) {
	ok := func(events, tokens int, source, finish string) shape {
		return shape{StatusCode: 200, OutputEvents: events, ITLs: max(events-1, 0), OutputTokens: tokens,
			OutputSource: source, PromptTokens: 10, PromptSource: metrics.SourceUsage, DatasetPromptTokens: 7, FinishReason: finish}
	}
	noUsage := func(s shape) shape {
		s.PromptTokens, s.PromptSource = 7, metrics.SourceDataset
		return s
	}
	failed := func(kind metrics.ErrorKind, status, events int) shape {
		s := shape{Error: kind, StatusCode: status, OutputEvents: events, ITLs: max(events-1, 0),
			OutputTokens: events, OutputSource: metrics.SourceEvents, PromptTokens: 7, PromptSource: metrics.SourceDataset,
			DatasetPromptTokens: 7}
		return s
	}
	for _, tc := range []struct {
		name    string
		api     string
		cfg     executortest.Config
		target  func(*Target)
		tok     tokenizer.Tokenizer
		maxTok  int
		want    shape
		wantMsg string // a substring of the error message
	}{
		{name: "completions", cfg: executortest.Config{}, want: ok(5, 5, metrics.SourceUsage, "length")},
		{name: "chat", api: APIChat, want: ok(5, 5, metrics.SourceUsage, "length")},
		{name: "chat role-only first chunk is not a token", api: APIChat, cfg: executortest.Config{RoleChunk: true},
			want: ok(5, 5, metrics.SourceUsage, "length")},
		{name: "multi-token chunks", cfg: executortest.Config{TokensPerChunk: 2},
			want: ok(3, 5, metrics.SourceUsage, "length")},
		{name: "stop before max_tokens", cfg: executortest.Config{Tokens: 3},
			want: ok(3, 3, metrics.SourceUsage, "stop")},
		{name: "no usage: event count", cfg: executortest.Config{NoUsage: true, TokensPerChunk: 2},
			want: noUsage(ok(3, 3, metrics.SourceEvents, "length"))},
		{name: "no usage: tokenizer", cfg: executortest.Config{NoUsage: true, TokensPerChunk: 2}, tok: wordTokenizer{},
			want: noUsage(ok(3, 5, metrics.SourceTokenizer, "length"))},
		{name: "usage wins over tokenizer", cfg: executortest.Config{TokensPerChunk: 2}, tok: wordTokenizer{},
			want: ok(3, 5, metrics.SourceUsage, "length")},
		{name: "no [DONE]", cfg: executortest.Config{NoDone: true}, want: ok(5, 5, metrics.SourceUsage, "length")},
		{name: "CRLF, comments, data: without space, multi-line events",
			cfg:  executortest.Config{CRLF: true, Comments: true, NoSpace: true, MultiLine: true},
			want: ok(5, 5, metrics.SourceUsage, "length")},
		{name: "chat multi-line events", api: APIChat, cfg: executortest.Config{MultiLine: true, RoleChunk: true},
			want: ok(5, 5, metrics.SourceUsage, "length")},
		{name: "lines over 64 KiB", cfg: executortest.Config{Padding: 70 << 10}, want: ok(5, 5, metrics.SourceUsage, "length")},
		{name: "empty stream", maxTok: -1, cfg: executortest.Config{RoleChunk: true},
			want: shape{Error: metrics.ErrEmpty, StatusCode: 200, OutputSource: metrics.SourceUsage, PromptTokens: 10,
				PromptSource: metrics.SourceUsage, DatasetPromptTokens: 7, FinishReason: ""}, wantMsg: "without an output token"},
		{name: "HTTP status", cfg: executortest.Config{Status: 503, Body: "overloaded, try later"},
			want: failed(metrics.ErrHTTPStatus, 503, 0), wantMsg: "HTTP 503: overloaded"},
		{name: "drop mid-stream", cfg: executortest.Config{NoUsage: true, Fault: executortest.Fault{Kind: executortest.Drop, After: 2}},
			want: failed(metrics.ErrStream, 200, 2)},
		{name: "error event", cfg: executortest.Config{NoUsage: true, Fault: executortest.Fault{Kind: executortest.ErrorEvent, After: 1}},
			want: failed(metrics.ErrStream, 200, 1), wantMsg: "engine died"},
		{name: "error object", cfg: executortest.Config{NoUsage: true, Fault: executortest.Fault{Kind: executortest.ErrorObject, After: 3}},
			want: failed(metrics.ErrStream, 200, 3), wantMsg: "engine died"},
		{name: "malformed event", cfg: executortest.Config{NoUsage: true, Fault: executortest.Fault{Kind: executortest.Malformed, After: 2}},
			want: failed(metrics.ErrMalformed, 200, 2), wantMsg: "invalid JSON"},
		{name: "stall", cfg: executortest.Config{NoUsage: true, Fault: executortest.Fault{Kind: executortest.Stall, After: 1}},
			target: func(t *Target) { t.StallTimeout = 50 * time.Millisecond },
			want:   failed(metrics.ErrStall, 200, 1), wantMsg: "stall"},
		{name: "timeout", cfg: executortest.Config{Delay: 2 * time.Second},
			target: func(t *Target) { t.Timeout = 50 * time.Millisecond },
			want:   failed(metrics.ErrTimeout, 0, 0), wantMsg: "timeout"},
		{name: "hang-up before a response", cfg: executortest.Config{Fault: executortest.Fault{Kind: executortest.Hangup}},
			want: failed(metrics.ErrConnect, 0, 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := executortest.New(tc.cfg)
			defer srv.Close()
			target := Target{BaseURL: srv.URL, API: tc.api, Model: "m"}
			if tc.target != nil {
				tc.target(&target)
			}
			maxTok := 5
			if tc.maxTok != 0 {
				maxTok = max(tc.maxTok, 0)
			}
			res := sendOne(t, target, dataset.Request{Prompt: "hi", PromptLen: 7, OutputLen: maxTok}, tc.tok)
			if diff := cmp.Diff(tc.want, shapeOf(res)); diff != "" {
				t.Errorf("result (-want +got):\n%s\nmessage: %s", diff, res.ErrorMessage)
			}
			if tc.wantMsg != "" && !strings.Contains(res.ErrorMessage, tc.wantMsg) {
				t.Errorf("error message %q does not contain %q", res.ErrorMessage, tc.wantMsg)
			}
			if tc.want.Error == "" && res.ErrorMessage != "" {
				t.Errorf("unexpected error message %q", res.ErrorMessage)
			}
			wantText := tc.want.OutputSource == metrics.SourceTokenizer
			if got := res.GeneratedText != ""; got != wantText {
				t.Errorf("GeneratedText kept = %v (%q), want %v", got, res.GeneratedText, wantText)
			}
		})
	}
}

// TTFT runs from t0 to the first output event (a role-only chunk sent at
// once does not count), ITL is the gap between output events and E2E ends
// at the last one. On the fake clock of a testing/synctest bubble the
// server's 60 ms and 15 ms are exactly what the client measures.
func TestClientTiming(t *testing.T) {
	const ttft, itl, n = 60 * time.Millisecond, 15 * time.Millisecond, 6
	for _, tc := range []struct {
		api string
		cr  bool
	}{{APICompletions, false}, {APIChat, false}, {APICompletions, true}, {APIChat, true}} {
		api := tc.api
		name := api
		if tc.cr {
			// Bare CR line ends: each event is read when it arrives, not
			// held until an LF that never comes.
			name += " bare CR"
		}
		t.Run(name, func(t *testing.T) {
			inBubble(t, executortest.Config{TTFT: ttft, ITL: itl, RoleChunk: true, CR: tc.cr}, func(t *testing.T, srv *executortest.Server) {
				res := sendOne(t, Target{BaseURL: srv.URL, API: api}, dataset.Request{Prompt: "hi", OutputLen: n}, nil)
				if !res.OK() || res.OutputEvents != n {
					t.Fatalf("got %d events, error %q %s", res.OutputEvents, res.Error, res.ErrorMessage)
				}
				want := []time.Duration{itl, itl, itl, itl, itl}
				if res.TTFT != ttft || res.E2E != ttft+(n-1)*itl || !slices.Equal(res.ITL, want) {
					t.Errorf("TTFT %v, ITL %v, E2E %v; want %v, %v, %v", res.TTFT, res.ITL, res.E2E, ttft, want, ttft+(n-1)*itl)
				}
			})
		})
	}
}

// The same over loopback TCP, with the kernel's receive times: each output
// event is stamped no earlier than the server began writing its chunk (so
// TTFT and E2E are at least the server's), and the ITLs add up to E2E less
// TTFT. How much later the stamps come is the machine's business: the
// upper bounds only catch a stamp gone astray, and the gaps themselves are
// not bounded (a server that waited for a CPU writes its late chunks back
// to back, and the client rightly sees them arrive together).
func TestClientTimingTCP(t *testing.T) {
	const ttft, itl, n = 60 * time.Millisecond, 15 * time.Millisecond, 6
	for _, api := range []string{APICompletions, APIChat} {
		t.Run(api, func(t *testing.T) {
			srv := executortest.New(executortest.Config{TTFT: ttft, ITL: itl, RoleChunk: true, RecordSends: true})
			defer srv.Close()
			target := Target{BaseURL: srv.URL, API: api}
			c, err := newClient(target, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			preps, err := prepare(target, []dataset.Request{{Prompt: "hi", OutputLen: n}})
			if err != nil {
				t.Fatal(err)
			}
			res := &metrics.Request{RequestID: "test-1"}
			t0 := time.Now()
			c.do(context.Background(), t0, &preps[0], res)
			if !res.OK() || res.OutputEvents != n {
				t.Fatalf("got %d events, error %q %s", res.OutputEvents, res.Error, res.ErrorMessage)
			}
			const slack = time.Second
			within(t, "TTFT", res.TTFT, ttft, ttft+slack)
			within(t, "E2E", res.E2E, ttft+(n-1)*itl, ttft+(n-1)*itl+slack)
			var sum time.Duration
			for _, d := range res.ITL {
				sum += d
			}
			if diff := cmp.Diff(res.E2E-res.TTFT, sum); diff != "" {
				t.Errorf("ITLs do not add up to E2E-TTFT (-want +got):\n%s", diff)
			}
			writes := srv.WriteStarts(res.RequestID)
			if len(writes) != n {
				t.Fatalf("server wrote %d output chunks, want %d", len(writes), n)
			}
			// TTFT counts from the send (res.Sent after t0), not from t0:
			// a busy machine can delay the send by milliseconds.
			at := t0.Add(res.Sent + res.TTFT)
			for i, w := range writes {
				if i > 0 {
					at = at.Add(res.ITL[i-1])
				}
				if at.Before(w.Add(-stampSlack)) {
					t.Errorf("event %d stamped %v before the server began writing it", i, w.Sub(at))
				}
			}
		})
	}
}

// stampSlack is how far before the server's write start a client stamp
// may fall: a kernel receive stamp is taken on the wall clock and turned
// into a monotonic time through a paired reading of both clocks (stamp.go),
// which is good to microseconds, not nanoseconds; and an event's time is
// rebuilt here from TTFT and rounded ITLs. A stamp taken at read time
// instead of arrival would be late, never early, so the bound still
// catches a client that stamps before the bytes exist.
const stampSlack = time.Millisecond

func within(t *testing.T, what string, got, lo, hi time.Duration) {
	t.Helper()
	if got < lo || got > hi {
		t.Errorf("%s = %v, want within [%v, %v]", what, got, lo, hi)
	}
}

// The request bodies and headers of both APIs.
func TestRequests(t *testing.T) {
	srv := executortest.New(executortest.Config{Tokens: 1})
	defer srv.Close()
	msgs := []dataset.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "hello"}}
	for _, tc := range []struct {
		name     string
		target   Target
		req      dataset.Request
		wantPath string
		wantBody map[string]any
	}{
		{
			name:     "completions",
			target:   Target{API: APICompletions, Model: "m1"},
			req:      dataset.Request{Prompt: "hello", OutputLen: 3},
			wantPath: "/v1/completions",
			wantBody: map[string]any{"model": "m1", "prompt": "hello", "max_tokens": 3.0, "stream": true,
				"stream_options": map[string]any{"include_usage": true}, "temperature": 0.0, "repetition_penalty": 1.0, "logprobs": nil},
		},
		{
			name:     "completions, ignore_eos from the target, extra body over the defaults",
			target:   Target{Model: "m1", IgnoreEOS: true, ExtraBody: map[string]any{"temperature": 0.5, "max_tokens": 9, "logprobs": nil}},
			req:      dataset.Request{Prompt: "hello", OutputLen: 3},
			wantPath: "/v1/completions",
			wantBody: map[string]any{"model": "m1", "prompt": "hello", "max_tokens": 9.0, "stream": true, "ignore_eos": true,
				"temperature": 0.5, "repetition_penalty": 1.0, "stream_options": map[string]any{"include_usage": true}},
		},
		{
			name:     "chat from a prompt, ignore_eos from the target",
			target:   Target{API: APIChat, Model: "m2", IgnoreEOS: true},
			req:      dataset.Request{Prompt: "hello", OutputLen: 4},
			wantPath: "/v1/chat/completions",
			wantBody: map[string]any{"model": "m2", "max_tokens": 4.0, "max_completion_tokens": 4.0, "stream": true,
				"ignore_eos": true, "stream_options": map[string]any{"include_usage": true}, "temperature": 0.0,
				"messages": []any{map[string]any{"role": "user", "content": "hello"}}},
		},
		{
			name:     "chat from messages",
			target:   Target{API: APIChat, Model: "m2"},
			req:      dataset.Request{Prompt: "ignored", Messages: msgs, OutputLen: 4},
			wantPath: "/v1/chat/completions",
			wantBody: map[string]any{"model": "m2", "max_tokens": 4.0, "max_completion_tokens": 4.0, "stream": true,
				"stream_options": map[string]any{"include_usage": true}, "temperature": 0.0,
				"messages": []any{map[string]any{"role": "system", "content": "be brief"}, map[string]any{"role": "user", "content": "hello"}}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(srv.Received())
			tc.target.BaseURL = srv.URL + "/"
			sendOne(t, tc.target, tc.req, nil)
			got := srv.Received()[before]
			if got.Path != tc.wantPath {
				t.Errorf("path %q, want %q", got.Path, tc.wantPath)
			}
			if diff := cmp.Diff(tc.wantBody, got.Body); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHeadersAndKeyRedaction(t *testing.T) {
	const key = "sk-secret-0123456789"
	srv := executortest.New(executortest.Config{Status: 401, Body: "invalid api key " + key})
	defer srv.Close()
	target := Target{BaseURL: srv.URL, APIKey: key, Headers: map[string]string{"X-Tenant": "blue"}}
	res := sendOne(t, target, dataset.Request{Prompt: "x", OutputLen: 2}, nil)
	if res.Error != metrics.ErrHTTPStatus || res.StatusCode != 401 {
		t.Fatalf("got %q %d, want an HTTP 401 failure", res.Error, res.StatusCode)
	}
	if strings.Contains(res.ErrorMessage, key) || !strings.Contains(res.ErrorMessage, "[REDACTED]") {
		t.Errorf("error message %q: the key must be redacted", res.ErrorMessage)
	}
	h := srv.Received()[0].Header
	want := map[string]string{
		"Authorization": "Bearer " + key, "X-Request-Id": "test-1", "X-Tenant": "blue",
		"Content-Type": "application/json", "Accept": "text/event-stream", "Accept-Encoding": "",
	}
	got := map[string]string{}
	for k := range want {
		got[k] = h.Get(k)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}

	// A connection error names the URL, never the key.
	dead := executortest.New(executortest.Config{})
	dead.Close()
	res = sendOne(t, Target{BaseURL: dead.URL, APIKey: key}, dataset.Request{Prompt: "x", OutputLen: 2}, nil)
	if res.Error != metrics.ErrConnect || strings.Contains(res.ErrorMessage, key) {
		t.Errorf("got %q %q, want a connect error without the key", res.Error, res.ErrorMessage)
	}
}

// HTTP/2 over TLS with the server's certificate from a CA file.
func TestTLSHTTP2(t *testing.T) {
	srv := executortest.NewUnstarted(executortest.Config{})
	srv.EnableHTTP2 = true
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake below
	srv.StartTLS()
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(ca, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	res := sendOne(t, Target{BaseURL: srv.URL, HTTP2: true, CAFile: ca}, dataset.Request{Prompt: "x", OutputLen: 3}, nil)
	if !res.OK() || res.OutputTokens != 3 {
		t.Fatalf("got %q %s, %d tokens", res.Error, res.ErrorMessage, res.OutputTokens)
	}
	if p := srv.Received()[0].ProtoMajor; p != 2 {
		t.Errorf("protocol HTTP/%d, want HTTP/2", p)
	}
	// Without the CA the certificate is refused: a connect error.
	res = sendOne(t, Target{BaseURL: srv.URL}, dataset.Request{Prompt: "x", OutputLen: 3}, nil)
	if res.Error != metrics.ErrConnect {
		t.Errorf("without the CA file: got %q, want %q", res.Error, metrics.ErrConnect)
	}
}

// HTTP/2 without TLS (h2c, prior knowledge) for an http:// URL.
func TestH2C(t *testing.T) {
	srv := executortest.NewUnstarted(executortest.Config{})
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	defer srv.Close()
	res := sendOne(t, Target{BaseURL: srv.URL, HTTP2: true}, dataset.Request{Prompt: "x", OutputLen: 3}, nil)
	if !res.OK() || res.OutputTokens != 3 {
		t.Fatalf("got %q %s, %d tokens", res.Error, res.ErrorMessage, res.OutputTokens)
	}
	if p := srv.Received()[0].ProtoMajor; p != 2 {
		t.Errorf("protocol HTTP/%d, want HTTP/2", p)
	}
}

// A failure is put down to the context's ending only when the error comes
// from it: a failure of its own that races with Ctrl-C or a deadline keeps
// its kind, so nothing that failed is mislabelled canceled.
func TestFailCtx(t *testing.T) {
	live := context.Background()
	interrupted, stop := context.WithCancel(live)
	stop()
	timedOut, stop2 := context.WithTimeoutCause(live, 0, errTimeout)
	defer stop2()
	stalled, stall := context.WithCancelCause(live)
	stall(errStall)
	drained, drain := context.WithCancelCause(live)
	drain(errDrain)
	for _, tc := range []struct {
		name string
		ctx  context.Context
		err  error
		want metrics.ErrorKind
	}{
		{"live context", live, io.ErrUnexpectedEOF, metrics.ErrStream},
		{"interrupted in flight", interrupted, context.Canceled, metrics.ErrCanceled},
		{"interrupted, wrapped", interrupted, fmt.Errorf("read: %w", context.Canceled), metrics.ErrCanceled},
		{"dropped as Ctrl-C came", interrupted, io.ErrUnexpectedEOF, metrics.ErrStream},
		{"timeout, HTTP/1 (the cause)", timedOut, errTimeout, metrics.ErrTimeout},
		{"timeout, HTTP/2", timedOut, context.DeadlineExceeded, metrics.ErrTimeout},
		{"dropped as the timeout came", timedOut, io.ErrUnexpectedEOF, metrics.ErrStream},
		{"stall", stalled, errStall, metrics.ErrStall},
		{"drain deadline", drained, context.Canceled, metrics.ErrTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &client{}
			res := &metrics.Request{}
			c.failCtx(tc.ctx, res, metrics.ErrStream, tc.err)
			if res.Error != tc.want {
				t.Errorf("kind %q (%s), want %q", res.Error, res.ErrorMessage, tc.want)
			}
		})
	}
}

// Target.HTTPClient: the load's TLS and HTTP/2 settings, and the target's
// headers on every request, for requests other than the load's.
func TestHTTPClient(t *testing.T) {
	const key = "sk-tok-42"
	var mu sync.Mutex
	var got []*http.Request
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r)
		mu.Unlock()
		_, _ = io.WriteString(w, `{"tokens":[1,2]}`)
	}))
	srv.EnableHTTP2 = true
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake below
	srv.StartTLS()
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		target     Target
		wantHeader map[string]string
		wantProto  int
		wantErr    string // a substring of the request's error
	}{
		{name: "CA file, key and headers",
			target:     Target{CAFile: ca, APIKey: key, Headers: map[string]string{"X-Tenant": "blue", "Content-Type": "text/plain"}},
			wantHeader: map[string]string{"Authorization": "Bearer " + key, "X-Tenant": "blue", "Content-Type": "text/plain", "X-Own": "kept"},
			wantProto:  1},
		{name: "HTTP/2, a header overrides the key",
			target:     Target{CAFile: ca, HTTP2: true, APIKey: key, Headers: map[string]string{"Authorization": "Basic x"}},
			wantHeader: map[string]string{"Authorization": "Basic x", "X-Tenant": "", "Content-Type": "application/json", "X-Own": "kept"},
			wantProto:  2},
		{name: "insecure_skip_verify, no key",
			target:     Target{InsecureSkipVerify: true},
			wantHeader: map[string]string{"Authorization": "", "X-Tenant": "", "Content-Type": "application/json", "X-Own": "kept"},
			wantProto:  1},
		{name: "without the CA the certificate is refused", target: Target{APIKey: key}, wantErr: "certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.target.BaseURL = srv.URL
			hc, err := tc.target.HTTPClient(2)
			if err != nil {
				t.Fatal(err)
			}
			defer hc.CloseIdleConnections()
			mu.Lock()
			before := len(got)
			mu.Unlock()
			req, err := http.NewRequest(http.MethodPost, srv.URL+"/tokenize", strings.NewReader(`{"prompt":"hi"}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Own", "kept")
			resp, err := hc.Do(req)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("error %v, want one mentioning %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(body) != `{"tokens":[1,2]}` {
				t.Errorf("body %q", body)
			}
			// The caller's request is left as it was.
			if a := req.Header.Get("Authorization"); a != "" {
				t.Errorf("the caller's request was modified: Authorization %q", a)
			}
			mu.Lock()
			r := got[before]
			mu.Unlock()
			gotHeader := map[string]string{}
			for k := range tc.wantHeader {
				gotHeader[k] = r.Header.Get(k)
			}
			if diff := cmp.Diff(tc.wantHeader, gotHeader); diff != "" {
				t.Errorf("headers the server saw (-want +got):\n%s", diff)
			}
			if r.ProtoMajor != tc.wantProto {
				t.Errorf("HTTP/%d, want HTTP/%d", r.ProtoMajor, tc.wantProto)
			}
		})
	}
	if _, err := (Target{BaseURL: "127.0.0.1:8000", APIKey: key}).HTTPClient(1); err == nil || !strings.Contains(err.Error(), "base_url") {
		t.Errorf("bad base_url: error %v", err)
	}
}
