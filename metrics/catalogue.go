package metrics

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The metric catalogue: the one table of every figure a summary holds.
// Validation ("did you mean"), sla keys, assert conditions, the console,
// comparisons, the live Prometheus histograms and docs/metrics.md all read
// it; nothing else lists metric names or units.
//
// In HCL a distribution reads metrics.<name>.<stat>, a scalar
// metrics.<name>, and the failure counts metrics.errors.<kind>.

// Kind tells how a metric is read.
type Kind int

// The kinds of metric.
const (
	Distribution Kind = iota // a distribution with every stat in Stats
	Scalar                   // one number
	Counts                   // a count per key (metrics.errors.<kind>)
	Server                   // a figure scraped from the server's metrics endpoint (server.<name>.<stat>)
)

// Direction says which way a metric gets better.
type Direction int

// The directions.
const (
	Neither Direction = iota // a description of the load, not a quality
	LowerIsBetter
	HigherIsBetter
)

// Metric is one entry of the catalogue.
type Metric struct {
	Name string
	Kind Kind
	// Unit is the unit of the metric's values: "ms", "tok/s", "req/s",
	// "fraction", "requests", "tokens", "s", or "load" (the unit of the
	// load a sweep varies: users, req/s or concurrent requests).
	Unit        string
	Better      Direction
	Title       string // for people: "TTFT", "error rate"
	Description string
	// RunLevel marks a figure of the whole run rather than of its requests
	// (the capacity a sweep or search found): it has no sla key, since sla
	// checks also judge each stage and step, and asserts read it.
	RunLevel bool

	// VLLM is the metric's place among the latencies vLLM's benchmark
	// prints percentiles of (--percentile-metrics: ttft, tpot, itl, e2el),
	// from 1; 0 for the others. The vLLM block and its result keys follow
	// it (VLLMPercentileMetrics).
	VLLM int
	// VLLMHeader is the heading vLLM's benchmark prints over the metric's
	// block ("Time to First Token"), for the console's vLLM block.
	VLLMHeader string
	// Compare are the statistics `llmload compare` shows by default (""
	// for a scalar); none: not shown unless asked for (CompareRows).
	Compare []string
	// Windowed marks a rate whose interval comes from the per-window
	// counts of the time series (throughputs and goodputs).
	Windowed bool
	// Live is the name of the histogram that the live Prometheus exporter
	// keeps of a distribution while the run goes on
	// ("llmload_ttft_seconds"; "" for none): its help is Description, its
	// values are each finished request's Samples.
	Live string
	// Console is the metric's row in the console's latency table, from 1
	// (0: not shown), and Label the row's name there ("Schedule lag");
	// a Reasoning row is shown only when a request streamed reasoning
	// (ConsoleLatencies).
	Console   int
	Label     string
	Reasoning bool

	// Series and Sources describe a Server figure: how its samples are
	// read (SeriesGauge, SeriesCounter, SeriesRatio, SeriesHistogram) and
	// the engine metrics it is read from, the first one the server exports
	// winning (a ratio's source is "numerator / denominator").
	Series  string
	Sources []string

	dist   func(*Summary) *Latency
	scalar func(*Summary) float64
	// samples are a finished request's values of a Live distribution.
	samples func(*Request) []time.Duration
	// keys and count are a Counts metric's keys and its count of each.
	keys  []string
	count func(s *Summary, key string) int
}

// VLLMPercentileMetrics are the latencies vLLM's benchmark prints
// percentiles of, in its order: ttft, tpot, itl, e2el.
func VLLMPercentileMetrics() []string {
	var ms []Metric
	for _, m := range Catalogue {
		if m.VLLM > 0 {
			ms = append(ms, m)
		}
	}
	slices.SortFunc(ms, func(a, b Metric) int { return a.VLLM - b.VLLM })
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Name
	}
	return out
}

// ConsoleLatencies are the rows of the console's latency table in order:
// every metric with a Console place, the Reasoning rows only when
// reasoning is true.
func ConsoleLatencies(reasoning bool) []Metric {
	var ms []Metric
	for _, m := range Catalogue {
		if m.Console > 0 && (reasoning || !m.Reasoning) {
			ms = append(ms, m)
		}
	}
	slices.SortFunc(ms, func(a, b Metric) int { return a.Console - b.Console })
	return ms
}

// CompareFigure names one figure (a statistic of a distribution, or a
// scalar with Stat "").
type CompareFigure struct{ Metric, Stat string }

// CompareRows are the figures `llmload compare` shows by default, in the
// catalogue's order: each metric's Compare statistics.
func CompareRows() []CompareFigure {
	var out []CompareFigure
	for _, m := range Catalogue {
		for _, st := range m.Compare {
			out = append(out, CompareFigure{m.Name, st})
		}
	}
	return out
}

// Samples are the values a finished request adds to a Live distribution,
// as the Recorder counts them (a warmup request adds none); nil for a
// metric not exported live.
func (m Metric) Samples(r *Request) []time.Duration {
	if m.samples == nil || r.Warmup {
		return nil
	}
	return m.samples(r)
}

// firstTokens reports whether a request's first token and gaps count:
// it completed with output (not a non-streamed answer), or was abandoned
// after its first token.
func firstTokens(r *Request) bool {
	return (r.OK() && r.OutputTokensSource != SourceNone) || (r.Error == ErrAbandoned && r.OutputEvents > 0)
}

// onlyIf is v alone when ok, else nothing.
func onlyIf(ok bool, v time.Duration) []time.Duration {
	if !ok {
		return nil
	}
	return []time.Duration{v}
}

// CountKeys are the keys of a Counts metric (nil for another kind).
func (m Metric) CountKeys() []string { return m.keys }

// Stats are the statistics of every distribution. Percentiles come from the
// HDR histogram; mean, stddev, min and max are exact; count is the number of
// samples.
var Stats = []string{"mean", "p50", "p90", "p95", "p99", "p999", "max", "min", "stddev", "count"}

