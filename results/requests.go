package results

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/llmload/llmload/metrics"
)

// RequestLine is one line of <scenario>.requests.jsonl. Offsets are
// milliseconds since the run's time zero (the result's time_zero); sent_at
// is the wall-clock send time, so that requests line up with server logs.
// Latencies are milliseconds and null when the request failed.
type RequestLine struct {
	ID           int64 `json:"id"`
	Stage        int   `json:"stage"` // closed-loop stage from 1; 0 for an open loop
	Warmup       bool  `json:"warmup"`
	DatasetIndex int   `json:"dataset_index"`
	// Repeat is the run of a repeated scenario (from 1); Arm and Block
	// place a request of an interleaved A/B run (blocks from 1).
	Repeat    int    `json:"repeat,omitempty"`
	Arm       string `json:"arm,omitempty"`
	Block     int    `json:"block,omitempty"`
	RequestID string `json:"request_id,omitempty"`
	// Traceparent is the W3C traceparent header the request carried.
	Traceparent string `json:"traceparent,omitempty"`
	// Session and Turn place a multi-turn session's request: the id of
	// the session's first request, and the turn from 1.
	Session      *int64    `json:"session,omitempty"`
	Turn         int       `json:"turn,omitempty"`
	SentAt       time.Time `json:"sent_at"`
	IntendedMs   float64   `json:"intended_ms"`
	DispatchedMs float64   `json:"dispatched_ms"`
	SentMs       float64   `json:"sent_ms"`
	EndMs        float64   `json:"end_ms"`
	QueueMs      float64   `json:"queue_ms"`
	LagMs        float64   `json:"lag_ms"`
	TTFTMs       *float64  `json:"ttft_ms"`
	ITLMs        []float64 `json:"itl_ms"`
	E2ELMs       *float64  `json:"e2el_ms"`
	// Reasoning models: the first token of each phase and its events.
	TTFTReasoningMs *float64 `json:"ttft_reasoning_ms,omitempty"`
	TTFTAnswerMs    *float64 `json:"ttft_answer_ms,omitempty"`
	ReasoningEvents int      `json:"reasoning_events,omitempty"`
	AnswerEvents    int      `json:"answer_events,omitempty"`
	ReasoningTokens int      `json:"reasoning_tokens,omitempty"`
	// Tool calls the answer streamed: the first tool-call token, the
	// events and calls, and whether one was malformed.
	TTFTToolCallMs *float64 `json:"ttft_tool_call_ms,omitempty"`
	ToolCallEvents int      `json:"tool_call_events,omitempty"`
	ToolCalls      int      `json:"tool_calls,omitempty"`
	BadToolCall    bool     `json:"bad_tool_call,omitempty"`
	// ToolRound numbers a session's request that sent tool results back
	// (1 for its turn's first round trip).
	ToolRound int `json:"tool_round,omitempty"`
	// SubAgent numbers a sub-request of a session's fan-out step, from 1.
	SubAgent int `json:"sub_agent,omitempty"`
	// Images the prompt carried, and its bytes (text and images).
	Images      int `json:"images,omitempty"`
	PromptBytes int `json:"prompt_bytes,omitempty"`
	// Abandoned is a request the client closed part-way (error
	// "abandoned"): ttft_ms is set when it had a first token, e2el_ms is
	// not, and its token fields hold what it received.
	Abandoned     bool   `json:"abandoned,omitempty"`
	PromptTokens  int    `json:"prompt_tokens"`
	PromptSource  string `json:"prompt_tokens_source"`
	DatasetPrompt int    `json:"dataset_prompt_tokens"`
	OutputTokens  int    `json:"output_tokens"`
	OutputSource  string `json:"output_tokens_source"`
	OutputEvents  int    `json:"output_events"`
	MaxTokens     int    `json:"max_tokens"`
	IgnoreEOS     bool   `json:"ignore_eos"`
	FinishReason  string `json:"finish_reason"`
	Truncated     bool   `json:"truncated"`
	// Stream sanity (metrics.Request): no per-token timing, several
	// tokens per event, and the client's own count beside usage.
	ShortOutput      bool              `json:"short_output,omitempty"`
	BytesReceived    int64             `json:"bytes_received"`
	RetryAfter       string            `json:"retry_after,omitempty"`
	Buffered         bool              `json:"buffered,omitempty"`
	MultiTokenEvents bool              `json:"multi_token_events,omitempty"`
	TokenizerOutput  int               `json:"tokenizer_output_tokens,omitempty"`
	Status           int               `json:"status_code,omitempty"`
	Error            metrics.ErrorKind `json:"error,omitempty"`
	ErrorMessage     string            `json:"error_message,omitempty"`
	// Connection phases (metrics.Request), null when the request was
	// never written (no connection): new_conn says it dialed; dns, connect
	// and tls are its own dial's (0 on a reused connection); written and
	// ttfb are offsets from the send; ttft_server_view is TTFT from the
	// written request (null when the request failed).
	NewConn bool `json:"new_conn"`
	// Retried: the request's reused connection failed before any byte of
	// the response and it was sent again on a new one (its latencies count
	// from the first send).
	Retried          bool     `json:"retried,omitempty"`
	BlockedMs        *float64 `json:"blocked_ms"`
	DNSMs            *float64 `json:"dns_ms"`
	ConnectMs        *float64 `json:"connect_ms"`
	TLSMs            *float64 `json:"tls_ms"`
	WrittenMs        *float64 `json:"written_ms"`
	TTFBMs           *float64 `json:"ttfb_ms"`
	TTFTServerViewMs *float64 `json:"ttft_server_view_ms"`

	// Off-spec answers: another model's name (metrics.Request.ServedModel),
	// events in bursts, more output than max_tokens.
	ServedModel string `json:"served_model,omitempty"`
	// SystemFingerprint is the response's system_fingerprint.
	SystemFingerprint string `json:"system_fingerprint,omitempty"`
	Coalesced         bool   `json:"coalesced,omitempty"`
	OverMaxTokens     bool   `json:"over_max_tokens,omitempty"`
	// What the engine reported of the request (absent when it did not):
	// cached prompt tokens, its own TTFT, queueing, prefill and time per
	// output token, and TTFT outside the engine.
	CachedTokens     *int     `json:"cached_tokens,omitempty"`
	EngineTTFTMs     *float64 `json:"engine_ttft_ms,omitempty"`
	EngineQueueMs    *float64 `json:"engine_queue_ms,omitempty"`
	EnginePrefillMs  *float64 `json:"engine_prefill_ms,omitempty"`
	EngineTPOTMs     *float64 `json:"engine_tpot_ms,omitempty"`
	ClientOverheadMs *float64 `json:"client_overhead_ms,omitempty"`
	// IdealCachedTokens is what an ideal prefix cache would have served
	// of the prompt from the dataset's earlier prompts (absent when
	// nothing).
	IdealCachedTokens int `json:"ideal_cached_tokens,omitempty"`
	// OutputHash is the generated text's FNV-1a (16 hex digits): answers
	// to one prompt that hash alike are the same text.
	OutputHash string `json:"output_hash,omitempty"`
	// ExpectedPass is whether the answer met the prompt's expected answer
	// (absent when the prompt had none).
	ExpectedPass *bool `json:"expected_pass,omitempty"`
	// ReferenceLen is the token count of the answer the dataset recorded
	// for the prompt (a ShareGPT reply; absent when it recorded none).
	ReferenceLen int `json:"reference_len,omitempty"`
	// Output defects (metrics.Request.Blank and the others).
	Blank      bool `json:"blank,omitempty"`
	Degenerate bool `json:"degenerate,omitempty"`
	BadText    bool `json:"bad_text,omitempty"`
	// DraftTokens and AcceptedDraftTokens are the speculative decoding
	// drafts the engine proposed and accepted (absent when none).
	DraftTokens         int `json:"draft_tokens,omitempty"`
	AcceptedDraftTokens int `json:"accepted_draft_tokens,omitempty"`
}

