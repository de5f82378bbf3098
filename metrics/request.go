package metrics

import (
	"math"
	"strings"
	"time"
)

// ErrorKind classifies a failed request. A failed request is data, not an
// error: it is counted by kind while the run goes on.
type ErrorKind string

// The kinds of failure a request can end in.
const (
	ErrNone       ErrorKind = ""
	ErrConnect    ErrorKind = "connect"     // dial, TLS or write failed before any response (after one retry on a new connection when a reused one died)
	ErrHTTPStatus ErrorKind = "http_status" // non-2xx response (but 429 and redirects)
	// ErrRedirect is a 3xx answer that the target's follow_redirects did
	// not follow (none by default; "same-host" follows the target's own):
	// the message names where it pointed.
	ErrRedirect    ErrorKind = "redirect"
	ErrRateLimited ErrorKind = "rate_limited"    // HTTP 429; its Retry-After is kept in Request.RetryAfter
	ErrNotSSE      ErrorKind = "not_sse"         // a 2xx answer that is not an event stream (JSON, an HTML page): its body is kept in the message
	ErrTimeout     ErrorKind = "timeout"         // whole-request timeout expired
	ErrStall       ErrorKind = "stall"           // no bytes for longer than stall_timeout inside a stream
	ErrStream      ErrorKind = "stream_error"    // connection dropped or read failed mid-stream, or an error event
	ErrMalformed   ErrorKind = "malformed_event" // an SSE data payload that is not the JSON we expect
	ErrEmpty       ErrorKind = "empty_response"  // the stream ended without a single output token
	// ErrServerAbort is a stream the server ended with finish_reason
	// "abort" or "error" (what vLLM and SGLang send when they abort a
	// request): whatever it streamed before, the answer is broken.
	ErrServerAbort ErrorKind = "server_abort"
	// ErrOversized is an event (or a line of one) longer than
	// MaxEventBytes: a misbehaving server or proxy must not exhaust the
	// client's memory.
	ErrOversized ErrorKind = "oversized_event"
	// ErrTruncatedStream is a stream that ended (EOF, closed connection)
	// with neither a finish_reason nor [DONE]: the answer was cut short.
	// Not to be confused with Summary.Truncated, a complete answer that
	// stopped at max_tokens.
	ErrTruncatedStream ErrorKind = "truncated_stream"
	ErrCanceled        ErrorKind = "canceled" // the run was interrupted while the request was in flight: not a failure of the server
	// ErrClientLimit is a request the client could not send for want of
	// its own resources (too many open files, no free local port): the
	// client's failure, not the server's, and it makes the run invalid.
	ErrClientLimit ErrorKind = "client_limit"
	// ErrAbandoned is a request the client closed part-way on purpose, as
	// a reader who closes the tab (a scenario's abandon block): an outcome
	// of its own, neither completed nor failed nor canceled.
	ErrAbandoned ErrorKind = "abandoned"
)

// ErrorKinds lists every failure kind in report order (ErrAbandoned, an
// outcome the scenario asked for, is not among them).
var ErrorKinds = []ErrorKind{ErrConnect, ErrHTTPStatus, ErrRedirect, ErrRateLimited, ErrNotSSE, ErrTimeout, ErrStall, ErrStream, ErrServerAbort, ErrTruncatedStream, ErrMalformed, ErrOversized, ErrEmpty, ErrClientLimit, ErrCanceled}

// Where a token count came from.
const (
	SourceUsage     = "usage"     // the server's usage block
	SourceTokenizer = "tokenizer" // the dataset tokenizer on the generated text
	SourceEvents    = "events"    // the number of output-carrying events (approximate)
	SourceDataset   = "dataset"   // the dataset's own count (prompt tokens)
	SourceNone      = "none"      // the API generates no output (embeddings): 0 is exact
)

// ToolCall is one tool call an answer made: its id, function name and
// arguments (JSON text).
type ToolCall struct {
	ID, Name, Arguments string
}

