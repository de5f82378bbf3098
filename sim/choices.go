package sim

import (
	"net/http"
	"strconv"
	"time"

	"github.com/llmload/llmload/internal/openaiwire"
)

// The OpenAI choices format, which the completions and chat completions
// APIs share (api_completions.go, api_chat.go): streamed chunks of
// choices[].text or choices[].delta, a usage chunk, [DONE]; or one whole
// answer. c.chat picks the chat flavour.

// stream sends the SSE events: for chat a role-only first delta, then one
// event per TokensPerEvent tokens (the last carries finish_reason), the
// usage chunk when asked for, and [DONE]. Each event is built in one reused
// buffer from a pre-rendered prefix and flushed at once.
func (c *call) stream() {
	h := c.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	c.w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(c.w)
	_ = rc.Flush()

	head := c.chunkHead()
	buf := make([]byte, 0, len(head)+256)
	k := c.s.p.TokensPerEvent
	sent := 0
	for sent < c.q.target {
		out, ok := c.wait()
		if !ok {
			return
		}
		for sent < out {
			if sent == 0 && c.chat {
				buf = append(append(buf[:0], head...), `"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`+"\n\n"...)
				if _, err := c.w.Write(buf); err != nil {
					return
				}
			}
			n := min(k, out-sent)
			buf = c.appendChunk(append(buf[:0], head...), sent, n, sent+n == c.q.target)
			sent += n
			if _, err := c.w.Write(buf); err != nil {
				return
			}
			if c.fault != "" && sent >= c.faultAt && !c.inject(rc) {
				return
			}
		}
		if rc.Flush() != nil {
			return
		}
	}
	buf = buf[:0]
	if c.req.includeUsage {
		buf = append(buf, "data: "...)
		buf = c.appendIDs(buf, c.object())
		buf = append(buf, `"choices":[],"usage":`...)
		buf = c.appendUsage(buf)
		if c.s.p.PerRequestMetrics {
			buf = c.appendMetrics(buf)
		}
		buf = append(buf, "}\n\n"...)
	}
	buf = append(buf, openaiwire.DoneEvent...)
	_, _ = c.w.Write(buf)
	_ = rc.Flush()
}

func (c *call) object() string {
	if c.chat {
		return openaiwire.ObjectChatChunk
	}
	return openaiwire.ObjectCompletion
}

// appendIDs appends {"id":...,"object":...,"created":...,"model":..., (open object).
func (c *call) appendIDs(buf []byte, object string) []byte {
	buf = append(buf, `{"id":"`...)
	buf = append(buf, c.id...)
	buf = append(buf, `","object":"`...)
	buf = append(buf, object...)
	buf = append(buf, `","created":`...)
	buf = strconv.AppendInt(buf, c.created, 10)
	buf = append(buf, `,"model":`...)
	buf = strconv.AppendQuote(buf, c.s.p.Model)
	return append(buf, ',')
}

// chunkHead is every streamed chunk's prefix, up to the choice's fields.
func (c *call) chunkHead() []byte {
	head := c.appendIDs([]byte("data: "), c.object())
	return append(head, `"choices":[{"index":0,`...)
}

// appendChunk appends the choice fields of an event carrying n tokens,
// the first of which is output token from (0-based): a chat event's tokens
// before c.reasoning are reasoning (delta.reasoning_content), the others
// answer (delta.content; an event across the boundary carries both, as
// vLLM's reasoning parsers send it).
func (c *call) appendChunk(buf []byte, from, n int, last bool) []byte {
	if c.chat {
		r := min(max(c.reasoning-from, 0), n)
		buf = append(buf, `"delta":{`...)
		if r > 0 {
			buf = append(buf, `"reasoning_content":"`...)
			for range r {
				buf = append(buf, c.words.next()...)
			}
			buf = append(buf, '"')
			if n > r {
				buf = append(buf, ',')
			}
		}
		switch {
		case n > r && c.req.tool != "":
			buf = c.appendToolCalls(buf, from+r-c.reasoning, n-r, last)
		case n > r:
			buf = append(buf, `"content":"`...)
			for range n - r {
				buf = append(buf, c.words.next()...)
			}
			buf = append(buf, '"')
		}
	} else {
		buf = append(buf, `"text":"`...)
		for range n {
			buf = append(buf, c.words.next()...)
		}
		buf = append(buf, '"')
	}
	if c.chat {
		buf = append(buf, `},"logprobs":null,"finish_reason":`...)
	} else {
		buf = append(buf, `,"logprobs":null,"finish_reason":`...)
	}
	if last {
		buf = append(buf, '"')
		if c.chat && c.req.tool != "" {
			buf = append(buf, openaiwire.FinishToolCalls...)
		} else {
			buf = append(buf, c.q.reason...)
		}
		buf = append(buf, '"')
	} else {
		buf = append(buf, "null"...)
	}
	if !c.chat {
		buf = append(buf, `,"stop_reason":null`...)
	}
	return append(buf, "}]}\n\n"...)
}