// NewRequestLine converts a request for the jsonl file. zero is the run's
// time zero (wall clock); stages says whether the run has closed-loop
// stages.
func NewRequestLine(r *metrics.Request, zero time.Time, stages bool) RequestLine {
	l := RequestLine{
		ID: r.ID, Warmup: r.Warmup, DatasetIndex: r.DatasetIndex, RequestID: r.RequestID, Traceparent: r.Traceparent,
		Repeat: r.Repeat, Arm: r.Arm, Block: r.Block,
		IntendedMs: ms(r.Intended), DispatchedMs: ms(r.Dispatched), SentMs: ms(r.Sent), EndMs: ms(r.End),
		QueueMs: ms(r.Queue()), LagMs: ms(r.Lag()),
		ITLMs:        make([]float64, len(r.ITL)),
		PromptTokens: r.PromptTokens, PromptSource: r.PromptTokensSource, DatasetPrompt: r.DatasetPromptTokens,
		OutputTokens: r.OutputTokens, OutputSource: r.OutputTokensSource, OutputEvents: r.OutputEvents,
		MaxTokens: r.MaxTokens, IgnoreEOS: r.IgnoreEOS, FinishReason: r.FinishReason, Truncated: r.Truncated(),
		Buffered: r.Buffered(), MultiTokenEvents: r.MultiTokenEvents(), TokenizerOutput: r.TokenizerOutputTokens,
		ShortOutput: r.ShortOutput, BytesReceived: r.BytesReceived, RetryAfter: r.RetryAfter,
		Status: r.StatusCode, Error: r.Error, ErrorMessage: r.ErrorMessage, Retried: r.Retried,
	}
	if !zero.IsZero() {
		l.SentAt = zero.Add(r.Sent).Round(0).UTC()
	}
	if stages && !r.Warmup {
		l.Stage = r.Stage + 1
	}
	if r.Turn > 0 {
		id := r.Session
		l.Session, l.Turn = &id, r.Turn
	}
	for i, g := range r.ITL {
		l.ITLMs[i] = ms(g)
	}
	l.ReasoningEvents, l.AnswerEvents, l.ReasoningTokens, l.Abandoned = r.ReasoningEvents, r.AnswerEvents, r.ReasoningTokens, r.Abandoned
	if r.OK() {
		e2e := ms(r.E2E)
		l.E2ELMs = &e2e
	}
	if r.OutputEvents > 0 && (r.OK() || r.Abandoned) {
		ttft := ms(r.TTFT)
		l.TTFTMs = &ttft
		if r.ReasoningEvents > 0 {
			v := ms(r.TTFTReasoning)
			l.TTFTReasoningMs = &v
		}
		if r.ReasoningEvents > 0 && r.AnswerEvents > 0 {
			v := ms(r.TTFTAnswer)
			l.TTFTAnswerMs = &v
		}
		if r.ToolCallEvents > 0 {
			v := ms(r.TTFTToolCall)
			l.TTFTToolCallMs = &v
		}
	}
	msp := func(d time.Duration) *float64 { v := ms(d); return &v }
	l.ServedModel, l.Coalesced, l.OverMaxTokens = r.ServedModel, r.Coalesced(), r.OverMaxTokens()
	l.SystemFingerprint = r.SystemFingerprint
	l.IdealCachedTokens = r.IdealCachedTokens
	l.OutputHash = hashString(r.OutputHash)
	l.ExpectedPass, l.ReferenceLen = r.ExpectedPass, r.ReferenceLen
	l.Blank, l.Degenerate, l.BadText = r.Blank, r.Degenerate, r.BadText
	l.ToolCallEvents, l.ToolCalls, l.BadToolCall, l.ToolRound, l.SubAgent = r.ToolCallEvents, r.ToolCalls, r.BadToolCall, r.ToolRound, r.SubAgent
	l.Images, l.PromptBytes = r.Images, r.PromptBytes
	l.DraftTokens, l.AcceptedDraftTokens = r.DraftTokens, r.AcceptedDraftTokens
	if r.CacheReported {
		n := r.CachedTokens
		l.CachedTokens = &n
	}
	for _, e := range []struct {
		d   time.Duration
		dst **float64
	}{{r.EngineTTFT, &l.EngineTTFTMs}, {r.EngineQueue, &l.EngineQueueMs}, {r.EnginePrefill, &l.EnginePrefillMs}, {r.EngineTPOT, &l.EngineTPOTMs}} {
		if e.d > 0 {
			*e.dst = msp(e.d)
		}
	}
	if d, ok := r.ClientOverhead(); ok {
		l.ClientOverheadMs = msp(d)
	}
	if r.Written > 0 {
		l.NewConn = r.NewConn
		l.BlockedMs, l.DNSMs, l.ConnectMs, l.TLSMs = msp(r.Blocked), msp(r.DNS), msp(r.Connect), msp(r.TLS)
		l.WrittenMs = msp(r.Written)
		if r.TTFB > 0 {
			l.TTFBMs = msp(r.TTFB)
		}
		if r.OK() {
			l.TTFTServerViewMs = msp(r.TTFTServerView())
		}
	}
	return l
}

