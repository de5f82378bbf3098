package executor

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/llmload/llmload/dataset"

	"github.com/llmload/llmload/metrics"

	"github.com/llmload/llmload/internal/openaiwire"
	"github.com/tidwall/gjson"
)

// chunk is what one SSE data payload of a stream says, whatever the API.
type chunk struct {
	// expected is the request's expected answer, set before its stream is
	// read (which takes it before the first event's parse resets the
	// chunk): its text is kept to be judged.
	expected  *dataset.Expected
	output    bool // it carries generated output (a token), reasoning or answer
	reasoning bool // the output is (or holds) reasoning
	answer    bool // the output is (or holds) answer text
	toolCall  bool // the output is (or holds) a tool call's name or arguments
	// tools are the event's tool-call fragments (toolCall), in order.
	tools     []toolDelta
	text      []byte // the generated text, appended when asked for
	textBytes int    // the generated text's length, always counted
	// hash is the FNV-1a of every string generated so far in the stream,
	// carried from event to event (the reader sets its start).
	hash uint64
	// What this event's generated strings were: their own hash (to count
	// distinct events), whether one held invalid UTF-8 or a replacement
	// character, whether one held more than white space.
	evHash           uint64
	badText          bool
	nonSpace         bool
	finish           string // the finish reason, when set
	hasUsage         bool
	promptTokens     int
	completionTokens int
	reasoningTokens  int    // usage's reasoning tokens, when the server counts them
	errMsg           string // the server reported an error in the stream
	// model is the model the payload names; like every string of a
	// chunk, valid only until the next read (copy to keep it).
	model string
	// fingerprint is the payload's system_fingerprint (the engine's build
	// on llama.cpp, "fp_ollama" on Ollama); valid until the next read.
	fingerprint string
	// What the engine says of the request itself (engineNumbers), when
	// it says it: cached prompt tokens, llama.cpp's timings, vLLM's
	// per-request metrics.
	engine engineNumbers
	done   bool // the stream's end marker: nothing more to read
	// keepAlive: the event is the API's keep-alive (Messages' ping),
	// which, as a comment line, is no progress for stall_timeout.
	keepAlive bool
}

var errNotObject = errors.New("data is not a JSON object")

// openEvent begins every API's Parse: it resets c (keeping its buffers
// and the stream's hash), ends the stream at "[DONE]" (the OpenAI APIs';
// a proxy may add it to others), and reads the payload, which must be a
// JSON object. ok is false when there is nothing more to read: the end,
// or an error. The payload is only read while data is unchanged; strings
// kept past the call are copied.
func openEvent(data []byte, c *chunk) (root gjson.Result, ok bool, err error) {
	*c = chunk{text: c.text[:0], hash: c.hash, tools: c.tools[:0]}
	if string(bytes.TrimSpace(data)) == openaiwire.Done {
		c.done = true
		return root, false, nil
	}
	s := unsafe.String(unsafe.SliceData(data), len(data))
	if !gjson.Valid(s) {
		return root, false, fmt.Errorf("invalid JSON: %s", excerpt(data))
	}
	root = gjson.Parse(s)
	if !root.IsObject() {
		return root, false, errNotObject
	}
	return root, true, nil
}

// eventType is a named-event API's event type: the SSE event name, or
// the payload's "type" when the event has no name of its own.
func eventType(event []byte, root gjson.Result) string {
	if typ := string(event); typ != "" && typ != "message" {
		return typ
	}
	return root.Get("type").Str
}

// choiceReader reads one element of choices into c: the fields an API has
// of its own (text, delta, ...), and finish_reason with c.finishReason.
type choiceReader func(c *chunk, choice gjson.Result, keepText bool)