// Catalogue is every metric, in report order.
var Catalogue = []Metric{
	{Name: "ttft", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "TTFT", Console: 1, Label: "TTFT", VLLM: 1, VLLMHeader: "Time to First Token", Compare: []string{"p50", "p90", "p99", "mean"}, Live: "llmload_ttft_seconds",
		Description: "Time to first token: from the request being sent (connection included, as vLLM measures it) to the first output-carrying event, reasoning or answer. Completed requests, and abandoned ones that got a first token; none for a non-streamed API (embeddings).",
		dist:        func(s *Summary) *Latency { return &s.TTFT },
		samples:     func(r *Request) []time.Duration { return onlyIf(firstTokens(r), r.TTFT) }},
	{Name: "itl", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "ITL", Console: 3, Label: "ITL", VLLM: 3, VLLMHeader: "Inter-token Latency", Compare: []string{"p50", "p99"}, Live: "llmload_itl_seconds",
		Description: "Inter-token latency: every gap between consecutive output-carrying events of a request, completed or abandoned.",
		dist:        func(s *Summary) *Latency { return &s.ITL },
		samples: func(r *Request) []time.Duration {
			if !firstTokens(r) {
				return nil
			}
			return r.ITL
		}},
	{Name: "tpot", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "TPOT", Console: 2, Label: "TPOT", VLLM: 2, VLLMHeader: "Time per Output Token (excl. 1st token)", Compare: []string{"p50", "p99"}, Live: "llmload_tpot_seconds",
		Description: "Time per output token after the first: (E2EL - TTFT) / (output tokens - 1), per successful request with at least two tokens.",
		dist:        func(s *Summary) *Latency { return &s.TPOT },
		samples: func(r *Request) []time.Duration {
			tpot, ok := r.TPOT()
			return onlyIf(ok, tpot)
		}},
	{Name: "e2el", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "E2EL", Console: 4, Label: "E2EL", VLLM: 4, VLLMHeader: "End-to-end Latency", Compare: []string{"p50", "p99"}, Live: "llmload_e2el_seconds",
		Description: "End-to-end latency: from the request being sent to its last output-carrying event (a non-streamed answer's end). Successful requests.",
		dist:        func(s *Summary) *Latency { return &s.E2EL },
		samples:     func(r *Request) []time.Duration { return onlyIf(r.OK(), r.E2E) }},
	{Name: "queue", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "queue time", Console: 5, Label: "Queue", Live: "llmload_queue_seconds",
		Description: "From the intended send time to the actual send: schedule lag plus waiting for a max_concurrency slot. Every measured request but those an interruption canceled.",
		dist:        func(s *Summary) *Latency { return &s.Queue },
		samples:     func(r *Request) []time.Duration { return onlyIf(r.Error != ErrCanceled, r.Queue()) }},
	{Name: "lag", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "schedule lag", Console: 6, Label: "Schedule lag",
		Description: "From the intended send time to the dispatcher releasing the request: how far the client fell behind its own schedule.",
		dist:        func(s *Summary) *Latency { return &s.Lag }},
	{Name: "ttft_from_intended", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "TTFT from intended", Console: 7, Label: "TTFT from intended",
		Description: "TTFT measured from the intended send time instead of the actual one, so that queueing in the client (coordinated omission) shows.",
		dist:        func(s *Summary) *Latency { return &s.TTFTFromIntended }},
	{Name: "e2el_from_intended", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "E2EL from intended", Console: 8, Label: "E2EL from intended",
		Description: "E2EL measured from the intended send time (coordinated-omission aware).",
		dist:        func(s *Summary) *Latency { return &s.E2ELFromIntended }},
	{Name: "user_tps", Kind: Distribution, Unit: "tok/s", Better: HigherIsBetter, Title: "user TPS", Console: 9, Label: "User TPS (tok/s)",
		Description: "Per-request decode speed: (output tokens - 1) / (E2EL - TTFT), the tokens per second one reader sees.",
		dist:        func(s *Summary) *Latency { return &s.UserTPS }},
	{Name: "ttft_answer", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "TTFT (answer)", Console: 11, Label: "TTFT (answer)", Reasoning: true,
		Description: "Time to the first answer token: from the request being sent to its first answer event (not reasoning). For a model that streams no reasoning it equals TTFT; for a reasoning model it is what a reader waits for the answer. Completed and abandoned requests that got an answer token.",
		dist:        func(s *Summary) *Latency { return &s.TTFTAnswer }},
	{Name: "ttft_reasoning", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "TTFT (reasoning)", Console: 10, Label: "TTFT (reasoning)", Reasoning: true,
		Description: "Time to the first reasoning token (chat delta.reasoning_content or delta.reasoning, Responses reasoning events), for requests that streamed reasoning.",
		dist:        func(s *Summary) *Latency { return &s.TTFTReasoning }},
	{Name: "ttft_tool_call", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "TTFT (tool call)",
		Description: "Time to the first tool-call token: from the request being sent to the first event carrying a tool call (chat delta.tool_calls), for requests that answered with one. An agent waits this long before it can run its tool.",
		dist:        func(s *Summary) *Latency { return &s.TTFTToolCall }},
	{Name: "itl_answer", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "ITL (answer)", Console: 13, Label: "ITL (answer)", Reasoning: true,
		Description: "Gaps between consecutive answer events (every gap of a request without reasoning; the gap from the last reasoning token to the first answer token is in neither phase).",
		dist:        func(s *Summary) *Latency { return &s.ITLAnswer }},
	{Name: "itl_reasoning", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "ITL (reasoning)", Console: 12, Label: "ITL (reasoning)", Reasoning: true,
		Description: "Gaps between consecutive reasoning events.",
		dist:        func(s *Summary) *Latency { return &s.ITLReasoning }},
	{Name: "reasoning_tokens", Kind: Distribution, Unit: "tokens", Better: Neither, Title: "reasoning tokens", Console: 14, Label: "Reasoning (tokens)", Reasoning: true,
		Description: "Reasoning tokens per completed request that reasoned: the server's count (usage reasoning_tokens) when it sends one, else the reasoning events.",
		dist:        func(s *Summary) *Latency { return &s.ReasoningTokens }},
	{Name: "ttft_first_turn", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "TTFT of first turns",
		Description: "TTFT of the first turn of every multi-turn session: the prompt without history. No samples without sessions.",
		dist:        func(s *Summary) *Latency { return &s.TTFTFirstTurn }},
	{Name: "ttft_last_turn", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "TTFT of last turns",
		Description: "TTFT of the last turn of every multi-turn session (the dataset's last, with the longest history, or after a last turn that fans out its join request; a session cut short has none): with prefix caching it stays near ttft_first_turn. The per-turn table is in the result's summary.turns.",
		dist:        func(s *Summary) *Latency { return &s.TTFTLastTurn }},
	{Name: "session_duration", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "session duration",
		Description: "Per multi-turn session: from its first request's intended send to its last answer's end, think time included: how long an agent's task or a user's conversation took. One sample per session that ended, cut short or not (sessions_complete counts the whole ones).",
		dist:        func(s *Summary) *Latency { return &s.SessionDuration }},
	{Name: "session_waiting", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "session waiting on the server",
		Description: "Per multi-turn session: the time it waited on the server, each step from its dispatch to its answer's end (a client concurrency slot's queue included; a fan-out step until its slowest sub-agent answered). session_duration less this and session_thinking is the client's own time (a turn dispatched late).",
		dist:        func(s *Summary) *Latency { return &s.SessionWaiting }},
	{Name: "session_thinking", Kind: Distribution, Unit: "ms", Better: Neither, Title: "session think time",
		Description: "Per multi-turn session: the think time it paused between turns (turn_think_time): the load's shape, not the server's speed.",
		dist:        func(s *Summary) *Latency { return &s.SessionThinking }},
	{Name: "session_turns", Kind: Distribution, Unit: "turns", Better: Neither, Title: "turns per session",
		Description: "Per multi-turn session: the turns it sent (a recorded tool-result turn and a fan-out's join request count; synthetic tool round trips and sub-agents do not).",
		dist:        func(s *Summary) *Latency { return &s.SessionTurns }},
	{Name: "session_tool_rounds", Kind: Distribution, Unit: "requests", Better: Neither, Title: "tool round trips per session",
		Description: "Per multi-turn session: the requests that sent synthetic tool results back (max_tool_rounds); a dataset's recorded tool results are turns of their own (session_turns).",
		dist:        func(s *Summary) *Latency { return &s.SessionToolRounds }},
	{Name: "session_sub_agents", Kind: Distribution, Unit: "requests", Better: Neither, Title: "sub-agents per session",
		Description: "Per multi-turn session: the sub-requests its fan-out steps sent (fan_out, or a trace's parallel steps).",
		dist:        func(s *Summary) *Latency { return &s.SessionSubAgents }},
	{Name: "ttft_server_view", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "TTFT from written",
		Description: "TTFT measured from the request having been fully written instead of from the send: the server's and the network's part, without getting a connection. Successful requests.",
		dist:        func(s *Summary) *Latency { return &s.TTFTServerView }},
	{Name: "engine_ttft", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "engine TTFT",
		Description: "The engine's own time to first token, from the request's arrival in its queue (vLLM's per-request metrics, --enable-per-request-metrics: queue_time_ms + time_to_first_token_ms, which counts from scheduling). Requests whose engine reported it.",
		dist:        func(s *Summary) *Latency { return &s.EngineTTFT }},
	{Name: "engine_queue", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "engine queue",
		Description: "The engine's own queueing time of a request (vLLM's per-request metrics). Requests whose engine reported it.",
		dist:        func(s *Summary) *Latency { return &s.EngineQueue }},
	{Name: "engine_prefill", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "engine prefill",
		Description: "The engine's own prompt processing time (llama.cpp's timings.prompt_ms): no queueing, no network. Requests whose engine reported it.",
		dist:        func(s *Summary) *Latency { return &s.EnginePrefill }},
	{Name: "engine_tpot", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "engine TPOT",
		Description: "The engine's own time per output token (llama.cpp's timings: predicted_ms / predicted_n; vLLM's mean_itl_ms). Requests whose engine reported it.",
		dist:        func(s *Summary) *Latency { return &s.EngineTPOT }},
	{Name: "client_overhead", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "TTFT outside the engine",
		Description: "TTFT less the engine's own TTFT: the network both ways, the server's HTTP front end and the client. Requests whose engine reported its TTFT.",
		dist:        func(s *Summary) *Latency { return &s.ClientOverhead }},
	{Name: "ttfb", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "TTFB",
		Description: "Time to first byte: from the request being sent (as TTFT) to the first byte of the response headers. Successful requests.",
		dist:        func(s *Summary) *Latency { return &s.TTFB }},
	{Name: "blocked", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "blocked",
		Description: "Time a request waited for a connection from the pool, beyond its own DNS, connect and TLS (a pool smaller than the concurrency, or dials queued behind others). One sample per successful request; about 0 when a connection is free.",
		dist:        func(s *Summary) *Latency { return &s.Blocked }},
	{Name: "dns", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "DNS",
		Description: "DNS lookup of a request that opened a connection (0 for an IP address). One sample per new connection.",
		dist:        func(s *Summary) *Latency { return &s.DNS }},
	{Name: "connect", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "connect",
		Description: "TCP connect of a request that opened a connection: until the server's kernel completed the handshake (an accept backlog in the server shows in ttfb instead). One sample per new connection.",
		dist:        func(s *Summary) *Latency { return &s.Connect }},
	{Name: "tls", Kind: Distribution, Unit: "ms", Better: LowerIsBetter, Title: "TLS",
		Description: "TLS handshake of a request that opened an https connection (the server's accept delay included). One sample per new TLS connection.",
		dist:        func(s *Summary) *Latency { return &s.TLS }},

	{Name: "completed", Kind: Scalar, Unit: "requests", Better: Neither, Title: "completed requests",
		Description: "Measured requests that completed without error.",
		scalar:      func(s *Summary) float64 { return float64(s.Completed) }},
	{Name: "failed", Kind: Scalar, Unit: "requests", Better: LowerIsBetter, Title: "failed requests",
		Description: "Measured requests that failed (any error kind but canceled).",
		scalar:      func(s *Summary) float64 { return float64(s.Failed) }},
	{Name: "canceled", Kind: Scalar, Unit: "requests", Better: LowerIsBetter, Title: "canceled requests",
		Description: "Requests cut off in flight by an interruption (Ctrl-C); neither completed nor failed.",
		scalar:      func(s *Summary) float64 { return float64(s.Canceled) }},
	{Name: "abandoned", Kind: Scalar, Unit: "requests", Better: Neither, Title: "abandoned requests",
		Description: "Requests the client closed part-way on purpose (the scenario's abandon block), as readers who close the tab: neither completed nor failed, not in the error rate, never good. Their tokens so far count in the token totals and throughputs; their TTFT and ITL count, their E2EL, TPOT and user TPS do not.",
		scalar:      func(s *Summary) float64 { return float64(s.Abandoned) }},
	{Name: "abandoned_output_tokens", Kind: Scalar, Unit: "tokens", Better: Neither, Title: "abandoned output tokens",
		Description: "Output tokens the abandoned requests received before closing (included in total_output_tokens).",
		scalar:      func(s *Summary) float64 { return float64(s.AbandonedTokens) }},
	{Name: "truncated", Kind: Scalar, Unit: "requests", Better: LowerIsBetter, Title: "truncated requests",
		Description: "Completed requests stopped by max_tokens while ignore_eos was off: their output was incomplete.",
		scalar:      func(s *Summary) float64 { return float64(s.Truncated) }},
	{Name: "tool_calls", Kind: Scalar, Unit: "calls", Better: Neither, Title: "tool calls",
		Description: "Tool calls the completed requests' answers streamed (chat delta.tool_calls, counted by index), whether or not the request offered tools (a dataset entry's tools).",
		scalar:      func(s *Summary) float64 { return float64(s.ToolCalls) }},
	{Name: "tool_call_rate", Kind: Scalar, Unit: "fraction", Better: Neither, Title: "answers with tool calls",
		Description: "Completed requests whose answer held at least one tool call, over completed requests; null when none completed. How often the model chose a tool: a change against a baseline is a change in the agent's path, not in speed.",
		scalar: func(s *Summary) float64 {
			if s.Completed == 0 {
				return math.NaN()
			}
			return float64(s.ToolCallRequests) / float64(s.Completed)
		}},
	{Name: "tool_rounds", Kind: Scalar, Unit: "requests", Better: Neither, Title: "tool round trips",
		Description: "Completed requests of multi-turn sessions that sent tool results back after an answer that called tools (max_tool_rounds): an agent's round trips, each one more prefill of a growing history.",
		scalar:      func(s *Summary) float64 { return float64(s.ToolRounds) }},
	{Name: "sessions", Kind: Scalar, Unit: "sessions", Better: Neither, Title: "sessions",
		Description: "Multi-turn sessions that ended, whole or cut short by a failure, an abandon or the run's end.",
		scalar:      func(s *Summary) float64 { return float64(s.Sessions) }},
	{Name: "sessions_complete", Kind: Scalar, Unit: "sessions", Better: Neither, Title: "whole sessions",
		Description: "Multi-turn sessions that ran every turn of their dataset entry, each answered.",
		scalar:      func(s *Summary) float64 { return float64(s.SessionsComplete) }},
	{Name: "session_wait_share", Kind: Scalar, Unit: "fraction", Better: LowerIsBetter, Title: "session time waiting on the server",
		Description: "The sessions' time waiting on the server over their whole time (session_waiting over session_duration, summed over sessions); null without sessions. The rest is thinking and the client: an agent bound by the server is near 1.",
		scalar: func(s *Summary) float64 {
			if s.SessionDuration.Sum <= 0 {
				return math.NaN()
			}
			return s.SessionWaiting.Sum / s.SessionDuration.Sum
		}},
	{Name: "images", Kind: Scalar, Unit: "images", Better: Neither, Title: "images",
		Description: "Images the completed requests' prompts carried (a JSONL entry's images, sent as image_url content parts to the chat API).",
		scalar:      func(s *Summary) float64 { return float64(s.Images) }},
	{Name: "prompt_bytes", Kind: Scalar, Unit: "bytes", Better: Neither, Title: "prompt bytes",
		Description: "Bytes of the completed requests' prompts: their text and the images sent inline (counted for jsonl prompts and for every request of a multi-turn session, its history included; 0 for the other sources). A multimodal load's size on the wire beside its tokens.",
		scalar:      func(s *Summary) float64 { return float64(s.PromptBytes) }},
	{Name: "short_outputs", Kind: Scalar, Unit: "requests", Better: LowerIsBetter, Title: "short outputs",
		Description: "Completed requests that asked to ignore EOS yet got fewer tokens than max_tokens (by the server's usage count) with finish_reason stop or length: suspicious, not failed.",
		scalar:      func(s *Summary) float64 { return float64(s.ShortOutputs) }},
	{Name: "error_rate", Kind: Scalar, Unit: "fraction", Better: LowerIsBetter, Title: "error rate", Compare: []string{""},
		Description: "failed / (completed + failed); 0 when nothing was sent.",
		scalar:      func(s *Summary) float64 { return s.ErrorRate() }},
	{Name: "output_defect_rate", Kind: Scalar, Unit: "fraction", Better: LowerIsBetter, Title: "defective outputs",
		Description: "Completed requests whose answer was blank, degenerate or bad text (output_defects; a request counts once) over completed requests; null when none completed. Judged by default: over half fails the run (sla output_defect_rate sets another bound), except when the target sets ignore_eos, where a real model may ramble or repeat past its end of sequence and the figure is only reported.",
		scalar:      func(s *Summary) float64 { return s.OutputDefectRate() }},
	{Name: "pass_rate", Kind: Scalar, Unit: "fraction", Better: HigherIsBetter, Title: "expected answers met",
		Description: "Of the completed requests whose prompt carried an expected answer (a JSONL dataset's \"expected\": text the answer contains, or an object with equals, contains or regex), the share whose answer met it; null when none was judged. min_pass_rate in an sla block, or metrics.pass_rate in an assert.",
		scalar:      func(s *Summary) float64 { return s.PassRate() }},
	{Name: "output_length_ratio", Kind: Scalar, Unit: "fraction", Better: Neither, Title: "output length against the reference",
		Description: "The output tokens of the completed requests whose prompt had an answer recorded in the dataset (a ShareGPT entry's reply) over those answers' tokens; null when the dataset records none (random, JSONL, trace). ShareGPT asks for each reply's length as max_tokens, so the figure is at most 1 (with a fixed output_len, at most output_len over the replies' mean); how far below depends on the model, which answers in its own words. Far below a baseline's, the answers stop early: a chat template or tokenizer change that makes the model emit its end of sequence at once, an engine cutting streams short. Neither higher nor lower is better, so no sla key: the console names a sharp change against a baseline, and an assert bounds it (metrics.output_length_ratio >= 0.3).",
		scalar:      func(s *Summary) float64 { return s.OutputLengthRatio() }},
	{Name: "request_throughput", Kind: Scalar, Unit: "req/s", Better: HigherIsBetter, Title: "request throughput", Compare: []string{""}, Windowed: true,
		Description: "Completed requests per second of the measured span (first dispatch to last completion).",
		scalar:      func(s *Summary) float64 { return s.RequestThroughput }},
	{Name: "output_throughput", Kind: Scalar, Unit: "tok/s", Better: HigherIsBetter, Title: "output throughput", Compare: []string{""}, Windowed: true,
		Description: "Output tokens of completed (and abandoned) requests per second of the measured span.",
		scalar:      func(s *Summary) float64 { return s.OutputThroughput }},
	{Name: "total_token_throughput", Kind: Scalar, Unit: "tok/s", Better: HigherIsBetter, Title: "total token throughput", Compare: []string{""}, Windowed: true,
		Description: "Input plus output tokens of completed (and abandoned) requests per second of the measured span.",
		scalar:      func(s *Summary) float64 { return s.TotalTokenThroughput }},
	{Name: "request_goodput", Kind: Scalar, Unit: "req/s", Better: HigherIsBetter, Title: "goodput", Compare: []string{""}, Windowed: true,
		Description: "Requests per second that completed, were not truncated and met every goodput objective.",
		scalar:      func(s *Summary) float64 { return s.RequestGoodput }},
	{Name: "token_goodput", Kind: Scalar, Unit: "tok/s", Better: HigherIsBetter, Title: "token goodput", Windowed: true,
		Description: "Output tokens per second of the good requests (see request_goodput).",
		scalar:      func(s *Summary) float64 { return s.TokenGoodput }},
	{Name: "peak_output_throughput", Kind: Scalar, Unit: "tok/s", Better: HigherIsBetter, Title: "peak output throughput",
		Description: "The most output-carrying events in one time-series window, per second (vLLM's max_output_tokens_per_s counts events in 1 s buckets the same way).",
		scalar:      func(s *Summary) float64 { return s.PeakOutputThroughput }},
	{Name: "max_concurrency", Kind: Scalar, Unit: "requests", Better: Neither, Title: "peak concurrency",
		Description: "The most requests in flight at once (for merged results: the most in one time-series window, summed over the parts).",
		scalar:      func(s *Summary) float64 { return float64(s.PeakConcurrency) }},
	{Name: "new_connections", Kind: Scalar, Unit: "requests", Better: Neither, Title: "new connections",
		Description: "Completed requests that opened a connection instead of reusing one (all of them with new_connection_per_request).",
		scalar:      func(s *Summary) float64 { return float64(s.NewConnections) }},
	{Name: "stale_retries", Kind: Scalar, Unit: "requests", Better: LowerIsBetter, Title: "stale-connection retries",
		Description: "Requests sent a second time, on a new connection, because the reused keep-alive connection they went out on failed before any byte of the response (a server that closes idle connections, as llama.cpp's llama-server does after every streamed reply). Their latencies count from the first send; a retry that fails too is a failure of its own kind.",
		scalar:      func(s *Summary) float64 { return float64(s.StaleRetries) }},
	{Name: "duration", Kind: Scalar, Unit: "s", Better: Neither, Title: "duration",
		Description: "The measured span: first dispatch to last completion, in seconds.",
		scalar:      func(s *Summary) float64 { return s.Duration }},
	{Name: "total_input_tokens", Kind: Scalar, Unit: "tokens", Better: Neither, Title: "input tokens",
		Description: "The dataset's prompt token counts of completed requests (vLLM's total_input_tokens), and of abandoned requests that had a first token.",
		scalar:      func(s *Summary) float64 { return float64(s.TotalInputTokens) }},
	{Name: "total_output_tokens", Kind: Scalar, Unit: "tokens", Better: Neither, Title: "output tokens",
		Description: "Output tokens of completed requests (from usage, else the tokenizer, else the event count), and those abandoned requests received.",
		scalar:      func(s *Summary) float64 { return float64(s.TotalOutputTokens) }},
	{Name: "achieved_rate", Kind: Scalar, Unit: "req/s", Better: Neither, Title: "achieved dispatch rate",
		Description: "Dispatches per second, (n - 1) over the span from the first to the last dispatch.",
		scalar:      func(s *Summary) float64 { return s.AchievedRate }},
	{Name: "late_dispatches", Kind: Scalar, Unit: "requests", Better: LowerIsBetter, Title: "late dispatches",
		Description: "Open-loop dispatches that left more than the late threshold (10 ms) after their intended time.",
		scalar:      func(s *Summary) float64 { return float64(s.LateDispatches) }},

	// The server figures' sources, newest name first, then the names older
	// releases still serve (docs/engines.md says which version each was
	// checked against). A source may select one label value of a family
	// (name{label="value"}), and a gauge may be read as the ratio of two
	// (a / b). Sources of one figure must mean the same thing:
	// a per-request TPOT histogram is not an inter-token one, so it has a
	// figure of its own.
	serverFigure("kv_cache_usage", SeriesGauge, "fraction", LowerIsBetter, "KV-cache usage",
		"The fraction of the server's KV cache in use (1 = full); with several engines, the fullest one (Triton's TensorRT-LLM backend: its used KV-cache blocks over the most it has, summed over its models).",
		"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "sglang:token_usage", "trtllm_kv_cache_utilization",
		`nv_trt_llm_kv_cache_block_metrics{kv_cache_block_type="used"} / nv_trt_llm_kv_cache_block_metrics{kv_cache_block_type="max"}`),
	serverFigure("requests_running", SeriesGauge, "requests", Neither, "server running requests",
		"Requests in the server's running batch.",
		"vllm:num_requests_running", "sglang:num_running_reqs", "tgi_batch_current_size", "llamacpp:requests_processing",
		"trtllm_num_requests_running", `nv_trt_llm_request_metrics{request_type="scheduled"}`),
	serverFigure("queue", SeriesGauge, "requests", LowerIsBetter, "server waiting requests",
		"Requests waiting in the server's queue for a place in the batch (Dynamo's queued_requests, the last resort, also counts requests in prefill: those without a first token).",
		"vllm:num_requests_waiting", "sglang:num_queue_reqs", "tgi_queue_size", "llamacpp:requests_deferred",
		"trtllm_num_requests_waiting", "dynamo_frontend_worker_waiting_requests", "dynamo_frontend_queued_requests"),
	serverFigure("preemptions", SeriesCounter, "preemptions", LowerIsBetter, "server preemptions",
		"Sequences the server preempted (evicted from the KV cache, to be recomputed; SGLang calls it retraction).",
		"vllm:num_preemptions_total", "sglang:num_retracted_requests_total"),
	serverFigure("prefix_cache_queries", SeriesCounter, "tokens", Neither, "prefix-cache queries",
		"Prompt tokens looked up in the server's prefix cache (where the engine counts no lookups, its prompt tokens).",
		"vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total", "sglang:prompt_tokens_total",
		"trtllm_prompt_tokens_total", "dynamo_frontend_input_sequence_tokens"),
	serverFigure("prefix_cache_hits", SeriesCounter, "tokens", HigherIsBetter, "prefix-cache hits",
		"Prompt tokens found in the server's prefix cache.",
		"vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total", "sglang:cached_tokens_total", "llamacpp:prompt_tokens_cached_total",
		"trtllm_prompt_cached_tokens_total", "dynamo_frontend_cached_tokens"),
	serverFigure("prefix_cache_hit_rate", SeriesRatio, "fraction", HigherIsBetter, "prefix-cache hit rate",
		"Prefix-cache hits / queries, in tokens; mean is over the whole run.",
		"vllm:prefix_cache_hits_total / vllm:prefix_cache_queries_total",
		"vllm:gpu_prefix_cache_hits_total / vllm:gpu_prefix_cache_queries_total",
		"sglang:cached_tokens_total / sglang:prompt_tokens_total",
		"trtllm_prompt_cached_tokens_total / trtllm_prompt_tokens_total",
		"dynamo_frontend_cached_tokens / dynamo_frontend_input_sequence_tokens"),
	serverFigure("prompt_tokens_cached", SeriesCounter, "tokens", HigherIsBetter, "server cached prompt tokens",
		"Prompt tokens the server did not compute because it had their KV, from any cache it has (vLLM: its prefix cache and a KV connector's external cache; SGLang: every cache_source), counted per request as the usage's cached_tokens are: the server's side of cached_tokens.",
		"vllm:prompt_tokens_cached_total", "sglang:cached_tokens_total", "llamacpp:prompt_tokens_cached_total",
		"trtllm_prompt_cached_tokens_total", "dynamo_frontend_cached_tokens"),
	serverFigure("prompt_tokens", SeriesCounter, "tokens", Neither, "server prompt tokens",
		"Prompt (prefill) tokens the server processed (llama.cpp counts only those it did not take from its prompt cache).",
		"vllm:prompt_tokens_total", "sglang:prompt_tokens_total", "llamacpp:prompt_tokens_total",
		"trtllm_prompt_tokens_total", "dynamo_frontend_input_sequence_tokens"),
	serverFigure("generation_tokens", SeriesCounter, "tokens", Neither, "server generation tokens",
		"Output tokens the server generated.",
		"vllm:generation_tokens_total", "sglang:generation_tokens_total", "llamacpp:tokens_predicted_total",
		"trtllm_generation_tokens_total", "dynamo_frontend_output_tokens_total", "dynamo_frontend_output_sequence_tokens"),
	serverFigure("ttft", SeriesHistogram, "ms", LowerIsBetter, "server TTFT",
		"The server's own time to first token (from its histogram's sum and count), without the network and the client.",
		"vllm:time_to_first_token_seconds", "sglang:time_to_first_token_seconds",
		"trtllm_time_to_first_token_seconds", "trtllm:time_to_first_token_seconds", "dynamo_frontend_time_to_first_token_seconds"),
	serverFigure("itl", SeriesHistogram, "ms", LowerIsBetter, "server ITL",
		"The server's own inter-token latency, one observation per output step of a request: per token, unless a step yields several (vLLM with speculative decoding observes each step once, as the client's itl counts each output event); from its histogram's sum and count.",
		"vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds", "sglang:inter_token_latency_seconds", "sglang:time_per_output_token_seconds",
		"dynamo_frontend_inter_token_latency_seconds"),
	serverFigure("tpot", SeriesHistogram, "ms", LowerIsBetter, "server TPOT",
		"The server's own time per output token, one observation per request (its decode time over its tokens after the first; from the histogram's sum and count): a mean over requests, where itl is over output steps.",
		"vllm:request_time_per_output_token_seconds", "trtllm_time_per_output_token_seconds", "trtllm:time_per_output_token_seconds"),
	serverFigure("e2el", SeriesHistogram, "ms", LowerIsBetter, "server E2EL",
		"The server's own end-to-end request latency (from its histogram's sum and count).",
		"vllm:e2e_request_latency_seconds", "sglang:e2e_request_latency_seconds", "tgi_request_duration",
		"trtllm_e2e_request_latency_seconds", "trtllm:e2e_request_latency_seconds", "dynamo_frontend_request_duration_seconds"),
	{Name: "token_streams", Kind: Scalar, Unit: "requests", Better: Neither, Title: "streams expecting token timing",
		Description: "Completed responses that should carry per-token timing: two output events or more, or more tokens than events beyond one.",
		scalar:      func(s *Summary) float64 { return float64(s.TokenStreams) }},
	{Name: "buffered_streams", Kind: Scalar, Unit: "requests", Better: LowerIsBetter, Title: "buffered streams",
		Description: "Of token_streams, those without per-token timing: every token in one event, or every content event within 1 ms after a first token at least 1 ms in coming (a buffering proxy). Over half of token_streams makes ITL, TPOT and user TPS checks inconclusive.",
		scalar:      func(s *Summary) float64 { return float64(s.BufferedStreams) }},
	{Name: "cached_tokens", Kind: Scalar, Unit: "tokens", Better: Neither, Title: "cached prompt tokens",
		Description: "Prompt tokens the engine served from its prefix cache, summed over the requests whose engine reported a count (usage.prompt_tokens_details.cached_tokens, or llama.cpp's timings.cache_n).",
		scalar:      func(s *Summary) float64 { return float64(s.CachedTokens) }},
	{Name: "coalesced_streams", Kind: Scalar, Unit: "requests", Better: LowerIsBetter, Title: "coalesced streams",
		Description: "Of token_streams, those whose events came in bursts: at least half of eight or more gaps under 0.1 ms (events read together) while the gaps between bursts average 1 ms or more (a proxy flushing several events at once). With buffered_streams, over half of token_streams makes ITL, TPOT and user TPS checks inconclusive.",
		scalar:      func(s *Summary) float64 { return float64(s.CoalescedStreams) }},
	{Name: "other_model", Kind: Scalar, Unit: "requests", Better: LowerIsBetter, Title: "answers from another model",
		Description: "Completed requests whose response named another model than the target's (beyond a tag, date or namespace added to the name): the run measured something else. Judged by the validity rule other_model.",
		scalar:      func(s *Summary) float64 { return float64(s.OtherModel) }},
	{Name: "over_max_tokens", Kind: Scalar, Unit: "requests", Better: LowerIsBetter, Title: "over max_tokens",
		Description: "Completed requests with more output events, or a larger usage count, than their max_tokens: the server ignored the cap. Judged by the validity rule over_max_tokens.",
		scalar:      func(s *Summary) float64 { return float64(s.OverMaxTokens) }},
	{Name: "multi_token_streams", Kind: Scalar, Unit: "requests", Better: Neither, Title: "multi-token streams",
		Description: "Completed responses with more tokens (usage or tokenizer) than output events, beyond one: their events carry several tokens, so ITL is per event.",
		scalar:      func(s *Summary) float64 { return float64(s.MultiTokenStreams) }},
	{Name: "token_counts_compared", Kind: Scalar, Unit: "requests", Better: Neither, Title: "token counts compared",
		Description: "Completed requests whose output the server counted (usage): each is checked against what it streamed and, with a local tokenizer, against the client's count.",
		scalar:      func(s *Summary) float64 { return float64(s.TokenCountsCompared) }},
	{Name: "token_count_mismatches", Kind: Scalar, Unit: "requests", Better: LowerIsBetter, Title: "token count mismatches",
		Description: "Of token_counts_compared, those whose usage count the stream disproves (fewer tokens than output events, or more than the streamed text could hold) or the local tokenizer's count disputes (more than one token under it, or more than 1 + n/16 + 2*sqrt(n) over it).",
		scalar:      func(s *Summary) float64 { return float64(s.TokenCountMismatches) }},
	{Name: "client_cpu", Kind: Scalar, Unit: "fraction", Better: Neither, Title: "client CPU",
		Description: "The client process's CPU time (user + system) over the measured phase, as a fraction of wall time times GOMAXPROCS; includes an in-process simulator. The busiest part for merged results.",
		scalar:      func(s *Summary) float64 { return s.ClientCPU }},
	{Name: "spec_acceptance", Kind: Scalar, Unit: "fraction", Better: HigherIsBetter, Title: "draft acceptance", RunLevel: true,
		Description: "The fraction of the speculative decoding draft tokens the engine proposed that its target model accepted (bonus tokens aside), over the requests whose engine reported drafts (llama.cpp's timings.draft_n, vLLM's --per-request-spec-decode-metrics, SGLang's return_spec_tokens_details); null when none did. A figure of the whole run: for asserts (metrics.spec_acceptance >= 0.6), not sla keys.",
		scalar:      func(s *Summary) float64 { return s.SpecAcceptance() }},
	{Name: "prefix_reuse", Kind: Scalar, Unit: "fraction", Better: HigherIsBetter, Title: "prefix reuse", RunLevel: true,
		Description: "The prompt tokens the engine served from its prefix cache (cached_tokens) over what an ideal cache of 16-token blocks would have served from the run's earlier prompts, over the requests that reported a count; when none did, the scraped server figure prompt_tokens_cached's (else prefix_cache_hits') increase over the ideal of every completed request; null when neither is known or the prompts share no prefix. Over 1 with a cache warm from before the run. A figure of the whole run: for asserts (metrics.prefix_reuse >= 0.8), not sla keys.",
		scalar:      func(s *Summary) float64 { return s.PrefixReuse() }},
	{Name: "exact_match", Kind: Scalar, Unit: "fraction", Better: HigherIsBetter, Title: "answers alike", RunLevel: true,
		Description: "The share of prompts answered byte for byte as the baseline answered them (an A/B run's baseline arm, or a stored baseline result whose requests file is beside it), pairing answers by prompt (dataset index and turn; each side's first answer); with its Wilson interval. Null with no baseline, no pair, or sampling (temperature above 0 and no seed), where answers need not agree. Engines are not batch-invariant: a greedy answer can diverge after some tokens at another batch size, so gate on prefix_agreement or answer_similarity, or on exact_match well below 1. A figure of the whole run: for asserts (metrics.exact_match >= 0.9) and regression rules (exact_match = \"10%\": at most 10 points below the baseline's own 1, judged on the interval), not sla keys.",
		scalar:      func(s *Summary) float64 { return s.Agreement.ExactMatch() }},
	{Name: "prefix_agreement", Kind: Scalar, Unit: "fraction", Better: HigherIsBetter, Title: "prefix agreement", RunLevel: true,
		Description: "The mean share of an answer that agrees with the baseline's answer to the same prompt before they first differ (characters of the longer answer), over the pairs whose texts were both kept (the first 1,000 answers: outputs { keep }, or an A/B run's); its interval is the Wilson interval at the mean, conservative for scores between 0 and 1. Tolerates late divergence. Null as exact_match is. A figure of the whole run: for asserts and regression rules, not sla keys.",
		scalar:      func(s *Summary) float64 { return s.Agreement.PrefixAgreement() }},
	{Name: "answer_similarity", Kind: Scalar, Unit: "fraction", Better: HigherIsBetter, Title: "answer similarity", RunLevel: true,
		Description: "The mean similarity of an answer to the baseline's answer to the same prompt: the Dice coefficient of their word bigrams (1: the same words in the same order; 0: no bigram in common), over the pairs prefix_agreement scores. Tolerates a changed word that rejoins. Interval and nulls as prefix_agreement's. A figure of the whole run: for asserts and regression rules, not sla keys.",
		scalar:      func(s *Summary) float64 { return s.Agreement.Similarity() }},
	{Name: "capacity", Kind: Scalar, Unit: "load", Better: HigherIsBetter, Title: "capacity", RunLevel: true,
		Description: "The highest load (users, req/s or concurrent requests, as the sweep or capacity block varies) at which every sla check held; null outside a sweep or capacity search, or when no load met them. A figure of the whole run: for asserts, not sla keys.",
		scalar:      func(s *Summary) float64 { return s.CapacityValue() }},

	{Name: "errors", Kind: Counts, Unit: "requests", Better: LowerIsBetter, Title: "errors",
		Description: "Failed requests by kind: metrics.errors.<kind>, one of " + kindList() + ".",
		keys:        errorKeys(), count: func(s *Summary, k string) int { return s.Errors[ErrorKind(k)] }},
	{Name: "finish", Kind: Counts, Unit: "requests", Better: Neither, Title: "finish reasons",
		Description: "Completed requests by the finish_reason the server gave: stop (an end of sequence or a stop string), length (max_tokens reached), other (anything else, or none). A share is an expression: metrics.finish.length / metrics.completed.",
		keys:        FinishKeys, count: func(s *Summary, k string) int { return s.Finish[k] }},
	{Name: "output_defects", Kind: Counts, Unit: "requests", Better: LowerIsBetter, Title: "output defects",
		Description: "Completed requests whose answer, as it streamed, was blank (white space only), degenerate (16 or more output events of at most 4 distinct strings: a loop), bad_text (invalid UTF-8 or a replacement character: byte fragments) or bad_tool_call (a streamed tool call without a function name, or whose arguments are not a JSON object). Fast answers that say nothing: metrics.output_defects.degenerate == 0.",
		keys:        DefectKeys, count: func(s *Summary, k string) int { return s.OutputDefects[k] }},
}