// Request is the outcome of one request. All offsets are monotonic-clock
// durations since the run's start; all latencies are monotonic differences.
type Request struct {
	ID           int64  `json:"id"`
	Stage        int    `json:"stage"`  // closed-loop stage index (0 when there are no stages)
	Warmup       bool   `json:"warmup"` // sent before measurement; never recorded
	DatasetIndex int    `json:"dataset_index"`
	RequestID    string `json:"request_id,omitempty"` // the x-request-id header
	// Traceparent is the W3C trace-context header the request carried
	// (its trace id finds the request in the engine's own traces); empty
	// when the target's trace_context is off.
	Traceparent string `json:"traceparent,omitempty"`
	// Repeat, Arm and Block place a request in a repeated run (from 1) or
	// an interleaved A/B run ("baseline" or "candidate", block from 1);
	// set by the caller's observers, never by the executor.
	Repeat int    `json:"repeat,omitempty"`
	Arm    string `json:"arm,omitempty"`
	Block  int    `json:"block,omitempty"`

	// Turn is the request's turn in a multi-turn session, from 1 (0: not
	// part of a session); Session identifies the session (the ID of its
	// first turn's request) and LastTurn marks its dataset's last turn, the
	// one with the longest history.
	Turn     int   `json:"turn,omitempty"`
	Session  int64 `json:"session,omitempty"`
	LastTurn bool  `json:"last_turn,omitempty"`

	// Intended is when the schedule wanted the request sent; Dispatched is
	// when the dispatcher released it (Dispatched-Intended is schedule lag);
	// Sent is t0, when the request was written after any concurrency slot
	// was taken (Sent-Intended is queue time).
	Intended   time.Duration `json:"intended_offset"`
	Dispatched time.Duration `json:"dispatched_offset"`
	Sent       time.Duration `json:"sent_offset"`
	// End is when the request finished: its last byte read, its failure,
	// or its cancellation.
	End time.Duration `json:"end_offset"`

	TTFT time.Duration   `json:"ttft"` // t0 to first output-carrying event
	ITL  []time.Duration `json:"itl"`  // gaps between consecutive output-carrying events
	E2E  time.Duration   `json:"e2el"` // t0 to last output-carrying event

	// Reasoning models that stream their reasoning apart from the answer
	// (chat delta.reasoning_content or delta.reasoning, the Responses API's
	// reasoning events): TTFTReasoning and TTFTAnswer run from t0 to the
	// first event of each phase (0 when the phase had none; TTFT is the
	// first output of any kind); ReasoningEvents and AnswerEvents count the
	// output events of each phase (OutputEvents is their sum but for an
	// event carrying both). ITLReasoning and ITLAnswer are the gaps between
	// consecutive events of the same phase, kept only for a request that
	// had reasoning (otherwise ITL holds the answer's gaps); a gap from one
	// phase to the other is in ITL only. ReasoningTokens is the server's
	// count (usage's reasoning_tokens) when it sends one, else
	// ReasoningEvents.
	TTFTReasoning   time.Duration   `json:"ttft_reasoning,omitempty"`
	TTFTAnswer      time.Duration   `json:"ttft_answer,omitempty"`
	ReasoningEvents int             `json:"reasoning_events,omitempty"`
	AnswerEvents    int             `json:"answer_events,omitempty"`
	ReasoningTokens int             `json:"reasoning_tokens,omitempty"`
	ITLReasoning    []time.Duration `json:"itl_reasoning,omitempty"`
	ITLAnswer       []time.Duration `json:"itl_answer,omitempty"`
	// Tool calls the answer streamed (chat delta.tool_calls): TTFTToolCall
	// runs from t0 to the first event carrying one (0 when none did),
	// ToolCallEvents counts those events (a phase apart from the answer's
	// text), ToolCalls the calls (by their index), and BadToolCall is set
	// when a call had no function name or arguments that are not a JSON
	// object (an output defect).
	TTFTToolCall   time.Duration `json:"ttft_tool_call,omitempty"`
	ToolCallEvents int           `json:"tool_call_events,omitempty"`
	ToolCalls      int           `json:"tool_calls,omitempty"`
	BadToolCall    bool          `json:"bad_tool_call,omitempty"`
	// Images is how many images the prompt carried, and PromptBytes its
	// bytes (text and the images sent inline): what a multimodal
	// request puts on the wire besides its tokens.
	Images      int `json:"images,omitempty"`
	PromptBytes int `json:"prompt_bytes,omitempty"`
	// Calls are the tool calls whole, kept (as the text is) for a session
	// whose next request carries them in its history.
	Calls []ToolCall `json:"-"`
	// ToolRound numbers a session's request that sent tool results back
	// (1 for the first round trip of its turn; 0 for a user turn).
	ToolRound int `json:"tool_round,omitempty"`
	// SubAgent numbers a sub-request of a session's fan-out step, from 1
	// (0 for the session's own requests); Turn is the step's.
	SubAgent int `json:"sub_agent,omitempty"`

	// Abandoned is set on a request the client closed part-way on purpose
	// (Error is then ErrAbandoned): its token fields hold what it received
	// before closing.
	Abandoned bool `json:"abandoned,omitempty"`
	// Connection phases (net/http/httptrace), measured on every request
	// that got a connection. Blocked is the wait for a connection beyond
	// this request's own dial (a busy pool); DNS, Connect (TCP) and TLS are
	// this request's own dial, zero when it reused a connection (NewConn
	// false). Written and TTFB are offsets from t0: the request fully
	// written, and the first byte of the response headers. TTFT - Written
	// is the TTFT the server can answer for (TTFTServerView).
	NewConn bool `json:"new_conn"`
	// Retried is set on a request whose reused keep-alive connection
	// failed before any byte of the response (the server had closed it
	// while it sat idle) and that was sent once more on a new connection.
	// Its clock runs from the first send: TTFT, E2EL, Written and TTFB
	// include the failed attempt; the connection phases are the retry's.
	Retried bool          `json:"retried,omitempty"`
	Blocked time.Duration `json:"blocked"`
	DNS     time.Duration `json:"dns"`
	Connect time.Duration `json:"connect"`
	TLS     time.Duration `json:"tls"`
	Written time.Duration `json:"written"`
	TTFB    time.Duration `json:"ttfb"`

	PromptTokens       int    `json:"prompt_tokens"`
	PromptTokensSource string `json:"prompt_tokens_source"`
	// DatasetPromptTokens is the dataset's count of the prompt (what vLLM's
	// benchmark sums as total_input_tokens); PromptTokens is the server's
	// usage figure when it sent one (it includes a chat template's tokens).
	DatasetPromptTokens int    `json:"dataset_prompt_tokens"`
	OutputTokens        int    `json:"output_tokens"`
	OutputTokensSource  string `json:"output_tokens_source"`
	OutputEvents        int    `json:"output_events"` // output-carrying events seen
	// TokenizerOutputTokens is the client's own count of the generated
	// text (the dataset's local tokenizer) when the server also sent
	// usage, so that the two can be compared; 0 when not counted.
	TokenizerOutputTokens int `json:"tokenizer_output_tokens,omitempty"`
	// OutputBytes is the length of the streamed output text (answer and
	// reasoning), which bounds what a usage count can honestly claim.
	OutputBytes   int    `json:"output_bytes,omitempty"`
	MaxTokens     int    `json:"max_tokens"`    // what was asked for
	IgnoreEOS     bool   `json:"ignore_eos"`    // whether the request asked to ignore EOS
	FinishReason  string `json:"finish_reason"` // as the server said ("stop", "length", ...)
	GeneratedText string `json:"-"`             // kept only when a tokenizer must count it, or for the outputs file
	// OutputHash is the FNV-1a (64 bits) of the generated text, reasoning
	// and answer in the order streamed; 0 when nothing was generated.
	// Answers to the same prompt that hash alike are the same text.
	OutputHash uint64 `json:"output_hash,omitempty"`
	// ExpectedPass is whether the answer met the prompt's expected answer
	// (the dataset's "expected"); nil when it had none or did not
	// complete.
	ExpectedPass *bool `json:"expected_pass,omitempty"`
	// ReferenceLen is the token count of the answer the dataset recorded
	// for the prompt (dataset.Request.ReferenceLen: a ShareGPT reply); 0
	// when it recorded none. A completed answer's OutputTokens is held
	// against it (Summary.OutputLengthRatio).
	ReferenceLen int `json:"reference_len,omitempty"`
	// Output defects, seen as the text streamed: Blank, nothing but white
	// space; Degenerate, a long answer of a few distinct strings repeated
	// (a loop); BadText, invalid UTF-8 or a replacement character (byte
	// fragments, a broken detokenizer).
	Blank      bool `json:"blank,omitempty"`
	Degenerate bool `json:"degenerate,omitempty"`
	BadText    bool `json:"bad_text,omitempty"`

	// What the engine reported of this request, when it did (0 when
	// not): CachedTokens, the prompt tokens it served from its prefix
	// cache (usage.prompt_tokens_details.cached_tokens, or llama.cpp's
	// timings.cache_n; CacheReported says it reported a count, 0 too);
	// EngineTTFT and EngineQueue, its own time to first token from the
	// request's arrival and its queueing (vLLM's per-request metrics);
	// EnginePrefill, its prompt processing (llama.cpp's timings.prompt_ms);
	// EngineTPOT, its time per output token (llama.cpp's timings, vLLM's
	// mean_itl_ms).
	CachedTokens  int  `json:"cached_tokens,omitempty"`
	CacheReported bool `json:"cache_reported,omitempty"`
	// IdealCachedTokens is what an ideal prefix cache would have served
	// of the prompt (the dataset's PrefixTokens).
	IdealCachedTokens int           `json:"ideal_cached_tokens,omitempty"`
	EngineTTFT        time.Duration `json:"engine_ttft,omitempty"`
	EngineQueue       time.Duration `json:"engine_queue,omitempty"`
	EnginePrefill     time.Duration `json:"engine_prefill,omitempty"`
	EngineTPOT        time.Duration `json:"engine_tpot,omitempty"`
	// DraftTokens and AcceptedDraftTokens are the speculative decoding
	// draft tokens the engine proposed for the request and those its
	// target model accepted (llama.cpp's timings.draft_n and
	// draft_n_accepted, vLLM's metrics.speculative_decoding, SGLang's
	// sglext.spec_tokens_details); 0 when it reported none.
	DraftTokens         int `json:"draft_tokens,omitempty"`
	AcceptedDraftTokens int `json:"accepted_draft_tokens,omitempty"`

	// SystemFingerprint is the response's system_fingerprint, as the
	// server sent it (its build, on llama.cpp): several in one run mean
	// several builds answered.
	SystemFingerprint string `json:"system_fingerprint,omitempty"`

	// ServedModel is the model the response named when it is not the one
	// asked for (SameModel): a gateway or a misconfigured server answered
	// with another model, so the run measured something else. Empty when
	// it matched or the response named none.
	ServedModel string `json:"served_model,omitempty"`

	// ShortOutput flags a request that asked to ignore EOS yet got fewer
	// tokens than max_tokens with a finish_reason of stop or length: the
	// server did not honour ignore_eos (or miscounted). Suspicious, not a
	// failure.
	ShortOutput bool `json:"short_output,omitempty"`

	// BytesReceived counts the response body's bytes (failed requests
	// too: how far a broken stream got).
	BytesReceived int64 `json:"bytes_received"`
	// RetryAfter is a 429 answer's Retry-After header, as sent.
	RetryAfter string `json:"retry_after,omitempty"`

	StatusCode int       `json:"status_code,omitempty"`
	Error      ErrorKind `json:"error,omitempty"`
	// ErrorMessage says what went wrong, secrets scrubbed; for an HTTP
	// error or a non-SSE answer it holds the first KiB of the body.
	ErrorMessage string `json:"error_message,omitempty"`
}

