package executortest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmload/llmload/internal/apis"
	"github.com/llmload/llmload/internal/openaiwire"
)

// Config shapes the server's responses. The zero value streams, without
// delay, max_tokens single-token chunks followed by a usage chunk (when the
// request asks for one) and [DONE].
type Config struct {
	// TTFT is the time from receiving a request to its first output chunk;
	// ITL the time between output chunks. Chunks are sent at absolute
	// deadlines (received + TTFT + k*ITL), so the server's own jitter does
	// not accumulate.
	TTFT, ITL time.Duration
	// Tokens is the number of output tokens per response (0 = the request's
	// max_tokens, 16 when it has none).
	Tokens int
	// TokensPerChunk puts several tokens in one chunk (0 = 1).
	TokensPerChunk int
	// Text is the text of every token (default: the words of
	// defaultWords in turn, one an event).
	Text string
	// Reasoning sends the first Reasoning output chunks of a chat stream as
	// delta.reasoning_content (a reasoning model's thinking), the rest as
	// delta.content.
	Reasoning int
	// RoleChunk sends a role-only chunk (no output) right after the headers.
	RoleChunk bool
	// NoUsage never sends the usage chunk; otherwise it is sent when the
	// request asks for it with stream_options.include_usage.
	NoUsage bool
	// UsageTokens, when not 0, is the completion_tokens the usage chunk
	// claims (-1: 0), whatever was streamed: a server that lies.
	UsageTokens int
	// NoDone omits the final "data: [DONE]".
	NoDone bool
	// FinishReason is sent on the last output chunk (default "length" when
	// the response reached max_tokens, else "stop").
	FinishReason string
	// PromptTokens is reported in usage (default 10).
	PromptTokens int
	// Wire format variations.
	CRLF      bool // CRLF line ends
	CR        bool // bare CR line ends (valid in the event-stream format)
	NoSpace   bool // "data:" with no space after the colon
	Comments  bool // a ": ping" comment line before every event
	MultiLine bool // every JSON payload split over two data: lines
	Padding   int  // bytes of padding in every chunk's JSON (long lines)
	// Status, when set, is replied (with Body) instead of a stream.
	Status int
	Body   string
	// Delay is waited before the response headers.
	Delay time.Duration
	// Fault breaks the stream.
	Fault Fault
	// Buffered holds every output chunk, produced at its deadline, and
	// writes them all in one flush after the last, as a buffering proxy
	// does: the client sees every token arrive at once.
	Buffered bool
	// Coalesce, when over 1, holds output chunks and writes them that many
	// at a time, each batch at the deadline of its last (a proxy that
	// flushes several events at once): the client reads bursts.
	Coalesce int
	// Model, when set, is the model every output chunk names (none by
	// default): a server that answers with another model than asked.
	Model string
	// Fingerprint, when set, is every output chunk's system_fingerprint.
	Fingerprint string
	// Mode is one named fault of a whole server or response (ModeCrash,
	// ModeBuffered, ...; "" for none), for tests that provoke each fault a
	// real deployment shows. ModeAfter is its count where it takes one.
	Mode      Mode
	ModeAfter int
	// RecordSends keeps when each output chunk was flushed, by x-request-id
	// (see Sends): the truth to compare a client's timestamps with. It
	// keeps when each write began too (see WriteStarts).
	RecordSends bool
	// Vary, when set, adjusts a copy of the config for request i (0-based,
	// in arrival order): per-request delays, faults or lengths.
	Vary func(i int, c *Config)
}

// FaultKind is a way for a stream to break.
type FaultKind int

// The faults a stream can have.
const (
	NoFault     FaultKind = iota
	Hangup                // close the connection before any response
	Drop                  // close the connection mid-stream (no end of body)
	Stall                 // stop sending and hold the connection open
	ErrorEvent            // send "event: error" and end the stream
	ErrorObject           // send a data payload {"object":"error",...} and end
	Malformed             // send a data payload that is not JSON and end
)

// Mode names a fault of a whole server or response.
type Mode string