func kindList() string {
	var s []string
	for _, k := range ErrorKinds {
		if k != ErrCanceled {
			s = append(s, string(k))
		}
	}
	return strings.Join(s, ", ")
}

// DefectKeys are the output_defects metric's keys.
var DefectKeys = []string{"blank", "degenerate", "bad_text", "bad_tool_call"}

// defects are the output defect keys of a request.
func defects(r *Request) []string {
	var d []string
	for i, on := range []bool{r.Blank, r.Degenerate, r.BadText, r.BadToolCall} {
		if on {
			d = append(d, DefectKeys[i])
		}
	}
	return d
}

// FinishKeys are the finish metric's keys: the finish reasons counted
// apart, and other.
var FinishKeys = []string{"stop", "length", "other"}

// FinishKey is the finish metric's key of a finish_reason.
func FinishKey(reason string) string {
	if reason == "stop" || reason == "length" {
		return reason
	}
	return "other"
}

// errorKeys are the errors metric's keys: the error kinds.
func errorKeys() []string {
	var keys []string
	for _, k := range ErrorKinds {
		if k != ErrCanceled {
			keys = append(keys, string(k))
		}
	}
	return keys
}

// Lookup returns the catalogue entry of name.
func Lookup(name string) (Metric, bool) {
	i := slices.IndexFunc(Catalogue, func(m Metric) bool { return m.Name == name })
	if i < 0 {
		return Metric{}, false
	}
	return Catalogue[i], true
}