// OK reports whether the request completed without error.
func (r *Request) OK() bool { return r.Error == ErrNone }

// AnswerITL is the request's gaps between answer events: ITLAnswer for a
// request that had reasoning, else every gap.
func (r *Request) AnswerITL() []time.Duration {
	if r.ReasoningEvents > 0 {
		return r.ITLAnswer
	}
	return r.ITL
}

// TPOT is (E2E - TTFT) / (OutputTokens - 1); ok is false when the request
// produced fewer than two tokens.
func (r *Request) TPOT() (tpot time.Duration, ok bool) {
	if !r.OK() || r.OutputTokens < 2 {
		return 0, false
	}
	return (r.E2E - r.TTFT) / time.Duration(r.OutputTokens-1), true
}

// ConnSetup is the time the request spent getting a connection: waiting
// for the pool, then its own DNS, TCP connect and TLS handshake.
func (r *Request) ConnSetup() time.Duration { return r.Blocked + r.DNS + r.Connect + r.TLS }

// TTFTServerView is TTFT measured from the request having been fully
// written (0 when it was not written): what the server and the network
// took, without the connection.
func (r *Request) TTFTServerView() time.Duration {
	if r.Written <= 0 || r.TTFT < r.Written {
		return 0
	}
	return r.TTFT - r.Written
}

