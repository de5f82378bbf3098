package metrics

import (
	"encoding/json"
	"math"
	"time"
)

// Latency summarises one latency metric. Times are in milliseconds (user
// TPS, which shares the type, is in tokens per second).
// Percentiles come from an HDR histogram (microsecond resolution, 3
// significant digits); Mean, Min and Max are exact.
type Latency struct {
	Count  int64   `json:"count"`
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	P50    float64 `json:"p50"`
	P90    float64 `json:"p90"`
	P95    float64 `json:"p95"`
	P99    float64 `json:"p99"`
	P999   float64 `json:"p999"`
	// Sum and SumSq are the exact sum of the samples and of their squares
	// (ms and ms²), kept so that Mean and Stddev can be recombined when
	// summaries are merged (see MergeLatency).
	Sum   float64 `json:"sum"`
	SumSq float64 `json:"sum_sq"`
	// Outliers counts samples outside the histogram's range (negative, or
	// over an hour): they are clamped in the histogram, exact in Sum, Min
	// and Max.
	Outliers int64 `json:"outliers,omitempty"`
	// Histogram is the HDR histogram in its compressed, base64 text form
	// (HdrHistogram's V2 encoding), so that runs can be merged exactly.
	Histogram string `json:"histogram,omitempty"`
}

// MarshalJSON writes the statistics of an empty distribution (Count 0)
// as null, not 0: a percentile with no sample is not a latency of 0 ms.
func (l Latency) MarshalJSON() ([]byte, error) {
	type plain Latency
	if l.Count > 0 {
		return json.Marshal(plain(l))
	}
	return json.Marshal(struct {
		Count     int64    `json:"count"`
		Mean      *float64 `json:"mean"`
		Stddev    *float64 `json:"stddev"`
		Min       *float64 `json:"min"`
		Max       *float64 `json:"max"`
		P50       *float64 `json:"p50"`
		P90       *float64 `json:"p90"`
		P95       *float64 `json:"p95"`
		P99       *float64 `json:"p99"`
		P999      *float64 `json:"p999"`
		Sum       float64  `json:"sum"`
		SumSq     float64  `json:"sum_sq"`
		Outliers  int64    `json:"outliers,omitempty"`
		Histogram string   `json:"histogram,omitempty"`
	}{Count: l.Count, Sum: l.Sum, SumSq: l.SumSq, Outliers: l.Outliers, Histogram: l.Histogram})
}

