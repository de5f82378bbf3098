package executor

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/internal/anthropicwire"
	"github.com/llmload/llmload/internal/safehttp"
	"github.com/llmload/llmload/metrics"
)

// msgEvent is one event of a Messages stream as a server writes it:
// "event: <name>" (left out when name is "") and its data.
type msgEvent struct {
	name, data string
	// pause is how long the server waits before it sends the event.
	pause time.Duration
}

// ev is the event typ with the data fields (a JSON object's members,
// "type" added first), named as Anthropic names every event.
func ev(typ, fields string) msgEvent {
	data := `{"type":"` + typ + `"`
	if fields != "" {
		data += "," + fields
	}
	return msgEvent{name: typ, data: data + "}"}
}

// The events of Anthropic's documented streams.
func msgStart(input int) msgEvent {
	return ev(anthropicwire.EventMessageStart, fmt.Sprintf(`"message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-test","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":%d,"output_tokens":1}}`, input))
}
func blockStart(i int, block string) msgEvent {
	return ev(anthropicwire.EventBlockStart, fmt.Sprintf(`"index":%d,"content_block":%s`, i, block))
}
func delta(i int, typ, field, text string) msgEvent {
	return ev(anthropicwire.EventBlockDelta, fmt.Sprintf(`"index":%d,"delta":{"type":%q,%q:%q}`, i, typ, field, text))
}
func textDelta(i int, text string) msgEvent {
	return delta(i, anthropicwire.DeltaText, "text", text)
}
func blockStop(i int) msgEvent { return ev(anthropicwire.EventBlockStop, fmt.Sprintf(`"index":%d`, i)) }
func msgDelta(stop string, output int) msgEvent {
	return ev(anthropicwire.EventMessageDelta, fmt.Sprintf(`"delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":%d}`, stop, output))
}

var (
	msgPing = ev(anthropicwire.EventPing, "")
	msgStop = ev(anthropicwire.EventMessageStop, "")
)

// after is e sent after a pause.
func after(d time.Duration, e msgEvent) msgEvent { e.pause = d; return e }

// textStream is a whole documented text stream: three text deltas,
// "Hello", "!" and " How", and usage counting them.
func textStream() []msgEvent {
	return []msgEvent{
		msgStart(12), blockStart(0, `{"type":"text","text":""}`), msgPing,
		textDelta(0, "Hello"), textDelta(0, "!"), textDelta(0, " How"),
		blockStop(0), msgDelta("end_turn", 3), msgStop,
	}
}

// messagesServer is a Messages API server built from Anthropic's
// documented wire format: it answers every request with status (an
// error's JSON body, for a status that is not 2xx) or with events, each
// flushed as it is written, after its pause. It records each request's
// headers and path.
type messagesServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen []*http.Request
}

func newMessagesServer(t *testing.T, status int, errBody string, events []msgEvent) *messagesServer {
	t.Helper()
	s := &messagesServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.seen = append(s.seen, r.Clone(r.Context()))
		s.mu.Unlock()
		if status != http.StatusOK {
			w.Header().Set("Content-Type", "application/json")
			if status == http.StatusTooManyRequests {
				w.Header().Set("Retry-After", "7")
			}
			w.WriteHeader(status)
			fmt.Fprint(w, errBody)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		_ = rc.Flush()
		for _, e := range events {
			if e.pause > 0 {
				select {
				case <-time.After(e.pause):
				case <-r.Context().Done():
					return
				}
			}
			if e.name != "" {
				fmt.Fprintf(w, "event: %s\n", e.name)
			}
			fmt.Fprintf(w, "data: %s\n\n", e.data)
			if rc.Flush() != nil {
				return
			}
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *messagesServer) requests() []*http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*http.Request(nil), s.seen...)
}

// msgShape is what a Messages request's result says, timing aside.
type msgShape struct {
	Error                         metrics.ErrorKind
	StatusCode                    int
	OutputEvents                  int
	ReasoningEvents, AnswerEvents int
	ReasoningTokens               int
	OutputTokens                  int
	OutputSource                  string
	PromptTokens                  int
	PromptSource                  string
	FinishReason                  string
	OutputBytes                   int
	// Mismatch: the usage's output count contradicts what was streamed.
	Mismatch                  bool
	ToolCallEvents, ToolCalls int
	BadToolCall               bool
}