// Queue is the time between the intended send and t0.
func (r *Request) Queue() time.Duration { return r.Sent - r.Intended }

// Lag is how late the dispatcher released the request against its schedule.
func (r *Request) Lag() time.Duration { return r.Dispatched - r.Intended }

// Truncated reports a request cut by max_tokens while the server was free to
// stop on its own (ignore_eos off): its output was not complete.
func (r *Request) Truncated() bool {
	return r.OK() && !r.IgnoreEOS && r.FinishReason == "length"
}

// BufferedSpan is the stream-sanity window: a response whose content events
// all arrive within it, after a first token at least this long in coming,
// was held and flushed at once (a buffering proxy), so it carries no
// per-token timing.
const BufferedSpan = time.Millisecond

// TimingExpected reports whether a successful response should carry
// per-token timing: it has two output events or more, or more tokens than
// events beyond one (usage may count a stop token that is never streamed).
func (r *Request) TimingExpected() bool {
	return r.OK() && (r.OutputEvents >= 2 || r.manyTokensPerEvent())
}

// manyTokensPerEvent: more tokens than events, beyond one, by a real count
// (usage or tokenizer), not the event count itself.
func (r *Request) manyTokensPerEvent() bool {
	return r.OutputTokensSource != SourceEvents && r.OutputEvents > 0 && r.OutputTokens > r.OutputEvents+1
}