// Summary is every figure for a set of recorded requests (a whole scenario
// or one closed-loop stage).
type Summary struct {
	Completed int               `json:"completed"`
	Failed    int               `json:"failed"`
	Errors    map[ErrorKind]int `json:"errors"` // failed requests by kind
	// Finish counts the completed requests by finish reason (FinishKey:
	// stop, length, other).
	Finish map[string]int `json:"finish,omitempty"`
	// OutputDefects counts the completed requests whose answer was blank,
	// degenerate or bad text (DefectKeys; Request.Blank and the others).
	OutputDefects map[string]int `json:"output_defects,omitempty"`
	// DefectiveOutputs counts the completed requests with any output
	// defect (one request may have several).
	DefectiveOutputs int `json:"defective_outputs,omitempty"`
	// ExpectedJudged counts the completed requests whose prompt had an
	// expected answer (the dataset's "expected"), ExpectedPassed those
	// whose answer met it.
	ExpectedJudged int `json:"expected_judged,omitempty"`
	ExpectedPassed int `json:"expected_passed,omitempty"`
	// ReferencedAnswers counts the completed requests whose prompt had an
	// answer recorded in the dataset (Request.ReferenceLen: a ShareGPT
	// reply); ReferenceTokens sums those answers' token counts, and
	// ReferencedOutputTokens the requests' own output tokens (OutputTokens,
	// as TotalOutputTokens counts them).
	ReferencedAnswers      int `json:"referenced_answers,omitempty"`
	ReferenceTokens        int `json:"reference_tokens,omitempty"`
	ReferencedOutputTokens int `json:"referenced_output_tokens,omitempty"`
	// Agreement is how the answers agree with a baseline's, prompt by
	// prompt (an A/B run's baseline arm, or a stored baseline that kept
	// its answers); nil when there was nothing to compare with.
	Agreement *Agreement `json:"agreement,omitempty"`
	// Canceled counts requests cut off by an interruption (Ctrl-C) while in
	// flight: neither completed nor failed, and not in the error rate.
	Canceled int `json:"canceled"`
	// Abandoned counts requests the client closed part-way on purpose (a
	// scenario's abandon block): neither completed nor failed, not in the
	// error rate, never good for goodput. AbandonedTokens is the output
	// they received before closing, included in TotalOutputTokens.
	Abandoned       int `json:"abandoned"`
	AbandonedTokens int `json:"abandoned_output_tokens"`
	Truncated       int `json:"truncated"`
	// ShortOutputs counts completed requests flagged ShortOutput (ignore_eos
	// set, fewer tokens than max_tokens): suspicious, not failures.
	ShortOutputs int `json:"short_outputs"`
	// ToolCalls counts the tool calls the completed requests' answers
	// streamed, ToolCallRequests the completed requests with any.
	ToolCalls        int `json:"tool_calls,omitempty"`
	ToolCallRequests int `json:"tool_call_requests,omitempty"`
	// Images and PromptBytes sum the completed requests' images and
	// prompt bytes (Request.Images, Request.PromptBytes).
	Images      int   `json:"images,omitempty"`
	PromptBytes int64 `json:"prompt_bytes,omitempty"`
	// ToolRounds counts the requests of sessions that sent tool results
	// back (Request.ToolRound > 0): an agent's round trips.
	ToolRounds int     `json:"tool_rounds,omitempty"`
	Duration   float64 `json:"duration"` // seconds, first dispatch to last completion

	// TotalInputTokens sums the dataset's prompt counts of completed
	// requests, as vLLM's benchmark does; ServerInputTokens sums the
	// server's usage.prompt_tokens where it sent them (a chat template's
	// tokens included). Both include the prompts of abandoned requests
	// that had a first token, and TotalOutputTokens their tokens so far.
	TotalInputTokens  int `json:"total_input_tokens"`
	ServerInputTokens int `json:"server_input_tokens"`
	TotalOutputTokens int `json:"total_output_tokens"`
	// Requests whose output count was taken from the event count, not from
	// usage or a tokenizer: their token figures are approximate.
	ApproxOutputCounts int `json:"approx_output_counts"`

	// Stream sanity. TokenStreams counts successful responses that should
	// carry per-token timing (Request.TimingExpected); BufferedStreams
	// those of them that did not (Request.Buffered); MultiTokenStreams
	// responses whose events carried several tokens each.
	TokenStreams      int `json:"token_streams"`
	BufferedStreams   int `json:"buffered_streams"`
	MultiTokenStreams int `json:"multi_token_streams"`
	// CoalescedStreams counts token streams whose events came in bursts
	// (Request.Coalesced): timed, but by a proxy's flushes.
	CoalescedStreams int `json:"coalesced_streams"`
	// OtherModel counts completed requests answered by another model than
	// the one asked for (Request.ServedModel); OverMaxTokens those with
	// more output than their max_tokens (Request.OverMaxTokens).
	OtherModel    int `json:"other_model"`
	OverMaxTokens int `json:"over_max_tokens"`
	// Fingerprints counts completed requests by the system_fingerprint
	// their responses carried (at most MaxFingerprints of them; the rest
	// under "other"): more than one means several server builds or
	// configurations answered the run.
	Fingerprints map[string]int `json:"system_fingerprints,omitempty"`
	// TokenCountsCompared counts successful requests whose output was
	// counted by both the server (usage) and the client's tokenizer;
	// TokenCountMismatches those where the stream or the tokenizer disputes
	// usage (Request.TokenCountMismatch).
	TokenCountsCompared  int `json:"token_counts_compared"`
	TokenCountMismatches int `json:"token_count_mismatches"`
	// ClientCPU is the client process's CPU time (user + system) over the
	// measured phase, as a fraction of the wall time times the cores it may
	// use (GOMAXPROCS); it includes an in-process simulator's. Set by the
	// caller of the executor; merged results keep the largest.
	ClientCPU float64 `json:"client_cpu"`

	RequestThroughput    float64 `json:"request_throughput"`     // completed / duration
	OutputThroughput     float64 `json:"output_throughput"`      // output tokens / duration
	TotalTokenThroughput float64 `json:"total_token_throughput"` // (input + output) / duration

	GoodRequests     int     `json:"good_requests"`
	GoodOutputTokens int     `json:"good_output_tokens"`
	RequestGoodput   float64 `json:"request_goodput"` // good requests / duration
	TokenGoodput     float64 `json:"token_goodput"`   // good output tokens / duration

	PeakConcurrency int `json:"peak_concurrency"`
	// NewConnections counts completed requests that opened a connection
	// (a dial) rather than reusing one.
	NewConnections int `json:"new_connections"`
	// StaleRetries counts requests (whatever their outcome, but canceled)
	// that were sent a second time on a new connection because their
	// reused one failed before any byte of the response (Request.Retried).
	StaleRetries int `json:"stale_retries"`
	// PeakOutputThroughput is the most output-carrying events in one
	// time-series window, per second (0 without a series).
	PeakOutputThroughput float64 `json:"peak_output_throughput"`

	// SpanStart (first dispatch) and SpanEnd (last completion) are wall-clock
	// times; Duration is their difference for a whole run. Merging takes the
	// union of the spans.
	SpanStart time.Time `json:"span_start,omitzero"`
	SpanEnd   time.Time `json:"span_end,omitzero"`

	// Schedule fidelity. Dispatches counts measured requests released by
	// the dispatcher; AchievedRate is (Dispatches-1) over the span from the
	// first to the last dispatch and ScheduledRate the same over intended
	// times (a seeded Poisson sample differs from the configured rate by
	// chance, so the achieved rate is judged against it). LateDispatches
	// counts dispatches more than LateThreshold behind their intended time;
	// it is only counted against a real schedule (an open loop at a finite
	// rate).
	Dispatches     int       `json:"dispatches"`
	FirstDispatch  time.Time `json:"first_dispatch,omitzero"`
	LastDispatch   time.Time `json:"last_dispatch,omitzero"`
	FirstIntended  time.Time `json:"first_intended,omitzero"`
	LastIntended   time.Time `json:"last_intended,omitzero"`
	AchievedRate   float64   `json:"achieved_rate"`
	ScheduledRate  float64   `json:"scheduled_rate"`
	LateThreshold  float64   `json:"late_threshold_ms"`
	LateDispatches int       `json:"late_dispatches"`
	Scheduled      bool      `json:"scheduled"`

	// Capacity is the highest load value at which every sla check held, set
	// on the whole-run summary of a sweep or capacity search (nil otherwise,
	// and when no load met the checks). metrics.capacity reads it.
	Capacity *float64 `json:"capacity,omitempty"`

	// Series is the run's time series (whole-run summaries only).
	Series *Series `json:"series,omitempty"`
	// Server is what was scraped from the server's metrics endpoint during
	// the run (whole-run summaries only; nil when nothing was scraped).
	Server *ServerMetrics `json:"server,omitempty"`

	TTFT  Latency `json:"ttft"`
	ITL   Latency `json:"itl"`
	TPOT  Latency `json:"tpot"`
	E2EL  Latency `json:"e2el"`
	Queue Latency `json:"queue"` // intended send to t0
	Lag   Latency `json:"lag"`   // intended send to dispatch (schedule fidelity)
	// Latencies measured from the intended send time instead of t0, so that
	// coordinated omission shows.
	TTFTFromIntended Latency `json:"ttft_from_intended"`
	E2ELFromIntended Latency `json:"e2el_from_intended"`
	// Per-user decode speed: output tokens per second of each request's
	// decode phase ((tokens-1) / (E2E-TTFT)).
	UserTPS Latency `json:"user_tps"`
	// Reasoning models (Request.TTFTReasoning and the rest): the first
	// answer and reasoning tokens, the gaps within each phase, and the
	// reasoning tokens per request (a count, kept in a Latency).
	TTFTAnswer      Latency `json:"ttft_answer"`
	TTFTReasoning   Latency `json:"ttft_reasoning"`
	ITLAnswer       Latency `json:"itl_answer"`
	ITLReasoning    Latency `json:"itl_reasoning"`
	ReasoningTokens Latency `json:"reasoning_tokens"`
	// TTFTToolCall is the first tool-call token of the requests that
	// answered with a tool call (Request.TTFTToolCall).
	TTFTToolCall Latency `json:"ttft_tool_call"`

	// Multi-turn sessions: TTFT of every session's first turn and of its
	// last turn (the dataset's last, with the longest history), and the
	// per-turn table (nil without sessions).
	TTFTFirstTurn Latency       `json:"ttft_first_turn,omitzero"`
	TTFTLastTurn  Latency       `json:"ttft_last_turn,omitzero"`
	Turns         []TurnSummary `json:"turns,omitempty"`
	// Per-session figures (Session): how many sessions ended, and of them
	// how many ran every turn; per session its duration, the time it
	// waited on the server and thought, its user turns, tool round trips
	// and sub-agents.
	Sessions          int     `json:"sessions,omitempty"`
	SessionsComplete  int     `json:"sessions_complete,omitempty"`
	SessionDuration   Latency `json:"session_duration,omitzero"`
	SessionWaiting    Latency `json:"session_waiting,omitzero"`
	SessionThinking   Latency `json:"session_thinking,omitzero"`
	SessionTurns      Latency `json:"session_turns,omitzero"`
	SessionToolRounds Latency `json:"session_tool_rounds,omitzero"`
	SessionSubAgents  Latency `json:"session_sub_agents,omitzero"`

	// Connection phases of successful requests (metrics.Request): Blocked,
	// TTFB and TTFTServerView have a sample per request; DNS, Connect and
	// TLS one per request that opened a connection.
	Blocked        Latency `json:"blocked"`
	DNS            Latency `json:"dns"`
	Connect        Latency `json:"connect"`
	TLS            Latency `json:"tls"`
	TTFB           Latency `json:"ttfb"`
	TTFTServerView Latency `json:"ttft_server_view"`

	// The engine's own numbers, from requests whose engine reported them
	// (Request.EngineTTFT and the rest; absent when none did), and
	// ClientOverhead, TTFT less the engine's TTFT. CachedTokens sums the
	// prompt tokens served from the engine's prefix cache over the
	// CacheReports requests that reported a count, whose prompts (by
	// usage) sum to CacheReportedPrompt.
	EngineTTFT          Latency `json:"engine_ttft,omitzero"`
	EngineQueue         Latency `json:"engine_queue,omitzero"`
	EnginePrefill       Latency `json:"engine_prefill,omitzero"`
	EngineTPOT          Latency `json:"engine_tpot,omitzero"`
	ClientOverhead      Latency `json:"client_overhead,omitzero"`
	CachedTokens        int     `json:"cached_tokens,omitempty"`
	CacheReports        int     `json:"cache_reports,omitempty"`
	CacheReportedPrompt int     `json:"cache_reported_prompt_tokens,omitempty"`
	// IdealCachedTokens sums, over the same requests, what an ideal
	// prefix cache would have served (Request.IdealCachedTokens).
	IdealCachedTokens int `json:"ideal_cached_tokens,omitempty"`
	// IdealUnreported is what an ideal cache would have served the
	// completed requests that reported no cached count.
	IdealUnreported int `json:"ideal_cached_tokens_unreported,omitempty"`
	// DraftTokens and AcceptedDraftTokens sum the speculative decoding
	// drafts the engine reported for the completed requests
	// (Request.DraftTokens).
	DraftTokens         int `json:"draft_tokens,omitempty"`
	AcceptedDraftTokens int `json:"accepted_draft_tokens,omitempty"`
}