// RequestWriter streams <scenario>.requests.jsonl: each finished request is
// encoded and appended as it arrives (through a buffer flushed on every
// snapshot and at the end), then forgotten. It writes to a temporary file
// beside the final path and renames it into place on Close, so a reader
// never sees a half-written file under the final name. It is an executor
// Observer.
type RequestWriter struct {
	path, tmp string
	f         *os.File
	w         *bufio.Writer
	enc       *json.Encoder
	zero      time.Time
	stages    bool
	lines     int
	err       error
	// line is a request's line, nil for none (NewRequestLine for the
	// requests file).
	line func(r *metrics.Request, zero time.Time, stages bool) any
	// also are files written beside this one (the outputs file): each
	// request goes to them too, and they are closed, kept or removed
	// with it.
	also []*RequestWriter
}

// Also writes each request to w too, and closes, keeps or removes w with
// rw.
func (rw *RequestWriter) Also(w *RequestWriter) { rw.also = append(rw.also, w) }

// Paths are the final paths of rw's file and of those written beside it.
func (rw *RequestWriter) Paths() []string {
	p := []string{rw.path}
	for _, w := range rw.also {
		p = append(p, w.path)
	}
	return p
}

// Remove closes the files and removes them: a run that saved nothing.
func (rw *RequestWriter) Remove() {
	rw.Close()
	for _, p := range rw.Paths() {
		os.Remove(p)
	}
}