// Buffered reports a response that should carry per-token timing and does
// not: all its tokens came in one event, or all its content events arrived
// within BufferedSpan while the first token took at least that long. Its
// ITL gaps, TPOT and user TPS measure the buffer, not the server.
func (r *Request) Buffered() bool {
	if !r.TimingExpected() {
		return false
	}
	if r.OutputEvents < 2 {
		return true
	}
	return r.E2E-r.TTFT < BufferedSpan && r.TTFT >= BufferedSpan
}

// ClientOverhead is the part of the client's TTFT the engine does not
// account for: TTFT less the engine's own time to first token (from the
// request's arrival in the engine), that is the network both ways, the
// server's HTTP front end and the client. ok is false when the engine
// reported no TTFT.
func (r *Request) ClientOverhead() (d time.Duration, ok bool) {
	if !r.OK() || r.EngineTTFT <= 0 || r.OutputEvents == 0 {
		return 0, false
	}
	return max(0, r.TTFT-r.EngineTTFT), true
}

// BurstGap is the gap under which two output events count as one burst:
// they reached the client together (the same read), as a proxy that
// coalesces several events into one write delivers them. A real decode
// step takes a millisecond or more; reads of separately flushed events on
// loopback are tens of microseconds apart at the least.
const BurstGap = 100 * time.Microsecond

