package sim

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/llmload/llmload/internal/anthropicwire"
	"github.com/llmload/llmload/internal/apis"
	"github.com/llmload/llmload/internal/openaiwire"
)

// Anthropic's Messages API (POST /v1/messages), served from the same
// engine and profile as the chat API: the profile's reasoning tokens are
// a thinking block before the text.

func init() { register(apis.Messages, messagesAPI{}) }

// messagesAPI is POST /v1/messages: messages and a top-level system prompt
// in; named events out (streamMessage), or one message (respondMessage).
// It takes any x-api-key, as the simulator takes any key, but wants the
// anthropic-version header Anthropic requires.
type messagesAPI struct{}

// prompt counts the system prompt as a system message before the others,
// as a chat template renders it. The API has no system role (a system
// message is refused, as Anthropic refuses it), and max_tokens is
// required.
func (messagesAPI) prompt(a *apiRequest) ([]int, *apiError) {
	if a.MaxTokens == nil {
		return nil, badRequest("max_tokens", "max_tokens: Field required")
	}
	msgs := a.Messages
	for i, m := range msgs {
		if m.Role != "user" && m.Role != "assistant" {
			return nil, badRequest("messages", "messages.%d.role: Input should be 'user' or 'assistant' (a system prompt is the top-level system parameter)", i)
		}
	}
	if len(a.System) > 0 && string(a.System) != "null" {
		if _, err := messageText(a.System); err != nil {
			return nil, badRequest("system", "system: %v", err)
		}
		msgs = append([]chatMessage{{Role: "system", Content: a.System}}, msgs...)
	}
	if len(a.Messages) == 0 {
		return nil, badRequest("messages", "messages: at least one message is required")
	}
	return chatIDs(msgs)
}

// limits: max_tokens; a stream always carries the usage (message_start,
// message_delta).
func (messagesAPI) limits(a *apiRequest) (*int, bool) { return a.MaxTokens, true }
func (messagesAPI) idPrefix() string                  { return "msg_" }
func (messagesAPI) reasons() bool                     { return true }

func (messagesAPI) checkHeader(h http.Header) *apiError {
	if h.Get(anthropicwire.HeaderVersion) == "" {
		return badRequest("", "anthropic-version: header is required")
	}
	return nil
}

// messagesErrorTypes names an HTTP status as the API's error types do.
var messagesErrorTypes = map[int]string{
	http.StatusBadRequest:            anthropicwire.ErrInvalidRequest,
	http.StatusUnauthorized:          anthropicwire.ErrAuthentication,
	http.StatusForbidden:             anthropicwire.ErrPermission,
	http.StatusNotFound:              anthropicwire.ErrNotFound,
	http.StatusRequestEntityTooLarge: anthropicwire.ErrTooLarge,
	http.StatusTooManyRequests:       anthropicwire.ErrRateLimit,
	http.StatusServiceUnavailable:    anthropicwire.ErrOverloaded,
	anthropicwire.StatusOverloaded:   anthropicwire.ErrOverloaded,
}