// CreateRequests opens <dir>/<scenario>.requests.jsonl for streaming,
// creating dir. It fails before any load is sent when the file cannot be
// written. stages says whether the run has closed-loop stages (numbered
// from 1 in the file).
func CreateRequests(dir, scenario string, stages bool) (*RequestWriter, error) {
	return createLines(dir, scenario, ".requests.jsonl", stages, func(r *metrics.Request, zero time.Time, stages bool) any {
		return NewRequestLine(r, zero, stages)
	})
}

// OutputLine is one kept answer in <scenario>.outputs.jsonl: the text the
// server generated for the request (reasoning and answer as streamed,
// secrets scrubbed), with what identifies the request and its prompt.
type OutputLine struct {
	ID           int64  `json:"id"`
	DatasetIndex int    `json:"dataset_index"`
	Repeat       int    `json:"repeat,omitempty"`
	Arm          string `json:"arm,omitempty"`
	Session      *int64 `json:"session,omitempty"`
	Turn         int    `json:"turn,omitempty"`
	FinishReason string `json:"finish_reason"`
	OutputTokens int    `json:"output_tokens"`
	OutputHash   string `json:"output_hash,omitempty"`
	Text         string `json:"text"`
}

// CreateOutputs opens <dir>/<scenario>.outputs.jsonl for the generated
// text of the requests whose id is under keep (the executor keeps just
// theirs: Plan.KeepOutputs), each line written as its request ends, its
// text passed through scrub.
func CreateOutputs(dir, scenario string, keep int, scrub func(string) string) (*RequestWriter, error) {
	return createLines(dir, scenario, ".outputs.jsonl", false, func(r *metrics.Request, _ time.Time, _ bool) any {
		if r.ID >= int64(keep) || r.OutputEvents == 0 {
			return nil
		}
		l := OutputLine{ID: r.ID, DatasetIndex: r.DatasetIndex, Repeat: r.Repeat, Arm: r.Arm, Turn: r.Turn,
			FinishReason: r.FinishReason, OutputTokens: r.OutputTokens, OutputHash: hashString(r.OutputHash), Text: scrub(r.GeneratedText)}
		if r.Turn > 0 {
			s := r.Session
			l.Session = &s
		}
		return l
	})
}