// appendMetrics appends vLLM's per-request metrics object (the field
// and its value), as vLLM's docs define it: the TTFT from the request's
// scheduling (its first admission to the batch), the queue time before
// it, the generation time after the first token, the mean gap between
// tokens and the tokens per second from scheduling to the last token.
// The sequence is done: the engine no longer writes its times.
func (c *call) appendMetrics(buf []byte) []byte {
	q := c.q
	msOf := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	gen := q.last - q.firstAt
	meanITL := 0.0
	if q.target > 1 {
		meanITL = msOf(gen) / float64(q.target-1)
	}
	tps := 0.0
	if total := q.last - q.scheduled; total > 0 {
		tps = float64(q.target) / total.Seconds()
	}
	// As vLLM: TTFT from the request's scheduling, after its queue time.
	buf = append(buf, `,"metrics":{"time_to_first_token_ms":`...)
	buf = strconv.AppendFloat(buf, msOf(q.firstAt-q.scheduled), 'f', 3, 64)
	buf = append(buf, `,"queue_time_ms":`...)
	buf = strconv.AppendFloat(buf, msOf(q.scheduled-q.arrival), 'f', 3, 64)
	buf = append(buf, `,"generation_time_ms":`...)
	buf = strconv.AppendFloat(buf, msOf(gen), 'f', 3, 64)
	buf = append(buf, `,"mean_itl_ms":`...)
	buf = strconv.AppendFloat(buf, meanITL, 'f', 3, 64)
	buf = append(buf, `,"tokens_per_second":`...)
	buf = strconv.AppendFloat(buf, tps, 'f', 3, 64)
	if k := c.s.p.TokensPerEvent - 1; k > 0 {
		// tokens_per_event > 1 is speculative decoding with k draft
		// tokens a step: each step gained its accepted drafts and a bonus
		// token (spec_acceptance).
		buf = append(buf, `,"speculative_decoding":{"num_spec_steps":`...)
		buf = strconv.AppendInt(buf, int64(q.specSteps), 10)
		buf = append(buf, `,"num_draft_tokens":`...)
		buf = strconv.AppendInt(buf, int64(q.drafted), 10)
		buf = append(buf, `,"num_accepted_draft_tokens":`...)
		buf = strconv.AppendInt(buf, int64(q.accepted), 10)
		buf = append(buf, `,"num_spec_tokens":`...)
		buf = strconv.AppendInt(buf, int64(k), 10)
		buf = append(buf, '}')
	}
	return append(buf, '}')
}

func (c *call) appendUsage(buf []byte) []byte {
	buf = append(buf, `{"prompt_tokens":`...)
	buf = strconv.AppendInt(buf, int64(c.req.promptTokens), 10)
	buf = append(buf, `,"total_tokens":`...)
	buf = strconv.AppendInt(buf, int64(c.req.promptTokens+c.q.target), 10)
	buf = append(buf, `,"completion_tokens":`...)
	buf = strconv.AppendInt(buf, int64(c.q.target), 10)
	if c.s.p.PrefixCaching {
		// vLLM sends the details with --enable-prompt-tokens-details.
		buf = append(buf, `,"prompt_tokens_details":{"cached_tokens":`...)
		buf = strconv.AppendInt(buf, int64(c.q.cached), 10)
		buf = append(buf, '}')
	}
	return append(buf, '}')
}

// usage is a whole answer's usage object.
func (c *call) usage() map[string]any {
	u := map[string]any{
		"prompt_tokens": c.req.promptTokens, "completion_tokens": c.q.target,
		"total_tokens": c.req.promptTokens + c.q.target,
	}
	if c.s.p.PrefixCaching {
		u["prompt_tokens_details"] = map[string]int{"cached_tokens": c.q.cached}
	}
	return u
}

// respond waits for the whole output and answers one JSON body.
func (c *call) respond() {
	reasoning, text, ok := c.whole()
	if !ok {
		return
	}
	choice := map[string]any{"index": 0, "logprobs": nil, "finish_reason": c.q.reason}
	object := openaiwire.ObjectCompletion
	if c.chat {
		object = openaiwire.ObjectChatCompletion
		msg := map[string]any{"role": "assistant", "content": text}
		if c.reasoning > 0 {
			msg["reasoning_content"] = reasoning
		}
		if c.req.tool != "" {
			msg["content"] = nil
			msg["tool_calls"] = []any{map[string]any{"id": "call_" + c.id, "type": "function",
				"function": map[string]any{"name": c.req.tool, "arguments": toolArguments(text)}}}
			choice["finish_reason"] = openaiwire.FinishToolCalls
		}
		choice["message"] = msg
	} else {
		choice["text"] = text
		choice["stop_reason"] = nil
	}
	writeJSON(c.w, http.StatusOK, map[string]any{
		"id": c.id, "object": object, "created": c.created, "model": c.s.p.Model,
		"choices": []any{choice},
		"usage":   c.usage(),
	})
}