// writeError answers {"type": "error", "error": {"type", "message"}}.
func (messagesAPI) writeError(w http.ResponseWriter, e *apiError) {
	typ, ok := messagesErrorTypes[e.status]
	if !ok {
		typ = anthropicwire.ErrAPI
	}
	writeJSON(w, e.status, map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": e.msg}})
}

func (messagesAPI) answer(c *call) {
	if c.req.stream {
		c.streamMessage()
		return
	}
	if reasoning, text, ok := c.whole(); ok {
		c.respondMessage(reasoning, text)
	}
}

// messageSignature is the signature a thinking block ends with (Anthropic
// signs its thinking; the simulator's is a placeholder).
const messageSignature = "c2ltdWxhdGVk"

// streamMessage sends a Messages stream as Anthropic documents it:
// message_start (the input usage) once the prompt is prefilled, a ping,
// then the thinking block when the profile reasons (content_block_start,
// a thinking_delta per event, a signature_delta, content_block_stop),
// the text block (a text_delta per event, each carrying tokens_per_event
// tokens), message_delta with the stop reason and the cumulative usage,
// and message_stop.
func (c *call) streamMessage() {
	h := c.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	c.w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(c.w)
	_ = rc.Flush()
	buf := make([]byte, 0, 512)
	k := c.s.p.TokensPerEvent
	sent, started := 0, false
	text := -1 // the text block's index, once open
	for sent < c.q.target {
		out, ok := c.wait()
		if !ok {
			return
		}
		buf = buf[:0]
		if !started {
			buf = c.appendMessageStart(buf)
			buf = appendMessageEvent(buf, anthropicwire.EventPing, "")
			started = true
		}
		for sent < out {
			n := min(k, out-sent)
			r := min(max(c.reasoning-sent, 0), n)
			if r > 0 {
				if sent == 0 {
					buf = appendMessageEvent(buf, anthropicwire.EventBlockStart, `"index":0,"content_block":{"type":"`+anthropicwire.BlockThinking+`","thinking":"","signature":""}`)
				}
				buf = c.appendMessageDelta(buf, 0, anthropicwire.DeltaThinking, "thinking", r)
				if sent+r == c.reasoning {
					buf = appendMessageEvent(buf, anthropicwire.EventBlockDelta, `"index":0,"delta":{"type":"`+anthropicwire.DeltaSignature+`","signature":"`+messageSignature+`"}`)
					buf = appendMessageEvent(buf, anthropicwire.EventBlockStop, `"index":0`)
				}
			}
			if n > r {
				if text < 0 {
					text = 0
					if c.reasoning > 0 {
						text = 1
					}
					buf = appendMessageEvent(buf, anthropicwire.EventBlockStart, `"index":`+strconv.Itoa(text)+`,"content_block":{"type":"`+anthropicwire.BlockText+`","text":""}`)
				}
				buf = c.appendMessageDelta(buf, text, anthropicwire.DeltaText, "text", n-r)
			}
			sent += n
			if c.fault != "" && sent >= c.faultAt {
				if _, err := c.w.Write(buf); err != nil {
					return
				}
				buf = buf[:0]
				if !c.inject(rc) {
					return
				}
			}
		}
		if _, err := c.w.Write(buf); err != nil || rc.Flush() != nil {
			return
		}
	}
	buf = buf[:0]
	if !started {
		buf = c.appendMessageStart(buf)
	}
	if text >= 0 {
		buf = appendMessageEvent(buf, anthropicwire.EventBlockStop, `"index":`+strconv.Itoa(text))
	} else if sent > 0 && sent < c.reasoning {
		// Cut by max_tokens while thinking: the thinking block ends there.
		buf = appendMessageEvent(buf, anthropicwire.EventBlockStop, `"index":0`)
	}
	buf = appendMessageEvent(buf, anthropicwire.EventMessageDelta,
		`"delta":{"stop_reason":"`+c.stopReason()+`","stop_sequence":null},"usage":`+c.messageUsage(c.q.target))
	buf = appendMessageEvent(buf, anthropicwire.EventMessageStop, "")
	_, _ = c.w.Write(buf)
	_ = rc.Flush()
}

// stopReason is the sequence's finish reason as the API names it.
func (c *call) stopReason() string {
	if c.q.reason == openaiwire.FinishLength {
		return anthropicwire.StopMaxTokens
	}
	return anthropicwire.StopEndTurn
}

// messageUsage renders the usage object: input_tokens leaves out the
// prompt tokens read from the prefix cache (cache_read_input_tokens), as
// Anthropic counts them; output is the output tokens so far.
func (c *call) messageUsage(output int) string {
	return fmt.Sprintf(`{"input_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":%d,"output_tokens":%d}`,
		c.req.promptTokens-c.q.cached, c.q.cached, output)
}

// appendMessageStart appends message_start: the message, empty, with the
// input usage (and, as Anthropic sends it, an output count of 1 before any
// output: a first figure, not a count).
func (c *call) appendMessageStart(buf []byte) []byte {
	return appendMessageEvent(buf, anthropicwire.EventMessageStart,
		`"message":{"id":"`+c.id+`","type":"message","role":"assistant","content":[],"model":`+strconv.Quote(c.s.p.Model)+
			`,"stop_reason":null,"stop_sequence":null,"usage":`+c.messageUsage(1)+`}`)
}

// appendMessageDelta appends a content_block_delta of block index: a delta
// of typ carrying n tokens in its field.
func (c *call) appendMessageDelta(buf []byte, index int, typ, field string, n int) []byte {
	buf = append(buf, "event: "+anthropicwire.EventBlockDelta+"\ndata: {\"type\":\""+anthropicwire.EventBlockDelta+"\",\"index\":"...)
	buf = strconv.AppendInt(buf, int64(index), 10)
	buf = append(buf, `,"delta":{"type":"`...)
	buf = append(buf, typ...)
	buf = append(buf, `","`...)
	buf = append(buf, field...)
	buf = append(buf, `":"`...)
	for range n {
		buf = append(buf, c.words.next()...)
	}
	return append(buf, "\"}}\n\n"...)
}

// appendMessageEvent appends "event: <typ>" and its data, {"type": <typ>,
// fields}.
func appendMessageEvent(buf []byte, typ, fields string) []byte {
	buf = append(buf, "event: "...)
	buf = append(buf, typ...)
	buf = append(buf, "\ndata: {\"type\":\""...)
	buf = append(buf, typ...)
	buf = append(buf, '"')
	if fields != "" {
		buf = append(buf, ',')
		buf = append(buf, fields...)
	}
	return append(buf, "}\n\n"...)
}

// respondMessage answers a Messages request that did not ask for a
// stream: the whole message, its thinking and text as content blocks.
func (c *call) respondMessage(reasoning, text string) {
	var content []any
	if c.reasoning > 0 {
		content = append(content, map[string]any{"type": anthropicwire.BlockThinking, "thinking": reasoning, "signature": messageSignature})
	}
	if text != "" || c.reasoning == 0 {
		content = append(content, map[string]any{"type": anthropicwire.BlockText, "text": text})
	}
	writeJSON(c.w, http.StatusOK, map[string]any{
		"id": c.id, "type": "message", "role": "assistant", "model": c.s.p.Model, "content": content,
		"stop_reason": c.stopReason(), "stop_sequence": nil,
		"usage": map[string]int{
			"input_tokens": c.req.promptTokens - c.q.cached, "cache_creation_input_tokens": 0,
			"cache_read_input_tokens": c.q.cached, "output_tokens": c.q.target,
		},
	})
}