// The modes.
const (
	// ModeCrash: the server dies when request ModeAfter (0-based) arrives:
	// its listener closes, every connection (streams in flight too) is cut
	// and later requests are refused.
	ModeCrash Mode = "crash"
	// ModeBuffered: every event is held and all are flushed at once at the
	// end (a buffering proxy); the timing of the last token is kept.
	ModeBuffered Mode = "buffered"
	// ModeOneEvent: one event carries every token.
	ModeOneEvent Mode = "one_event"
	// ModeTruncated: the body ends cleanly after ModeAfter output chunks,
	// with no finish_reason, no usage and no [DONE].
	ModeTruncated Mode = "truncated"
	// ModeStall: after ModeAfter output chunks nothing more is sent and
	// the connection is held open.
	ModeStall Mode = "stall"
	// ModeReset: after ModeAfter output chunks the TCP connection is reset
	// (RST, not a clean close).
	ModeReset Mode = "reset"
	// ModeNotSSE: a 200 with a non-streamed application/json completion.
	ModeNotSSE Mode = "not_sse"
	// ModeAuthEcho: a 401 whose body echoes the request's headers, as
	// some gateways do (credentials included).
	ModeAuthEcho Mode = "auth_echo"
	// ModeRateLimited: a 429 with "Retry-After: 2".
	ModeRateLimited Mode = "rate_limited"
	// ModeKeepAlive: after ModeAfter output chunks only SSE comment lines
	// (": keep-alive") follow, every 20 ms, until the client goes.
	ModeKeepAlive Mode = "keep_alive"
	// ModeHoldAfterDone: the stream ends as it should ([DONE]), but the
	// body is held open until the client goes.
	ModeHoldAfterDone Mode = "hold_after_done"
	// ModeStaleKeepAlive: each connection answers its first request in
	// full, without "Connection: close", so the client keeps it; a later
	// request on it is read and the connection closed without a byte of
	// answer. That is what a client sees when it reuses a connection the
	// server closed while it sat idle (llama.cpp's llama-server closes it
	// after every streamed reply), without the race of when that close
	// reaches the client. The close comes after Delay, as the answer
	// would have. Such requests are not counted (Count) but in Stale.
	ModeStaleKeepAlive Mode = "stale_keep_alive"
	// ModeHugeEvent: after ModeAfter output chunks, one event's data line
	// grows without end (64 KiB at a time) until the client goes.
	ModeHugeEvent Mode = "huge_event"
)

// Fault breaks a stream after After output chunks.
type Fault struct {
	Kind  FaultKind
	After int
}

// Received is a request as the server saw it.
type Received struct {
	Path       string
	ProtoMajor int
	Header     http.Header
	Body       map[string]any
}

// Server is a running fake server. Close it when done.
type Server struct {
	*httptest.Server
	cfg      Config
	count    atomic.Int64
	inflight atomic.Int64
	peak     atomic.Int64
	conns    atomic.Int64
	gone     atomic.Int64
	stale    atomic.Int64
	mu       sync.Mutex
	received []Received
	sends    map[string][]time.Time
	writes   map[string][]time.Time
	recv     map[string]time.Time
	crashed  sync.Once
}

// New starts a server on loopback.
func New(cfg Config) *Server {
	s := NewUnstarted(cfg)
	s.Start()
	return s
}

// NewUnstarted returns a server that is not started yet, for TLS or HTTP/2
// (set s.EnableHTTP2 and call s.StartTLS).
func NewUnstarted(cfg Config) *Server {
	s := &Server{cfg: cfg}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.Config.ConnContext = func(ctx context.Context, _ net.Conn) context.Context {
		return context.WithValue(ctx, connRequests{}, new(atomic.Int64))
	}
	return s
}

// connRequests keys a connection's count of requests in its context.
type connRequests struct{}

// Count is the number of requests received.
func (s *Server) Count() int { return int(s.count.Load()) }

// Gone is how many streams ended early because their client went away
// (closed the connection or reset the stream) while it waited to send.
func (s *Server) Gone() int { return int(s.gone.Load()) }

// Stale is the number of requests refused on a connection that had
// already served one (ModeStaleKeepAlive).
func (s *Server) Stale() int { return int(s.stale.Load()) }

// Conns is the number of connections accepted.
func (s *Server) Conns() int { return int(s.conns.Load()) }

// MaxConcurrent is the largest number of requests handled at once.
func (s *Server) MaxConcurrent() int { return int(s.peak.Load()) }

// Sends returns when each output chunk of the request with this
// x-request-id was flushed (with Config.RecordSends).
func (s *Server) Sends(requestID string) []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sends[requestID]
}

// WriteStarts returns when the server began writing each output chunk of
// the request with this x-request-id (with Config.RecordSends). No client
// can have received a chunk before its write began; its Sends time, read
// once the write and the flush have returned, can come after a client on
// the same machine already stamped it (the kernel stamps the bytes' arrival
// during the write), by as long as the server waited for a CPU in between.
func (s *Server) WriteStarts(requestID string) []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writes[requestID]
}