// SpecAcceptance is the fraction of the engine's speculative decoding
// draft tokens that its target model accepted, over the requests that
// reported drafts; NaN when none did.
func (s *Summary) SpecAcceptance() float64 {
	if s.DraftTokens == 0 {
		return math.NaN()
	}
	return float64(s.AcceptedDraftTokens) / float64(s.DraftTokens)
}

// PrefixReuse is the prefix cache's achieved reuse against an ideal
// cache's: CachedTokens / IdealCachedTokens over the requests that
// reported a cached count. When none did (vLLM without
// --enable-prompt-tokens-details), it is the scraped prefix-cache hit
// counter's increase over the run against the ideal of every completed
// request (PrefixReuseSource says which). NaN when neither is known or an
// ideal cache would have served nothing (no shared prefixes). Over 1 when
// the cache held prompts from before the run (a warm cache) or caches
// finer than whole blocks.
func (s *Summary) PrefixReuse() float64 {
	r, _ := s.prefixReuse()
	return r
}

// PassRate is the share of the judged answers that met their prompt's
// expected answer (NaN when none was judged).
func (s *Summary) PassRate() float64 {
	if s.ExpectedJudged == 0 {
		return math.NaN()
	}
	return float64(s.ExpectedPassed) / float64(s.ExpectedJudged)
}