// Coalesced reports a stream whose events came in bursts: at least half
// of its gaps (eight or more) were under BurstGap while the gaps between
// bursts averaged at least BufferedSpan. A proxy that writes several
// events per flush delivers them so: its ITL (zero within a burst) and
// user TPS measure the proxy, not the server. A stream whose every gap
// is tiny (a server with no decode time) is not coalesced: nothing says
// it was held. A fully buffered stream is Buffered, not Coalesced.
func (r *Request) Coalesced() bool {
	if len(r.ITL) < 8 || !r.TimingExpected() || r.Buffered() {
		return false
	}
	var bursts, spread int
	var between time.Duration
	for _, g := range r.ITL {
		if g < BurstGap {
			bursts++
		} else {
			spread++
			between += g
		}
	}
	return 2*bursts >= len(r.ITL) && spread >= 2 && between/time.Duration(spread) >= BufferedSpan
}

// OverMaxTokens reports a completed request that got more output than
// its max_tokens allowed: more output events, or a larger usage count
// that the stream does not disprove (a usage count the stream disproves
// is a token mismatch, not output). The server ignored the cap, so the
// run's output lengths are not the workload's.
func (r *Request) OverMaxTokens() bool {
	if !r.OK() || r.MaxTokens <= 0 {
		return false
	}
	if r.OutputEvents > r.MaxTokens {
		return true
	}
	return r.OutputTokensSource == SourceUsage && r.OutputTokens > r.MaxTokens && !r.UsageContradictsStream()
}

// SameModel says whether a response that names model served is an answer
// of the model asked for: the same name (case aside), or one that only
// adds a tag, a date or a namespace to it (Ollama's "llama3" answered as
// "llama3:latest", "gpt-4o" as "gpt-4o-2024-08-06", "Llama-3-8B" as
// "meta-llama/Llama-3-8B"), either way round.
func SameModel(asked, served string) bool {
	a, s := strings.ToLower(asked), strings.ToLower(served)
	if a == "" || s == "" || a == s {
		return true
	}
	extends := func(long, short string) bool {
		if strings.HasSuffix(long, "/"+short) {
			return true
		}
		rest, ok := strings.CutPrefix(long, short)
		return ok && strings.ContainsRune(":-@", rune(rest[0]))
	}
	return extends(s, a) || extends(a, s)
}

// MultiTokenEvents reports a successful response whose events carried
// several tokens each: more tokens (by usage or the tokenizer) than events,
// beyond one. Its ITL is per event, not per token.
func (r *Request) MultiTokenEvents() bool { return r.OK() && r.manyTokensPerEvent() }

// TokenCountMismatch says whether the server's output count (usage) was
// checked, and whether it is wrong: it contradicts what was streamed
// (UsageContradictsStream), or the client also counted the text with its
// tokenizer and the tokenizer disputes it (TokenizerDisputes).
func (r *Request) TokenCountMismatch() (compared, mismatch bool) {
	if !r.OK() || r.OutputTokensSource != SourceUsage || r.OutputEvents == 0 {
		return false, false
	}
	if r.UsageContradictsStream() {
		return true, true
	}
	if r.TokenizerOutputTokens == 0 {
		return true, false
	}
	return true, TokenizerDisputes(r.OutputTokens, r.TokenizerOutputTokens)
}