func msgShapeOf(r *metrics.Request) msgShape {
	_, mismatch := r.TokenCountMismatch()
	return msgShape{r.Error, r.StatusCode, r.OutputEvents, r.ReasoningEvents, r.AnswerEvents, r.ReasoningTokens,
		r.OutputTokens, r.OutputTokensSource, r.PromptTokens, r.PromptTokensSource, r.FinishReason, r.OutputBytes, mismatch,
		r.ToolCallEvents, r.ToolCalls, r.BadToolCall}
}

// The Messages protocol against a server that speaks Anthropic's
// documented wire format: what each stream counts as output, reasoning
// and answer, which figures its usage gives and which the stream
// overrules, and how each failure is classified.
func TestMessagesStreams(t *testing.T) {
	const gap = 30 * time.Millisecond
	// ok is a completed request of the 8-token prompt the dataset counts
	// as 7 and the server as input.
	ok := func(events, tokens int, source string, input int, finish string, bytes int) msgShape {
		return msgShape{StatusCode: 200, OutputEvents: events, AnswerEvents: events, OutputTokens: tokens, OutputSource: source,
			PromptTokens: input, PromptSource: metrics.SourceUsage, FinishReason: finish, OutputBytes: bytes}
	}
	stripNames := func(evs []msgEvent) []msgEvent {
		for i := range evs {
			evs[i].name = ""
		}
		return evs
	}
	for _, tc := range []struct {
		name    string
		status  int
		errBody string
		events  []msgEvent
		want    msgShape
		wantMsg string // a substring of the error message
		check   func(t *testing.T, r *metrics.Request)
	}{
		{name: "text stream", events: textStream(), want: ok(3, 3, metrics.SourceUsage, 12, "stop", 10),
			check: func(t *testing.T, r *metrics.Request) {
				if r.ServedModel != "claude-test" {
					t.Errorf("served model %q: message_start names claude-test, not the model asked for", r.ServedModel)
				}
			}},
		{name: "event names dropped by a proxy: the payload's type", events: stripNames(textStream()),
			want: ok(3, 3, metrics.SourceUsage, 12, "stop", 10)},
		{name: "tokens are stamped as they arrive", events: []msgEvent{
			msgStart(12), blockStart(0, `{"type":"text","text":""}`),
			after(gap, textDelta(0, "a")), after(gap, textDelta(0, "b")), after(gap, textDelta(0, "c")),
			blockStop(0), msgDelta("end_turn", 3), msgStop,
		}, want: ok(3, 3, metrics.SourceUsage, 12, "stop", 3),
			check: func(t *testing.T, r *metrics.Request) {
				// Each token left the server a gap after the one before:
				// a token is stamped when its bytes arrived, never
				// earlier (a client that reads late may stamp two at
				// once, so the gaps between them are not asserted).
				if r.TTFT < gap || len(r.ITL) != 2 || r.E2E < 3*gap {
					t.Errorf("TTFT %v, ITL %v, E2E %v: want TTFT >= %v and E2E >= %v", r.TTFT, r.ITL, r.E2E, gap, 3*gap)
				}
			}},
		{name: "thinking is reasoning, timed apart from the answer", events: []msgEvent{
			msgStart(12), blockStart(0, `{"type":"thinking","thinking":""}`),
			delta(0, anthropicwire.DeltaThinking, "thinking", "Let me"), delta(0, anthropicwire.DeltaThinking, "thinking", " think"),
			delta(0, anthropicwire.DeltaSignature, "signature", "EqQBCgIYAhIM"), blockStop(0),
			blockStart(1, `{"type":"text","text":""}`), after(gap, textDelta(1, "Yes")), textDelta(1, "."), blockStop(1),
			msgDelta("end_turn", 9), msgStop,
		}, want: msgShape{StatusCode: 200, OutputEvents: 4, ReasoningEvents: 2, AnswerEvents: 2, ReasoningTokens: 2, OutputTokens: 9,
			OutputSource: metrics.SourceUsage, PromptTokens: 12, PromptSource: metrics.SourceUsage, FinishReason: "stop", OutputBytes: 16},
			check: func(t *testing.T, r *metrics.Request) {
				// The answer left the server a gap after the thinking:
				// its first token cannot be stamped before that, nor
				// before the first thought (a late read may stamp them
				// alike, so no gap between them is asserted).
				if r.TTFT != r.TTFTReasoning || r.TTFTAnswer < r.TTFTReasoning || r.TTFTAnswer < gap || len(r.ITLReasoning) != 1 || len(r.ITLAnswer) != 1 {
					t.Errorf("TTFT %v, reasoning %v, answer %v, ITL reasoning %v answer %v: want TTFT at the first thought and the answer at least %v in",
						r.TTFT, r.TTFTReasoning, r.TTFTAnswer, r.ITLReasoning, r.ITLAnswer, gap)
				}
			}},
		{name: "tool use: the block's start and its input fragments are a tool call", events: []msgEvent{
			msgStart(40), blockStart(0, `{"type":"text","text":""}`), textDelta(0, "Checking."), blockStop(0),
			blockStart(1, `{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}`),
			delta(1, anthropicwire.DeltaInputJSON, "partial_json", ""), msgPing,
			delta(1, anthropicwire.DeltaInputJSON, "partial_json", `{"location": "Paris`), delta(1, anthropicwire.DeltaInputJSON, "partial_json", `"}`),
			blockStop(1), msgDelta("tool_use", 21), msgStop,
		}, want: func() msgShape {
			s := ok(4, 21, metrics.SourceUsage, 40, "tool_calls", 41)
			s.AnswerEvents, s.ToolCallEvents, s.ToolCalls = 1, 3, 1
			return s
		}()},
		{name: "tool use whose input is not a JSON object", events: []msgEvent{
			msgStart(40), blockStart(0, `{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}`),
			delta(0, anthropicwire.DeltaInputJSON, "partial_json", `{"location": "Par`), blockStop(0), msgDelta("max_tokens", 6), msgStop,
		}, want: func() msgShape {
			s := ok(2, 6, metrics.SourceUsage, 40, "length", 28)
			s.AnswerEvents, s.ToolCallEvents, s.ToolCalls, s.BadToolCall = 0, 2, 1, true
			return s
		}()},
		{name: "error event mid-stream", events: []msgEvent{
			msgStart(12), blockStart(0, `{"type":"text","text":""}`), textDelta(0, "Hel"), textDelta(0, "lo"),
			ev(anthropicwire.EventError, `"error":{"type":"overloaded_error","message":"Overloaded"}`),
		}, want: msgShape{Error: metrics.ErrStream, StatusCode: 200, OutputEvents: 2, AnswerEvents: 2, OutputTokens: 2,
			OutputSource: metrics.SourceEvents, PromptTokens: 12, PromptSource: metrics.SourceUsage, OutputBytes: 5},
			wantMsg: "overloaded_error"},
		{name: "error event without its name", events: stripNames([]msgEvent{
			msgStart(12), ev(anthropicwire.EventError, `"error":{"type":"api_error","message":"Internal server error"}`),
		}), want: msgShape{Error: metrics.ErrStream, StatusCode: 200, OutputSource: metrics.SourceEvents, PromptTokens: 12, PromptSource: metrics.SourceUsage},
			wantMsg: "server error: api_error: Internal server error"},
		{name: "HTTP 529 overloaded", status: anthropicwire.StatusOverloaded,
			errBody: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}`,
			want:    msgShape{Error: metrics.ErrHTTPStatus, StatusCode: 529, OutputSource: metrics.SourceEvents, PromptTokens: 7, PromptSource: metrics.SourceDataset},
			wantMsg: `HTTP 529: {"type":"error","error":{"type":"overloaded_error"`},
		{name: "HTTP 429 rate limited", status: http.StatusTooManyRequests,
			errBody: `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`,
			want:    msgShape{Error: metrics.ErrRateLimited, StatusCode: 429, OutputSource: metrics.SourceEvents, PromptTokens: 7, PromptSource: metrics.SourceDataset},
			wantMsg: "rate_limit_error",
			check: func(t *testing.T, r *metrics.Request) {
				if r.RetryAfter != "7" {
					t.Errorf("retry_after %q, want the server's 7", r.RetryAfter)
				}
			}},
		{name: "usage claims no output: the stream disproves it", events: []msgEvent{
			msgStart(12), blockStart(0, `{"type":"text","text":""}`), textDelta(0, "a"), textDelta(0, "b"), textDelta(0, "c"),
			blockStop(0), msgDelta("end_turn", 0), msgStop,
		}, want: func() msgShape { s := ok(3, 0, metrics.SourceUsage, 12, "stop", 3); s.Mismatch = true; return s }()},
		{name: "usage claims more than the stream could hold", events: []msgEvent{
			msgStart(12), blockStart(0, `{"type":"text","text":""}`), textDelta(0, "a"), textDelta(0, "b"), textDelta(0, "c"),
			blockStop(0), msgDelta("max_tokens", 500), msgStop,
		}, want: func() msgShape { s := ok(3, 500, metrics.SourceUsage, 12, "length", 3); s.Mismatch = true; return s }()},
		{name: "message_start's output count is not a count", events: []msgEvent{
			msgStart(12), blockStart(0, `{"type":"text","text":""}`), textDelta(0, "a"), textDelta(0, "b"), blockStop(0), msgStop,
		}, want: ok(2, 2, metrics.SourceEvents, 12, "", 2)},
		{name: "cut before message_stop", events: []msgEvent{
			msgStart(12), blockStart(0, `{"type":"text","text":""}`), textDelta(0, "a"),
		}, want: msgShape{Error: metrics.ErrTruncatedStream, StatusCode: 200, OutputEvents: 1, AnswerEvents: 1, OutputTokens: 1,
			OutputSource: metrics.SourceEvents, PromptTokens: 12, PromptSource: metrics.SourceUsage, OutputBytes: 1}},
		{name: "ends properly with no output", events: []msgEvent{msgStart(12), msgDelta("end_turn", 0), msgStop},
			want: msgShape{Error: metrics.ErrEmpty, StatusCode: 200, OutputSource: metrics.SourceUsage, PromptTokens: 12,
				PromptSource: metrics.SourceUsage, FinishReason: "stop"}},
		{name: "a payload that is not JSON", events: []msgEvent{msgStart(12), {name: anthropicwire.EventBlockDelta, data: `{"type":`}},
			want:    msgShape{Error: metrics.ErrMalformed, StatusCode: 200, OutputSource: metrics.SourceEvents, PromptTokens: 12, PromptSource: metrics.SourceUsage},
			wantMsg: "invalid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status := tc.status
			if status == 0 {
				status = http.StatusOK
			}
			srv := newMessagesServer(t, status, tc.errBody, tc.events)
			target := Target{BaseURL: srv.URL, API: APIMessages, Model: "claude-x", Timeout: 10 * time.Second}
			res := sendOne(t, target, dataset.Request{Prompt: "Say hello.", PromptLen: 7, OutputLen: 16}, nil)
			if diff := cmp.Diff(tc.want, msgShapeOf(res)); diff != "" {
				t.Errorf("(-want +got):\n%s\nerror message: %s", diff, res.ErrorMessage)
			}
			if !strings.Contains(res.ErrorMessage, tc.wantMsg) {
				t.Errorf("error message %q, want it to hold %q", res.ErrorMessage, tc.wantMsg)
			}
			if tc.check != nil {
				tc.check(t, res)
			}
			if got := srv.requests(); len(got) != 1 || got[0].URL.Path != "/v1/messages" {
				t.Errorf("the server saw %d requests (first at %v), want one POST /v1/messages", len(got), got)
			}
		})
	}
}

// A Messages server that keeps pinging while it generates nothing has
// stalled: ping is a keep-alive, as a comment line, and stall_timeout
// counts the silence between events that carry something.
func TestMessagesPingIsNoProgress(t *testing.T) {
	events := []msgEvent{msgStart(12), blockStart(0, `{"type":"text","text":""}`)}
	for range 500 { // 10 s of pings: longer than any stall the test allows
		events = append(events, after(20*time.Millisecond, msgPing))
	}
	srv := newMessagesServer(t, http.StatusOK, "", events)
	target := Target{BaseURL: srv.URL, API: APIMessages, Model: "m", Timeout: time.Minute, StallTimeout: 200 * time.Millisecond}
	res := sendOne(t, target, dataset.Request{Prompt: "x", PromptLen: 1, OutputLen: 4}, nil)
	if res.Error != metrics.ErrStall {
		t.Errorf("got %q (%s), want a stall: pings are no progress", res.Error, res.ErrorMessage)
	}
}

// The key goes in x-api-key with the API's version, never as a bearer
// token; a target's header overrides the version; and neither the key nor
// anything else reaches another host that the target redirects to, by
// the load client or by HTTPClient (a /tokenize, a version probe).
func TestMessagesCredentials(t *testing.T) {
	const key = "sk-ant-PLANTED-0123456789"
	srv := newMessagesServer(t, http.StatusOK, "", textStream())
	target := Target{BaseURL: srv.URL, API: APIMessages, APIKey: key, Model: "m"}
	if res := sendOne(t, target, dataset.Request{Prompt: "x", PromptLen: 1, OutputLen: 4}, nil); !res.OK() {
		t.Fatalf("got %q: %s", res.Error, res.ErrorMessage)
	}
	target.Headers = map[string]string{"anthropic-version": "2099-01-01", "anthropic-beta": "tools-1"}
	if res := sendOne(t, target, dataset.Request{Prompt: "x", PromptLen: 1, OutputLen: 4}, nil); !res.OK() {
		t.Fatalf("got %q: %s", res.Error, res.ErrorMessage)
	}
	header := func(r *http.Request) map[string]string {
		got := map[string]string{}
		for _, k := range []string{"X-Api-Key", "Anthropic-Version", "Anthropic-Beta", "Authorization", "Content-Type", "Accept"} {
			got[k] = r.Header.Get(k)
		}
		return got
	}
	seen := srv.requests()
	want := map[string]string{"X-Api-Key": key, "Anthropic-Version": "2023-06-01", "Anthropic-Beta": "", "Authorization": "",
		"Content-Type": "application/json", "Accept": "text/event-stream"}
	if diff := cmp.Diff(want, header(seen[0])); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
	want["Anthropic-Version"], want["Anthropic-Beta"] = "2099-01-01", "tools-1"
	if diff := cmp.Diff(want, header(seen[1])); diff != "" {
		t.Errorf("headers with the target's own (-want +got):\n%s", diff)
	}
	// The other requests to the server (a /tokenize, the version and
	// model probes) carry the key and the version too.
	hc, err := Target{BaseURL: srv.URL, API: APIMessages, APIKey: key}.HTTPClient(1)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Get(srv.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if r := srv.requests()[2]; r.Header.Get("X-Api-Key") != key || r.Header.Get("Anthropic-Version") != "2023-06-01" || r.Header.Get("Authorization") != "" {
		t.Errorf("HTTPClient's request: x-api-key %q, anthropic-version %q, authorization %q",
			r.Header.Get("X-Api-Key"), r.Header.Get("Anthropic-Version"), r.Header.Get("Authorization"))
	}
	if name, value := target.KeyHeader(); name != "X-Api-Key" || value != key {
		t.Errorf("KeyHeader() = %q, %q", name, value)
	}
	if name, value := (Target{API: APIChat, APIKey: key}).KeyHeader(); name != "Authorization" || value != "Bearer "+key {
		t.Errorf("chat: KeyHeader() = %q, %q", name, value)
	}
	if name, _ := (Target{API: APIMessages}).KeyHeader(); name != "" {
		t.Errorf("no key: KeyHeader() names %q", name)
	}

	// Another host, and a target that redirects everything there.
	var mu sync.Mutex
	var stolen []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		stolen = append(stolen, r.Method+" "+r.URL.Path+" x-api-key="+r.Header.Get("X-Api-Key"))
		mu.Unlock()
		http.Error(w, "not here", http.StatusNotFound)
	}))
	defer other.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	for _, policy := range []string{safehttp.Never, safehttp.SameHost} {
		t.Run("redirected, "+policy, func(t *testing.T) {
			target := Target{BaseURL: redirector.URL, API: APIMessages, APIKey: key, Model: "m", FollowRedirects: policy}
			res := sendOne(t, target, dataset.Request{Prompt: "x", PromptLen: 1, OutputLen: 4}, nil)
			if res.Error != metrics.ErrRedirect || strings.Contains(res.ErrorMessage, key) {
				t.Errorf("got %q %q, want a redirect failure without the key", res.Error, res.ErrorMessage)
			}
			hc, err := target.HTTPClient(1)
			if err != nil {
				t.Fatal(err)
			}
			if resp, err := hc.Post(redirector.URL+"/tokenize", "application/json", strings.NewReader(`{}`)); err == nil {
				resp.Body.Close()
			}
			mu.Lock()
			defer mu.Unlock()
			if len(stolen) > 0 {
				t.Errorf("another host received %q", stolen)
			}
		})
	}
}

// TestMessagesToolUse: tool_use blocks are tool calls, gathered by their
// block's index from the block's start (id and name) and the input's
// fragments, two calls one after the other, as Anthropic streams parallel
// tool use; the text before them stays the answer's text alone.
func TestMessagesToolUse(t *testing.T) {
	events := []msgEvent{
		msgStart(40), blockStart(0, `{"type":"text","text":""}`), textDelta(0, "Let me look."), blockStop(0),
		blockStart(1, `{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}`),
		delta(1, anthropicwire.DeltaInputJSON, "partial_json", ""),
		delta(1, anthropicwire.DeltaInputJSON, "partial_json", `{"city": `), delta(1, anthropicwire.DeltaInputJSON, "partial_json", `"Paris"}`), blockStop(1),
		blockStart(2, `{"type":"tool_use","id":"toolu_2","name":"get_time","input":{}}`),
		delta(2, anthropicwire.DeltaInputJSON, "partial_json", `{}`), blockStop(2),
		// A server that sends the whole input with the block's start.
		blockStart(3, `{"type":"tool_use","id":"toolu_3","name":"book","input":{"train":"TGV 6201"}}`), blockStop(3),
		msgDelta("tool_use", 30), msgStop,
	}
	var (
		c     chunk
		tools toolCalls
		res   metrics.Request
		text  []byte
		ph    streamPhases
	)
	c.hash = fnvOffset
	for _, e := range events {
		if err := (messages{}).Parse([]byte(e.name), []byte(e.data), &c, true); err != nil {
			t.Fatal(err)
		}
		if c.output {
			res.OutputEvents++
			tools.add(c.tools)
			text = append(text, c.text...)
			ph.add(&res, &c, zeroTime, zeroTime)
		}
	}
	tools.note(&res)
	want := []metrics.ToolCall{
		{ID: "toolu_1", Name: "get_weather", Arguments: `{"city": "Paris"}`},
		{ID: "toolu_2", Name: "get_time", Arguments: `{}`},
		{ID: "toolu_3", Name: "book", Arguments: `{"train":"TGV 6201"}`},
	}
	if diff := cmp.Diff(want, tools.all()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if res.ToolCalls != 3 || res.BadToolCall || res.ToolCallEvents != 6 || res.AnswerEvents != 1 || string(text) != "Let me look." {
		t.Errorf("calls %d, bad %v, tool-call events %d, answer events %d, text %q", res.ToolCalls, res.BadToolCall, res.ToolCallEvents, res.AnswerEvents, text)
	}
}

// The request's tools, OpenAI function tools as a dataset gives them, go
// in the API's own form, and its tool_choice too.
func TestMessagesBodyTools(t *testing.T) {
	defs := `[{"type":"function","function":{"name":"search","description":"Search the timetable","parameters":{"type":"object","properties":{"q":{"type":"string"}}}}},` +
		`{"type":"function","function":{"name":"now"}}]`
	wantTools := `[{"description":"Search the timetable","input_schema":{"type":"object","properties":{"q":{"type":"string"}}},"name":"search"},` +
		`{"input_schema":{"type":"object","properties":{}},"name":"now"}]`
	for _, tc := range []struct{ choice, want string }{
		{"", ""},
		{`"auto"`, `{"type":"auto"}`},
		{`"required"`, `{"type":"any"}`},
		{`"none"`, `{"type":"none"}`},
		{`{"type":"function","function":{"name":"now"}}`, `{"name":"now","type":"tool"}`},
	} {
		tools := &dataset.Tools{Defs: json.RawMessage(defs), Names: []string{"search", "now"}, Choice: json.RawMessage(tc.choice)}
		preps, err := prepare(Target{API: APIMessages, Model: "m"}, []dataset.Request{{Prompt: "x", OutputLen: 4, Tools: tools}})
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]json.RawMessage
		if err := json.Unmarshal(preps[0].body, &body); err != nil {
			t.Fatal(err)
		}
		if string(body["tools"]) != wantTools || string(body["tool_choice"]) != tc.want {
			t.Errorf("tool_choice %s: sent tools %s, tool_choice %s; want %s, %s", tc.choice, body["tools"], body["tool_choice"], wantTools, tc.want)
		}
	}
}

// An agent's history, as sessions hold it in OpenAI's chat form, goes in
// the API's: the system message apart, an assistant's calls as tool_use
// blocks after its text (arguments that are not an object as an empty
// input), the results that follow one another as one user message of
// tool_result blocks.
func TestMessagesBodyHistory(t *testing.T) {
	msgs := []dataset.Message{
		{Role: "system", Content: "You plan journeys."},
		{Role: "user", Content: "Trains to Lyon?"},
		{Role: "assistant", Content: "Let me look.", ToolCalls: []dataset.ToolCall{
			{ID: "c1", Type: "function", Function: dataset.FunctionCall{Name: "search", Arguments: `{"q": "Lyon"}`}},
			{ID: "c2", Type: "function", Function: dataset.FunctionCall{Name: "search", Arguments: `{"q": "Ly`}},
		}},
		{Role: "tool", ToolCallID: "c1", Content: "TGV 6201"},
		{Role: "tool", ToolCallID: "c2", Content: "no result"},
		{Role: "assistant", ToolCalls: []dataset.ToolCall{{ID: "c3", Type: "function", Function: dataset.FunctionCall{Name: "book"}}}},
		{Role: "tool", ToolCallID: "c3", Content: "booked"},
		{Role: "assistant", Content: "Booked on the TGV 6201."},
		{Role: "user", Content: "Thanks."},
	}
	preps, err := prepare(Target{API: APIMessages, Model: "m"}, []dataset.Request{{Messages: msgs, OutputLen: 4}})
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		System   string
		Messages json.RawMessage
	}
	if err := json.Unmarshal(preps[0].body, &body); err != nil {
		t.Fatal(err)
	}
	want := `[{"role":"user","content":"Trains to Lyon?"},` +
		`{"role":"assistant","content":[{"text":"Let me look.","type":"text"},{"id":"c1","input":{"q":"Lyon"},"name":"search","type":"tool_use"},{"id":"c2","input":{},"name":"search","type":"tool_use"}]},` +
		`{"role":"user","content":[{"content":"TGV 6201","tool_use_id":"c1","type":"tool_result"},{"content":"no result","tool_use_id":"c2","type":"tool_result"}]},` +
		`{"role":"assistant","content":[{"id":"c3","input":{},"name":"book","type":"tool_use"}]},` +
		`{"role":"user","content":[{"content":"booked","tool_use_id":"c3","type":"tool_result"}]},` +
		`{"role":"assistant","content":"Booked on the TGV 6201."},{"role":"user","content":"Thanks."}]`
	if body.System != "You plan journeys." || string(body.Messages) != want {
		t.Errorf("system %q, messages\n%s\nwant\n%s", body.System, body.Messages, want)
	}
}

// FuzzMessagesEvent: any event name and payload, through the Messages
// parser: it never panics, and what it reports holds together: output is
// reasoning or answer, only output carries text (kept only when asked
// for), and an event that ends the stream or reports an error carries no
// output. Seeded from the documented streams in testdata/messages.
func FuzzMessagesEvent(f *testing.F) {
	for _, e := range textStream() {
		f.Add(e.name, e.data)
	}
	files, _ := filepath.Glob("testdata/messages/*.sse")
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		events, err := parseAll(b, 4096)
		if err != nil {
			f.Fatal(err)
		}
		for _, e := range events {
			f.Add(e.Name, e.Data)
		}
	}
	p := protocols[APIMessages]
	f.Fuzz(func(t *testing.T, name, data string) {
		for _, keepText := range []bool{true, false} {
			c := chunk{text: []byte("left"), done: true, finish: "stop", tools: []toolDelta{{name: "left"}}}
			if err := p.Parse([]byte(name), []byte(data), &c, keepText); err != nil {
				return
			}
			if c.output != (c.reasoning || c.answer || c.toolCall) || c.toolCall != (len(c.tools) > 0) {
				t.Fatalf("output %v, reasoning %v, answer %v, tool call %v (%d fragments)", c.output, c.reasoning, c.answer, c.toolCall, len(c.tools))
			}
			if !c.output && (c.textBytes != 0 || len(c.text) != 0) {
				t.Fatalf("text %q (%d bytes) without output", c.text, c.textBytes)
			}
			// A tool call's name and input count as generated bytes but
			// are not the answer's text.
			if keepText && !c.toolCall && len(c.text) != c.textBytes || len(c.text) > c.textBytes || !keepText && len(c.text) != 0 {
				t.Fatalf("keepText %v: text %q, textBytes %d", keepText, c.text, c.textBytes)
			}
			if c.done && (c.output || c.errMsg != "") || c.errMsg != "" && c.output {
				t.Fatalf("an event that ends the stream or fails carries nothing else: %+v", c)
			}
		}
	})
}