// OutputLengthRatio is the output tokens of the completed requests that
// had a recorded answer over those answers' tokens (NaN when none had
// one). Far below 1, the answers stop early.
func (s *Summary) OutputLengthRatio() float64 {
	if s.ReferenceTokens == 0 {
		return math.NaN()
	}
	return float64(s.ReferencedOutputTokens) / float64(s.ReferenceTokens)
}

// OutputDefectRate is the share of completed requests whose answer had
// an output defect (NaN when none completed).
func (s *Summary) OutputDefectRate() float64 {
	if s.Completed == 0 {
		return math.NaN()
	}
	return float64(s.DefectiveOutputs) / float64(s.Completed)
}

// PrefixReuseSource says where PrefixReuse comes from: "answers" (the
// cached_tokens of each answer), the server figure it was read from
// ("prompt_tokens_cached", else "prefix_cache_hits") or "" (no value).
func (s *Summary) PrefixReuseSource() string {
	_, src := s.prefixReuse()
	return src
}

func (s *Summary) prefixReuse() (float64, string) {
	if s.CacheReports > 0 {
		if s.IdealCachedTokens == 0 {
			return math.NaN(), ""
		}
		return float64(s.CachedTokens) / float64(s.IdealCachedTokens), "answers"
	}
	if s.IdealUnreported > 0 && s.Server != nil {
		// The server's cached prompt tokens per request, as the answers
		// would have reported them, else its prefix cache's hits.
		for _, f := range []string{"prompt_tokens_cached", "prefix_cache_hits"} {
			if hits, ok := s.Server.Figures[f].Stat("delta"); ok {
				return hits / float64(s.IdealUnreported), f
			}
		}
	}
	return math.NaN(), ""
}