// TokenizerDisputes says whether a tokenizer's count of the generated
// text (counted) disputes the server's count of the tokens it generated
// (usage). Re-tokenizing text yields its canonical encoding, and an
// engine need not generate that: a sampled sequence (random weights'
// above all) is often not canonical, and its text re-tokenizes to MORE
// tokens, seldom fewer. The concatenated tokens cross the pre-tokenizer's
// splits and BPE's merge order differently from the engine's choice
// (BPE is not the shortest encoding), and byte fragments decode to U+FFFD.
// With the Qwen3 vocabulary, the text of n uniformly random tokens
// re-tokenized to n-1 at the fewest, and to at most n+8 for 2, n+14 for 32
// (99.9th percentile n+10), n+23 for 128 and n+48 for 512 (about 5% more
// on average, plus noise that grows as the square root of n); a real
// llama.cpp run of a random-weight model gave 33 to 36 for 32. So:
//   - more: allowed up to 1 + n/16 + 2*sqrt(n) beyond usage (n+14 for 32,
//     n+31 for 128, n+78 for 512): random sequences exceed it (or fall
//     short) on at most 0.27% of requests at any length from 1 to 512,
//     none from 32 on, well inside max_token_mismatch's default 1%;
//   - fewer: one token (a stop token usage counts), as before: canonical
//     re-tokenization of the engine's own text hardly ever merges.
//
// A wrong tokenizer differs at every length: one twice as fine (2n) is
// disputed from n = 7, one twice as coarse (n/2) from n = 3, one 25%
// finer from n = 123; a finer tokenizer within the margin goes unseen.
func TokenizerDisputes(usage, counted int) bool {
	if counted < usage-1 {
		return true
	}
	n := float64(usage)
	return float64(counted-usage) > 1+n/16+2*math.Sqrt(n)
}

// UsageContradictsStream reports a usage count that what the server
// streamed disproves: fewer tokens than output events (none at all, say),
// or more than the streamed text could hold (a token is at least one byte
// of text; reasoning the server counted but did not stream aside, with a
// slack of 10% or 4 tokens for special tokens). What a server streamed
// outranks what its usage block claims: TPOT and output throughput rest
// on usage.
func (r *Request) UsageContradictsStream() bool {
	if r.OutputTokensSource != SourceUsage || r.OutputEvents == 0 {
		return false
	}
	if r.OutputTokens < r.OutputEvents {
		return true
	}
	visible := r.OutputTokens
	if r.ReasoningEvents == 0 {
		visible -= r.ReasoningTokens
	}
	return r.OutputBytes > 0 && visible > r.OutputBytes+max(4, r.OutputBytes/10)
}

// SLO is the per-request service level that makes a request "good" for
// goodput. A zero field is not checked.
type SLO struct {
	TTFT time.Duration `json:"ttft,omitempty"`
	TPOT time.Duration `json:"tpot,omitempty"`
	ITL  time.Duration `json:"itl,omitempty"` // every gap of the request must be within it
	E2EL time.Duration `json:"e2el,omitempty"`
}

// Empty reports whether no SLO is set.
func (s SLO) Empty() bool { return s == SLO{} }

// Snapshot is the state of a run at one moment.
type Snapshot struct {
	Elapsed time.Duration // since the run's time zero
	// Planned is the number of measured requests the run will send (0 when
	// a closed loop's end is a time, not a count).
	Planned int
	// Measured requests so far: dispatched, and ended by outcome.
	Sent, Completed, Failed, Canceled int
	Abandoned                         int // closed part-way by the client on purpose
	InFlight                          int
	ActiveUsers                       int // closed loop: users running
	OutputTokens                      int // of completed requests
	// OutputRate is output tokens per second over the last time-series
	// window that ended (events, as the series counts them).
	OutputRate float64
	Final      bool
	// Part names the part of the run the snapshot is of, when the run is
	// made of parts that each need saying ("block 2/6 arm candidate" in
	// an A/B run); "" otherwise.
	Part string
}