// hashString writes an output hash as 16 hex digits ("" for none).
func hashString(h uint64) string {
	if h == 0 {
		return ""
	}
	return fmt.Sprintf("%016x", h)
}

// createLines opens <dir>/<scenario><suffix> for streaming lines.
func createLines(dir, scenario, suffix string, stages bool, line func(*metrics.Request, time.Time, bool) any) (*RequestWriter, error) {
	if err := checkName(scenario); err != nil {
		return nil, err
	}
	name := scenario + suffix
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, name)
	f, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(f, 256<<10)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &RequestWriter{path: path, tmp: f.Name(), f: f, w: w, enc: enc, stages: stages, line: line}, nil
}

// Start sets the run's time zero, for sent_at (executor.Starter).
func (rw *RequestWriter) Start(zero time.Time) { rw.zero = zero }

// Result appends one request.
func (rw *RequestWriter) Result(r *metrics.Request) {
	for _, w := range rw.also {
		w.Result(r)
	}
	if rw.err != nil {
		return
	}
	l := rw.line(r, rw.zero, rw.stages)
	if l == nil {
		return
	}
	if err := rw.enc.Encode(l); err != nil {
		rw.err = fmt.Errorf("writing %s: %w", rw.path, err)
		return
	}
	rw.lines++
}

// Flush writes the buffered lines to the files.
func (rw *RequestWriter) Flush() {
	for _, w := range rw.also {
		w.Flush()
	}
	if rw.err == nil {
		if err := rw.w.Flush(); err != nil {
			rw.err = fmt.Errorf("writing %s: %w", rw.path, err)
		}
	}
}

// Lines is the number of lines written.
func (rw *RequestWriter) Lines() int { return rw.lines }

// Path is the final path of the file.
func (rw *RequestWriter) Path() string { return rw.path }

// Close flushes, syncs and renames the files into place; on an earlier
// write error it removes the temporary file and returns that error (the
// first of the files').
func (rw *RequestWriter) Close() error {
	for _, w := range rw.also {
		if err := w.Close(); err != nil && rw.err == nil {
			rw.err = err
		}
	}
	rw.Flush()
	if rw.err == nil {
		if err := rw.f.Sync(); err != nil {
			rw.err = fmt.Errorf("writing %s: %w", rw.path, err)
		}
	}
	if err := rw.f.Close(); err != nil && rw.err == nil {
		rw.err = fmt.Errorf("writing %s: %w", rw.path, err)
	}
	if rw.err == nil {
		if err := os.Chmod(rw.tmp, 0o644); err != nil {
			rw.err = err
		} else if err := os.Rename(rw.tmp, rw.path); err != nil {
			rw.err = err
		}
	}
	if rw.err != nil {
		os.Remove(rw.tmp)
	}
	return rw.err
}

// Snapshot flushes what has been written so far.
func (rw *RequestWriter) Snapshot(metrics.Snapshot) { rw.Flush() }