// CachedFraction is the share of the prompt tokens of the requests that
// reported a cached count that the engine served from its prefix cache;
// ok is false when none reported.
func (s *Summary) CachedFraction() (f float64, ok bool) {
	if s.CacheReports == 0 || s.CacheReportedPrompt == 0 {
		return 0, false
	}
	return float64(s.CachedTokens) / float64(s.CacheReportedPrompt), true
}

// TurnSummary is the figures of one turn index of multi-turn sessions:
// how TTFT holds up as the context grows.
type TurnSummary struct {
	Turn int `json:"turn"` // from 1
	// Completed counts the turn's successful requests; PromptTokens sums
	// their prompt tokens (the server's usage count when it sent one, else
	// the dataset's count of the recorded history).
	Completed    int     `json:"completed"`
	PromptTokens int     `json:"prompt_tokens"`
	TTFT         Latency `json:"ttft"`
}

// MeanPromptTokens is the turn's mean prompt length (0 without requests).
func (t TurnSummary) MeanPromptTokens() float64 {
	if t.Completed == 0 {
		return 0
	}
	return float64(t.PromptTokens) / float64(t.Completed)
}

// ConnShare is the share of TTFT that successful requests spent getting a
// connection (blocked, DNS, connect, TLS; exact sums over every request);
// 0 without TTFT samples.
func (s *Summary) ConnShare() float64 {
	if s.TTFT.Sum <= 0 {
		return 0
	}
	return (s.Blocked.Sum + s.DNS.Sum + s.Connect.Sum + s.TLS.Sum) / s.TTFT.Sum
}

// CapacityValue is Capacity, NaN when unset (so that metrics.capacity is
// null).
func (s *Summary) CapacityValue() float64 {
	if s.Capacity == nil {
		return math.NaN()
	}
	return *s.Capacity
}

// ErrorRate is failed / (completed + failed), 0 when nothing was sent.
func (s *Summary) ErrorRate() float64 {
	n := s.Completed + s.Failed
	if n == 0 {
		return 0
	}
	return float64(s.Failed) / float64(n)
}

// UntimedFraction is the fraction of the responses that should carry
// per-token timing that did not (buffered, all tokens in one event, or
// events coalesced into bursts); 0 when there were none.
func (s *Summary) UntimedFraction() float64 {
	if s.TokenStreams == 0 {
		return 0
	}
	return float64(s.BufferedStreams+s.CoalescedStreams) / float64(s.TokenStreams)
}

// OffSpecFraction is n of the completed requests, 0 when none completed.
func (s *Summary) OffSpecFraction(n int) float64 {
	if s.Completed == 0 {
		return 0
	}
	return float64(n) / float64(s.Completed)
}

// TokenMismatchFraction is TokenCountMismatches / TokenCountsCompared, 0
// when nothing was compared.
func (s *Summary) TokenMismatchFraction() float64 {
	if s.TokenCountsCompared == 0 {
		return 0
	}
	return float64(s.TokenCountMismatches) / float64(s.TokenCountsCompared)
}

// MarshalJSON writes the summary with its derived run-level figures
// (prefix_reuse and where it came from, spec_acceptance), so that a
// result file carries the values its asserts judged, not only their parts.
// Reading a result back ignores them: they are derived again.
func (s Summary) MarshalJSON() ([]byte, error) {
	type plain Summary
	out := struct {
		plain
		PrefixReuse       *float64 `json:"prefix_reuse,omitempty"`
		PrefixReuseSource string   `json:"prefix_reuse_source,omitempty"`
		SpecAcceptance    *float64 `json:"spec_acceptance,omitempty"`
	}{plain: plain(s)}
	if r := s.PrefixReuse(); !math.IsNaN(r) {
		out.PrefixReuse, out.PrefixReuseSource = &r, s.PrefixReuseSource()
	}
	if a := s.SpecAcceptance(); !math.IsNaN(a) {
		out.SpecAcceptance = &a
	}
	return json.Marshal(out)
}