// parseOpenAI reads one data payload of an OpenAI-style stream into c,
// which it resets first: "[DONE]" ends the stream; otherwise the payload
// must be a JSON object. The envelope is shared: usage, an error object
// ({"error": ...} or vLLM's {"object": "error", ...}) and choices, an
// array whose elements go to choice.
func parseOpenAI(data []byte, c *chunk, keepText bool, choice choiceReader) error {
	root, ok, err := openEvent(data, c)
	if !ok {
		return err
	}
	var bad error
	root.ForEach(func(key, v gjson.Result) bool {
		switch key.Str {
		case "choices":
			if !v.IsArray() {
				if v.Type != gjson.Null {
					bad = errors.New("choices is not an array")
				}
				return bad == nil
			}
			v.ForEach(func(_, v gjson.Result) bool {
				choice(c, v, keepText)
				return true
			})
		case "usage":
			if v.IsObject() {
				c.hasUsage = true
				c.promptTokens = int(v.Get("prompt_tokens").Int())
				c.completionTokens = int(v.Get("completion_tokens").Int())
				c.reasoningTokens = int(v.Get("completion_tokens_details.reasoning_tokens").Int())
				if ct := v.Get("prompt_tokens_details.cached_tokens"); ct.Type == gjson.Number {
					c.engine.cached, c.engine.hasCached = int(ct.Int()), true
				}
			}
		case "timings":
			c.engine.llamaTimings(v)
		case "metrics":
			c.engine.vllmMetrics(v)
		case "sglext":
			c.engine.sglangSpec(v)
		case "model":
			c.model = v.Str
		case "system_fingerprint":
			c.fingerprint = v.Str
		case "error":
			if v.Type != gjson.Null {
				c.errMsg = errorMessage(v)
			}
		case "object":
			if v.Str == openaiwire.ObjectError {
				c.errMsg = errorMessage(root)
			}
		}
		return true
	})
	return bad
}

// finishReason notes a choice's finish_reason; "" and null are none.
func (c *chunk) finishReason(v gjson.Result) {
	if v.Type == gjson.String && v.Str != "" {
		c.finish = strings.Clone(v.Str)
	}
}

// FNV-1a, 64 bits: the output hash, updated with each generated string
// as it arrives, so that no text is kept to hash it.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvAdd(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// content notes a generated string of the answer; "" and null carry no
// output.
func (c *chunk) content(v gjson.Result, keepText bool) {
	if c.generated(v, keepText) {
		c.answer = true
	}
}

// reasoningContent notes a generated string of reasoning.
func (c *chunk) reasoningContent(v gjson.Result, keepText bool) {
	if c.generated(v, keepText) {
		c.reasoning = true
	}
}

// generated notes a generated string, whatever its phase, and reports
// whether it carried output.
func (c *chunk) generated(v gjson.Result, keepText bool) bool {
	if v.Type != gjson.String || len(v.Raw) <= 2 {
		return false
	}
	c.output = true
	c.textBytes += len(v.Str)
	c.hash = fnvAdd(c.hash, v.Str)
	c.evHash = fnvAdd(c.evHash, v.Str)
	if !utf8.ValidString(v.Str) || strings.ContainsRune(v.Str, utf8.RuneError) {
		c.badText = true
	}
	if !c.nonSpace && strings.TrimSpace(v.Str) != "" {
		c.nonSpace = true
	}
	if keepText {
		c.text = append(c.text, v.Str...)
	}
	return true
}

// errorMessage renders an error object or value from a stream.
func errorMessage(v gjson.Result) string {
	if m := v.Get("message"); m.Exists() {
		return "server error: " + m.String()
	}
	return "server error: " + v.String()
}

// excerpt is a payload for an error message. It is not cut here: the
// client scrubs secrets from a message before cutting it to MaxMessage
// (a cut first could leave part of a key).
func excerpt(b []byte) string { return string(b) }

// engineNumbers is what an engine reports about one request, in its final
// chunk: the prompt tokens it served from its prefix cache
// (usage.prompt_tokens_details.cached_tokens, or llama.cpp's cache_n),
// llama.cpp's timings (prompt_ms: its prefill; predicted_ms over
// predicted_n: its time per output token) and vLLM's per-request metrics
// (--enable-per-request-metrics: time_to_first_token_ms from the
// request's arrival in the engine, queue_time_ms, mean_itl_ms).
type engineNumbers struct {
	cached    int
	hasCached bool
	ttft      time.Duration // vLLM's time_to_first_token_ms
	queue     time.Duration // vLLM's queue_time_ms
	prefill   time.Duration // llama.cpp's prompt_ms
	tpot      time.Duration // llama.cpp's predicted_ms / predicted_n, vLLM's mean_itl_ms
	// Speculative decoding: draft tokens proposed and accepted.
	drafted, accepted int
}

// drafts reads a count of draft tokens proposed and accepted; a count
// that is not a number, negative, or more accepted than proposed is none.
func (e *engineNumbers) drafts(proposed, accepted gjson.Result) {
	p, a := proposed.Int(), accepted.Int()
	if proposed.Type != gjson.Number || accepted.Type != gjson.Number || p <= 0 || a < 0 || a > p {
		return
	}
	e.drafted, e.accepted = int(p), int(a)
}