// Names lists every metric name of the run's own figures (the metrics
// object), in catalogue order; server figures are not among them.
func Names() []string {
	var out []string
	for _, m := range Catalogue {
		if m.Kind != Server {
			out = append(out, m.Name)
		}
	}
	return out
}

// Dist returns the metric's distribution in s (Distribution metrics only).
func (m Metric) Dist(s *Summary) *Latency {
	if m.dist == nil {
		return nil
	}
	return m.dist(s)
}

// Value reads the metric from s: a scalar (stat ""), a distribution's stat,
// or a count (stat is the key). ok is false when the name or stat is not in
// the catalogue, when a distribution has no samples (a statistic of
// nothing), or when the value is not a number.
func (s *Summary) Value(name, stat string) (float64, bool) {
	m, ok := Lookup(name)
	if !ok {
		if strings.HasPrefix(name, ServerPrefix) {
			// a raw metric the target listed in scrape_metrics
			return s.serverValue(name, stat)
		}
		return 0, false
	}
	var v float64
	switch m.Kind {
	case Scalar:
		if stat != "" {
			return 0, false
		}
		v = m.scalar(s)
	case Distribution:
		l := m.dist(s)
		if stat == "count" {
			return float64(l.Count), true
		}
		if l.Count == 0 {
			return 0, false
		}
		if v, ok = l.Stat(stat); !ok {
			return 0, false
		}
	case Counts:
		if !slices.Contains(m.keys, stat) {
			return 0, false
		}
		v = float64(m.count(s, stat))
	case Server:
		return s.serverValue(name, stat)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// Stat returns one statistic of the latency, in its unit.
func (l *Latency) Stat(stat string) (float64, bool) {
	switch stat {
	case "mean":
		return l.Mean, true
	case "p50":
		return l.P50, true
	case "p90":
		return l.P90, true
	case "p95":
		return l.P95, true
	case "p99":
		return l.P99, true
	case "p999":
		return l.P999, true
	case "max":
		return l.Max, true
	case "min":
		return l.Min, true
	case "stddev":
		return l.Stddev, true
	case "count":
		return float64(l.Count), true
	}
	return 0, false
}

// StatTitle renders a statistic for people: "P99", "P99.9", "mean".
func StatTitle(stat string) string {
	switch stat {
	case "p999":
		return "P99.9"
	case "mean", "max", "min", "stddev", "count":
		return stat
	}
	return strings.ToUpper(stat)
}

// Title renders a metric and statistic for people: "P99 TTFT", "error
// rate", "errors of kind http_status".
func Title(name, stat string) string {
	m, ok := Lookup(name)
	if !ok {
		return name
	}
	switch m.Kind {
	case Distribution:
		return StatTitle(stat) + " " + m.Title
	case Counts:
		return m.Title + " of kind " + stat
	case Server:
		return stat + " " + m.Title
	}
	return m.Title
}

// Format renders a value of the named metric with its unit: "612.3 ms",
// "1.5%", "2500 tok/s", "12 requests". A count statistic is a number of
// samples.
func Format(name, stat string, v float64) string {
	num := func(f float64, digits int) string {
		return strconv.FormatFloat(roundTo(f, digits), 'f', -1, 64)
	}
	m, _ := Lookup(name)
	if stat == "count" {
		return num(v, 0) + " samples"
	}
	unit := m.Unit
	if m.Kind == Server {
		unit = ServerUnit(m.Series, m.Unit, stat)
	}
	switch unit {
	case "fraction":
		return num(v*100, 4) + "%"
	case "", "load":
		return num(v, 3)
	}
	return num(v, 3) + " " + unit
}

func roundTo(v float64, digits int) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', digits, 64), 64)
	return f
}

// Ref renders a reference to a metric as conditions write it:
// "metrics.ttft.p99", "metrics.error_rate", "metrics.errors.http_status".
func Ref(name, stat string) string {
	if strings.HasPrefix(name, ServerPrefix) {
		return name + "." + stat
	}
	if stat == "" {
		return "metrics." + name
	}
	return fmt.Sprintf("metrics.%s.%s", name, stat)
}

// LatencyOf returns the named distribution of s, or nil when name is not a
// distribution of the catalogue.
func (s *Summary) LatencyOf(name string) *Latency {
	m, ok := Lookup(name)
	if !ok || m.Kind != Distribution {
		return nil
	}
	return m.dist(s)
}

// CatalogueMarkdown renders the catalogue as the Markdown tables of
// docs/metrics.md (a test keeps the page and this table in sync).
func CatalogueMarkdown() string {
	var b strings.Builder
	dir := map[Direction]string{Neither: "-", LowerIsBetter: "lower", HigherIsBetter: "higher"}
	b.WriteString("Distributions: `metrics.<name>.<stat>` with stat one of " + "`" + strings.Join(Stats, "`, `") + "`" + ".\n\n")
	b.WriteString("| name | unit | better | sla keys | what it is |\n| --- | --- | --- | --- | --- |\n")
	for _, m := range Catalogue {
		if m.Kind != Distribution {
			continue
		}
		key := "`" + m.Name + "_<stat>`"
		if m.Better == HigherIsBetter {
			key = "`min_" + m.Name + "_<stat>`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", m.Name, m.Unit, dir[m.Better], key, m.Description)
	}
	b.WriteString("\nScalars: `metrics.<name>`.\n\n")
	b.WriteString("| name | unit | better | sla key | what it is |\n| --- | --- | --- | --- | --- |\n")
	for _, m := range Catalogue {
		if m.Kind != Scalar {
			continue
		}
		key := "-"
		switch {
		case m.RunLevel:
		case m.Better == LowerIsBetter:
			key = "`" + m.Name + "`"
		case m.Better == HigherIsBetter:
			key = "`min_" + m.Name + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", m.Name, m.Unit, dir[m.Better], key, m.Description)
	}
	b.WriteString("\nCounts: `metrics.<name>.<key>`.\n\n")
	b.WriteString("| name | keys | what it is |\n| --- | --- | --- |\n")
	for _, m := range Catalogue {
		if m.Kind == Counts {
			fmt.Fprintf(&b, "| `%s` | `%s` | %s |\n", m.Name, strings.Join(m.keys, "`, `"), m.Description)
		}
	}
	b.WriteString("\nServer figures, scraped from the target's metrics endpoint: `server.<name>.<stat>` with stat one of " +
		"`" + strings.Join(ServerStatNames, "`, `") + "` (a ratio has no `delta`). A gauge's min, mean and max are over its scraped values " +
		"and delta is last - first; a counter's min, mean, max and last are per-second rates and delta is the increase over the run; a " +
		"histogram's min, max and last are window means, mean is the run's mean and delta the number of observations. " +
		"The first source the server exports is read; a histogram read as a counter (Dynamo's per-request token histograms) counts its sum.\n\n")
	b.WriteString("| name | read as | unit | better | sla keys | sources (vLLM, SGLang, TGI, llama.cpp, TensorRT-LLM, Dynamo) | what it is |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, m := range Catalogue {
		if m.Kind != Server {
			continue
		}
		short := strings.TrimPrefix(m.Name, ServerPrefix)
		key := "-"
		switch m.Better {
		case LowerIsBetter:
			key = "`server_" + short + "_<stat>`"
		case HigherIsBetter:
			key = "`min_server_" + short + "_<stat>`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | `%s` | %s |\n", short, m.Series, m.Unit, dir[m.Better], key, strings.Join(m.Sources, "`, `"), m.Description)
	}
	return b.String()
}