// AllSends returns Sends for every request recorded, by x-request-id.
func (s *Server) AllSends() map[string][]time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.sends)
}

// ReceivedAt returns when the handler of each request recorded (with
// Config.RecordSends) began, by x-request-id: the server's clock start for
// TTFT, after the connection was accepted and the request read.
func (s *Server) ReceivedAt() map[string]time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.recv)
}

// Received returns the requests received so far, in arrival order.
func (s *Server) Received() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.received...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	received := time.Now()
	if n, _ := r.Context().Value(connRequests{}).(*atomic.Int64); s.cfg.Mode == ModeStaleKeepAlive && n != nil && n.Add(1) > 1 {
		io.Copy(io.Discard, r.Body)
		sleepUntil(r, received.Add(s.cfg.Delay))
		s.stale.Add(1)
		panic(http.ErrAbortHandler) // closes the connection, nothing written
	}
	// The suffix, so that a BaseURL with a path prefix reaches it too. Other
	// paths (a /metrics probe, say) are not requests: they are not counted.
	chat := strings.HasSuffix(r.URL.Path, apis.PathChat)
	if !chat && !strings.HasSuffix(r.URL.Path, apis.PathCompletions) {
		http.NotFound(w, r)
		return
	}
	i := int(s.count.Add(1) - 1)
	n := s.inflight.Add(1)
	defer s.inflight.Add(-1)
	for old := s.peak.Load(); n > old && !s.peak.CompareAndSwap(old, n); old = s.peak.Load() {
	}

	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		http.Error(w, "bad JSON body: "+err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.received = append(s.received, Received{Path: r.URL.Path, ProtoMajor: r.ProtoMajor, Header: r.Header.Clone(), Body: body})
	s.mu.Unlock()

	cfg := s.cfg
	if cfg.Vary != nil {
		cfg.Vary(i, &cfg)
	}
	if cfg.Fault.Kind == Hangup {
		panic(http.ErrAbortHandler)
	}
	switch cfg.Mode {
	case ModeCrash:
		if i >= cfg.ModeAfter {
			s.crash()
			panic(http.ErrAbortHandler)
		}
	case ModeNotSSE:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"cmpl-%d","object":"text_completion","choices":[{"index":0,"text":"not streamed","finish_reason":"stop"}]}`, i)
		return
	case ModeAuthEcho:
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintln(w, "401 Unauthorized. Your request was:")
		r.Header.Write(w)
		return
	case ModeRateLimited:
		w.Header().Set("Retry-After", "2")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"error":{"message":"rate limit exceeded","type":"rate_limit"}}`)
		return
	}
	if !sleepUntil(r, received.Add(cfg.Delay)) {
		return
	}
	if cfg.Status != 0 {
		w.WriteHeader(cfg.Status)
		io.WriteString(w, cfg.Body)
		return
	}

	st := stream{w: w, f: w.(http.Flusher), cfg: &cfg, chat: chat, id: "cmpl-" + strconv.Itoa(i)}
	if cfg.Mode == ModeBuffered {
		held := &heldWriter{}
		st.w, st.f = held, held
		defer func() {
			w.Write(held.Bytes())
			w.(http.Flusher).Flush()
		}()
	}
	maxTokens, hasMax := number(body["max_tokens"])
	tokens := cfg.Tokens
	if tokens == 0 {
		tokens = 16
		if hasMax {
			tokens = maxTokens
		}
	}
	finish := cfg.FinishReason
	if finish == "" {
		finish = openaiwire.FinishStop
		if hasMax && tokens >= maxTokens {
			finish = openaiwire.FinishLength
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	st.f.Flush()
	if cfg.RoleChunk {
		st.event("", st.choice(`"role":"assistant","content":""`, "", ""))
	}

	per := max(cfg.TokensPerChunk, 1)
	if cfg.Mode == ModeOneEvent {
		per = max(tokens, 1)
	}
	// Each event's text: Text repeated, or by default a word of
	// defaultWords in turn, so that answers are varied text (one string
	// repeated reads as a degenerate loop to the output checks).
	text := func(k int) string {
		if cfg.Text != "" {
			return cfg.Text
		}
		return defaultWords[k%len(defaultWords)]
	}
	rendered := map[string][]byte{} // answer events without a finish, by content
	chunks := (tokens + per - 1) / per
	var sends, writes []time.Time
	var ev []byte // the last output event, reused while it does not change
	var lastContent, lastFinish string
	var held []byte // Buffered: the chunks not yet written
	for k := 0; k < chunks; k++ {
		if cfg.Fault.Kind != NoFault && k == cfg.Fault.After {
			st.fault(r)
			return
		}
		if k == cfg.ModeAfter {
			switch cfg.Mode {
			case ModeTruncated:
				return
			case ModeStall:
				<-r.Context().Done()
				return
			case ModeReset:
				reset(w)
				return
			case ModeKeepAlive:
				for {
					st.write([]byte(": keep-alive\n\n"))
					if !sleepUntil(r, time.Now().Add(20*time.Millisecond)) {
						return
					}
				}
			case ModeHugeEvent:
				st.write([]byte(`data: {"choices":[{"index":0,"text":"`))
				junk := []byte(strings.Repeat("x", 64<<10))
				for r.Context().Err() == nil {
					if _, err := st.w.Write(junk); err != nil {
						return
					}
				}
				return
			}
		}
		if !sleepUntil(r, received.Add(cfg.TTFT+time.Duration(k)*cfg.ITL)) {
			s.gone.Add(1)
			return
		}
		fr := ""
		if k == chunks-1 {
			fr = finish
		}
		content := strings.Repeat(text(k), min(per, tokens-k*per))
		if k < cfg.Reasoning && chat {
			ev = st.render("", st.reasoning(content))
			lastContent = ""
		} else if content != lastContent || fr != lastFinish || ev == nil {
			if cached, ok := rendered[content]; ok && fr == "" {
				ev = cached
			} else {
				ev = st.render("", st.choice("", content, fr))
				if fr == "" {
					rendered[content] = ev
				}
			}
			lastContent, lastFinish = content, fr
		}
		if cfg.Buffered {
			held = append(held, ev...)
			continue
		}
		if cfg.Coalesce > 1 {
			held = append(held, ev...)
			if (k+1)%cfg.Coalesce == 0 {
				st.write(held)
				held = held[:0]
			}
			continue
		}
		var began time.Time
		if cfg.RecordSends {
			began = time.Now()
		}
		st.write(ev)
		if cfg.RecordSends {
			sends = append(sends, time.Now())
			writes = append(writes, began)
		}
	}
	if len(held) > 0 {
		st.write(held)
	}
	if cfg.RecordSends {
		id := r.Header.Get("X-Request-Id")
		s.mu.Lock()
		if s.sends == nil {
			s.sends, s.writes, s.recv = map[string][]time.Time{}, map[string][]time.Time{}, map[string]time.Time{}
		}
		s.sends[id], s.writes[id], s.recv[id] = sends, writes, received
		s.mu.Unlock()
	}
	if cfg.Fault.Kind != NoFault && cfg.Fault.After >= chunks {
		st.fault(r)
		return
	}
	if usage, _ := body["stream_options"].(map[string]any); usage["include_usage"] == true && !cfg.NoUsage {
		prompt := cfg.PromptTokens
		if prompt == 0 {
			prompt = 10
		}
		claimed := tokens
		switch {
		case cfg.UsageTokens < 0:
			claimed = 0
		case cfg.UsageTokens > 0:
			claimed = cfg.UsageTokens
		}
		st.event("", fmt.Sprintf(`{"id":%q,"object":"chunk","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`,
			st.id, prompt, claimed, prompt+claimed))
	}
	if !cfg.NoDone {
		st.event("", openaiwire.Done)
	}
	if cfg.Mode == ModeHoldAfterDone {
		<-r.Context().Done()
	}
}

// stream writes the events of one response.
type stream struct {
	w    io.Writer
	f    http.Flusher
	cfg  *Config
	chat bool
	id   string
}

// choice renders an output chunk: a delta (chat) or text (completions)
// with content, or, when role is set, a chat delta with those fields.
func (st *stream) choice(role, content, finish string) string {
	fr := "null"
	if finish != "" {
		fr = strconv.Quote(finish)
	}
	pad := ""
	if st.cfg.Padding > 0 {
		pad = `"pad":"` + strings.Repeat("x", st.cfg.Padding) + `",`
	}
	if st.cfg.Model != "" {
		m, _ := json.Marshal(st.cfg.Model)
		pad += `"model":` + string(m) + ","
	}
	if st.cfg.Fingerprint != "" {
		f, _ := json.Marshal(st.cfg.Fingerprint)
		pad += `"system_fingerprint":` + string(f) + ","
	}
	c, _ := json.Marshal(content)
	switch {
	case role != "" && st.chat:
		return fmt.Sprintf(`{%s"id":%q,"object":%q,"choices":[{"index":0,"delta":{%s},"finish_reason":null}]}`, pad, st.id, openaiwire.ObjectChatChunk, role)
	case role != "":
		return fmt.Sprintf(`{%s"id":%q,"object":%q,"choices":[{"index":0,"text":"","finish_reason":null}]}`, pad, st.id, openaiwire.ObjectCompletion)
	case st.chat:
		return fmt.Sprintf(`{%s"id":%q,"object":%q,"choices":[{"index":0,"delta":{"content":%s},"finish_reason":%s}]}`, pad, st.id, openaiwire.ObjectChatChunk, c, fr)
	default:
		return fmt.Sprintf(`{%s"id":%q,"object":%q,"choices":[{"index":0,"text":%s,"finish_reason":%s}]}`, pad, st.id, openaiwire.ObjectCompletion, c, fr)
	}
}

// reasoning renders a chat chunk of reasoning.
func (st *stream) reasoning(content string) string {
	c, _ := json.Marshal(content)
	return fmt.Sprintf(`{"id":%q,"object":%q,"choices":[{"index":0,"delta":{"reasoning_content":%s},"finish_reason":null}]}`, st.id, openaiwire.ObjectChatChunk, c)
}

// event writes one SSE event in the configured wire format and flushes it.
func (st *stream) event(name, data string) { st.write(st.render(name, data)) }

// render formats one SSE event in the configured wire format.
func (st *stream) render(name, data string) []byte {
	nl := "\n"
	if st.cfg.CRLF {
		nl = "\r\n"
	}
	if st.cfg.CR {
		nl = "\r"
	}
	prefix := "data: "
	if st.cfg.NoSpace {
		prefix = "data:"
	}
	var b strings.Builder
	if st.cfg.Comments {
		b.WriteString(": ping" + nl)
	}
	if name != "" {
		b.WriteString("event: " + name + nl)
	}
	if i := strings.IndexByte(data, ','); st.cfg.MultiLine && i > 0 {
		b.WriteString(prefix + data[:i+1] + nl)
		data = data[i+1:]
	}
	b.WriteString(prefix + data + nl + nl)
	return []byte(b.String())
}

// write sends rendered events and flushes them.
func (st *stream) write(b []byte) {
	st.w.Write(b)
	st.f.Flush()
}

// fault breaks the stream as configured.
func (st *stream) fault(r *http.Request) {
	switch st.cfg.Fault.Kind {
	case Drop:
		panic(http.ErrAbortHandler)
	case Stall:
		<-r.Context().Done()
	case ErrorEvent:
		st.event("error", `{"error":{"message":"engine died"}}`)
	case ErrorObject:
		st.event("", `{"object":"`+openaiwire.ObjectError+`","message":"engine died","type":"InternalServerError","code":500}`)
	case Malformed:
		st.event("", `{"choices":[{"text":"unterminated`)
	}
}

// heldWriter holds a response's events instead of sending them.
type heldWriter struct{ bytes.Buffer }

// Flush does nothing: the events wait for the end of the response.
func (*heldWriter) Flush() {}

// crash kills the server: no new connection is accepted and every open
// one is closed.
func (s *Server) crash() {
	s.crashed.Do(func() {
		s.Listener.Close()
		go s.CloseClientConnections()
	})
}

// reset aborts a response's connection with a TCP RST.
func reset(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

// sleepUntil waits for t; false when the client went away first.
func sleepUntil(r *http.Request, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return true
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// number reads a JSON number as an int.
func number(v any) (int, bool) {
	f, ok := v.(float64)
	return int(f), ok
}

// SlowAccept wraps a listener so that each accepted connection is held
// for d before the server sees it: a server slow to take new connections
// (an accept backlog). On plain TCP the kernel completes the client's
// handshake before Accept, so the wait shows after the request is
// written; over TLS it is inside the handshake. Set it on an unstarted
// server: s.Listener = executortest.SlowAccept(s.Listener, d).
func SlowAccept(l net.Listener, d time.Duration) net.Listener { return &slowListener{l, d} }

type slowListener struct {
	net.Listener
	d time.Duration
}

func (l *slowListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		time.Sleep(l.d)
	}
	return c, err
}

// defaultWords are the default tokens: common words, each one token in
// the usual tokenizers and in llmload's approximate count, sent one event
// after another.
var defaultWords = []string{"the ", "of ", "and ", "to ", "in ", "is ", "it ", "that "}