// sglangSpec reads SGLang's spec_tokens_details (sglext, asked for by
// return_spec_tokens_details): an object, or one per choice.
func (e *engineNumbers) sglangSpec(v gjson.Result) {
	d := v.Get("spec_tokens_details")
	if d.IsArray() {
		d = d.Get("0")
	}
	e.drafts(d.Get("spec_num_proposed_drafts"), d.Get("spec_num_correct_drafts"))
}

// ms reads a JSON number of milliseconds; 0 for anything else or a
// negative or absurd value (a day or more).
func ms(v gjson.Result) time.Duration {
	if v.Type != gjson.Number || v.Num < 0 || v.Num >= 86_400_000 {
		return 0
	}
	return time.Duration(v.Num * float64(time.Millisecond))
}

// llamaTimings reads llama.cpp's timings object.
func (e *engineNumbers) llamaTimings(v gjson.Result) {
	if !v.IsObject() {
		return
	}
	e.prefill = ms(v.Get("prompt_ms"))
	if n := v.Get("predicted_n").Int(); n > 0 {
		e.tpot = ms(v.Get("predicted_ms")) / time.Duration(n)
	}
	if c := v.Get("cache_n"); c.Type == gjson.Number && !e.hasCached {
		e.cached, e.hasCached = int(c.Int()), true
	}
	// Present only when a draft model proposed tokens.
	e.drafts(v.Get("draft_n"), v.Get("draft_n_accepted"))
}

// vllmMetrics reads vLLM's per-request metrics object. Its
// time_to_first_token_ms counts from the request's scheduling, after its
// queue_time_ms: the engine's TTFT from the request's arrival in its queue
// is their sum, so that TTFT less it (client_overhead) is what happened
// outside the engine, not the engine's queue.
func (e *engineNumbers) vllmMetrics(v gjson.Result) {
	if !v.IsObject() {
		return
	}
	e.queue = ms(v.Get("queue_time_ms"))
	if t := ms(v.Get("time_to_first_token_ms")); t > 0 {
		e.ttft = e.queue + t
	}
	e.tpot = ms(v.Get("mean_itl_ms"))
	// --per-request-spec-decode-metrics: accepted drafts exclude the
	// bonus token each verify step adds.
	sd := v.Get("speculative_decoding")
	e.drafts(sd.Get("num_draft_tokens"), sd.Get("num_accepted_draft_tokens"))
}

// note copies what the engine reported into the request's record; a
// later chunk's report overwrites an earlier one's (Ollama sends a zeroed
// usage in every chunk before the real one).
func (e *engineNumbers) note(res *metrics.Request) {
	if e.hasCached {
		res.CachedTokens, res.CacheReported = e.cached, true
	}
	if e.ttft > 0 {
		res.EngineTTFT = e.ttft
	}
	if e.queue > 0 {
		res.EngineQueue = e.queue
	}
	if e.prefill > 0 {
		res.EnginePrefill = e.prefill
	}
	if e.tpot > 0 {
		res.EngineTPOT = e.tpot
	}
	if e.drafted > 0 {
		res.DraftTokens, res.AcceptedDraftTokens = e.drafted, e.accepted
	}
}

// DegenerateEvents and DegenerateDistinct define a degenerate answer: at
// least DegenerateEvents output events made of at most DegenerateDistinct
// distinct strings (one word, or a short phrase, repeated). Text of that
// length from a working model holds far more distinct tokens.
const (
	DegenerateEvents   = 16
	DegenerateDistinct = 4
)

// outputFacts follows what a stream's generated text is, in bounded
// memory: its first distinct event strings (by hash, up to one more than
// DegenerateDistinct), whether any held invalid text, whether any held
// more than white space.
type outputFacts struct {
	distinct [DegenerateDistinct + 1]uint64
	n        int
	bad      bool
	nonSpace bool
}

// event notes one output event's strings.
func (o *outputFacts) event(c *chunk) {
	o.bad = o.bad || c.badText
	o.nonSpace = o.nonSpace || c.nonSpace
	if o.n > DegenerateDistinct || slices.Contains(o.distinct[:o.n], c.evHash) {
		return
	}
	o.distinct[o.n] = c.evHash
	o.n++
}

// note sets the request's output defects.
func (o *outputFacts) note(res *metrics.Request) {
	res.BadText = o.bad
	res.Blank = !o.nonSpace
	res.Degenerate = res.OutputEvents >= DegenerateEvents && o.n <= DegenerateDistinct
}
