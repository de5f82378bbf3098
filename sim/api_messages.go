package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

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
// as a chat template renders it, and a message's content blocks by their
// text: a text block's, a tool_use block's name and input, a tool_result
// block's content. The API has no system role (a system message is
// refused, as Anthropic refuses it), and max_tokens is required.
func (messagesAPI) prompt(a *apiRequest) ([]int, *apiError) {
	if a.MaxTokens == nil {
		return nil, badRequest("max_tokens", "max_tokens: Field required")
	}
	if len(a.Messages) == 0 {
		return nil, badRequest("messages", "messages: at least one message is required")
	}
	var msgs []chatMessage
	if len(a.System) > 0 && string(a.System) != "null" {
		if _, err := messageText(a.System); err != nil {
			return nil, badRequest("system", "system: %v", err)
		}
		msgs = append(msgs, chatMessage{Role: "system", Content: a.System})
	}
	for i, m := range a.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return nil, badRequest("messages", "messages.%d.role: Input should be 'user' or 'assistant' (a system prompt is the top-level system parameter)", i)
		}
		text, err := blocksText(m.Content)
		if err != nil {
			return nil, badRequest("messages", "messages.%d.content: %v", i, err)
		}
		images, err := blockImages(m.Content)
		if err != nil {
			return nil, badRequest("messages", "messages.%d.content: %v", i, err)
		}
		// As chat's content parts: the text, then each image.
		parts := []map[string]any{{"type": "text", "text": text}}
		for _, u := range images {
			parts = append(parts, map[string]any{"type": "image_url", "image_url": map[string]string{"url": u}})
		}
		content, _ := json.Marshal(parts)
		msgs = append(msgs, chatMessage{Role: m.Role, Content: content})
	}
	return chatIDs(msgs, a.imageTokens)
}

// blockImages are a Messages content's image blocks, each as a URL (a
// base64 source as its data URL), for the prompt's image tokens. A block
// without a source Anthropic takes is refused, as Anthropic refuses it.
func blockImages(raw json.RawMessage) ([]string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return nil, nil
	}
	var blocks []struct {
		Type   string
		Source *struct {
			Type, URL, Data string
			MediaType       string `json:"media_type"`
		}
	}
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, errors.New("must be a string or a list of content blocks")
	}
	var urls []string
	for i, b := range blocks {
		if b.Type != anthropicwire.BlockImage {
			continue
		}
		switch src := b.Source; {
		case src == nil:
			return nil, fmt.Errorf("%d.source: Field required", i)
		case src.Type == "base64" && src.Data != "" && slices.Contains(anthropicwire.ImageMediaTypes, src.MediaType):
			urls = append(urls, "data:"+src.MediaType+";base64,"+src.Data)
		case src.Type == "url" && src.URL != "":
			urls = append(urls, src.URL)
		default:
			return nil, fmt.Errorf("%d.source: a base64 source with media_type one of %s and data, or a url source", i, strings.Join(anthropicwire.ImageMediaTypes, ", "))
		}
	}
	return urls, nil
}

// blocksText is a Messages content's text: a string, or its blocks' text
// joined by newlines (a text block's text, a tool_use block's name and
// input, a tool_result block's content; other blocks count nothing).
func blocksText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return text, nil
	}
	var blocks []struct {
		Type, Text, Name string
		Input, Content   json.RawMessage
	}
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return "", errors.New("must be a string or a list of content blocks")
	}
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case anthropicwire.BlockText:
			parts = append(parts, b.Text)
		case anthropicwire.BlockToolUse:
			parts = append(parts, b.Name, string(b.Input))
		case anthropicwire.BlockToolResult:
			t, err := blocksText(b.Content)
			if err != nil {
				return "", err
			}
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n"), nil
}

// tool picks the function an answer calls from the API's tools
// ([{"name", "description", "input_schema"}]) and tool_choice ({"type":
// "auto", "any", "none", or "tool" with its "name"}), as chat's do
// (decideTool); a model that may choose answers a tool's result (the last
// message a user's tool_result block) in text.
func (messagesAPI) tool(a *apiRequest, ids []int, p *Profile) (string, *apiError) {
	var tools []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	if err := json.Unmarshal(a.Tools, &tools); err != nil {
		return "", badRequest("tools", "tools: a list of tools, {\"name\", \"input_schema\"}: %v", err)
	}
	if len(tools) == 0 {
		return "", nil
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		if s := bytes.TrimSpace(t.InputSchema); t.Name == "" || len(s) == 0 || s[0] != '{' {
			return "", badRequest("tools", "tools.%d: a tool is {\"name\", \"input_schema\": {...}} (an OpenAI function tool is not one)", i)
		}
		names[i] = t.Name
	}
	mode := toolAuto
	if choice := bytes.TrimSpace(a.ToolChoice); len(choice) > 0 && string(choice) != "null" {
		var c struct{ Type, Name string }
		if err := json.Unmarshal(choice, &c); err != nil {
			return "", badRequest("tool_choice", "tool_choice: an object, {\"type\": ...}: %v", err)
		}
		switch c.Type {
		case "auto":
		case "any":
			mode = toolRequired
		case "none":
			mode = toolNone
		case "tool":
			mode = c.Name
		default:
			return "", badRequest("tool_choice", "tool_choice.type must be \"auto\", \"any\", \"tool\" or \"none\", not %q", c.Type)
		}
	}
	answered := false
	if n := len(a.Messages); n > 0 && a.Messages[n-1].Role == "user" {
		var blocks []struct{ Type string }
		if json.Unmarshal(a.Messages[n-1].Content, &blocks) == nil {
			for _, b := range blocks {
				answered = answered || b.Type == anthropicwire.BlockToolResult
			}
		}
	}
	return decideTool(names, mode, answered, ids, p)
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
// tokens) or, for an answer that calls a tool, the tool_use block (its
// id and name, the call's first token, then its input, {"query":
// "<words>"}, an input_json_delta per event), message_delta with the stop reason and the cumulative
// usage, and message_stop.
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
	opened := false // a tool call's input object is open
	text := -1      // the text block's index, once open
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
			if m := n - r; m > 0 {
				if text < 0 {
					text = 0
					if c.reasoning > 0 {
						text = 1
					}
					block := `{"type":"` + anthropicwire.BlockText + `","text":""}`
					if c.req.tool != "" {
						// The call's name is its first token.
						name, _ := json.Marshal(c.req.tool)
						block = `{"type":"` + anthropicwire.BlockToolUse + `","id":"toolu_` + c.id[len("msg_"):] + `","name":` + string(name) + `,"input":{}}`
						m--
					}
					buf = appendMessageEvent(buf, anthropicwire.EventBlockStart, `"index":`+strconv.Itoa(text)+`,"content_block":`+block)
				}
				switch {
				case c.req.tool != "" && m > 0:
					buf = c.appendToolInput(buf, text, m, !opened, sent+n == c.q.target)
					opened = true
				case c.req.tool == "":
					buf = c.appendMessageDelta(buf, text, anthropicwire.DeltaText, "text", m)
				}
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

// stopReason is the sequence's finish reason as the API names it:
// tool_use for an answer that calls a tool, as chat's is tool_calls.
func (c *call) stopReason() string {
	if c.req.tool != "" {
		return anthropicwire.StopToolUse
	}
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

// appendToolInput appends the input_json_delta of block index for an event
// carrying n of the call's tokens: the first (open) opens the input
// object, the last closes it.
func (c *call) appendToolInput(buf []byte, index, n int, open, last bool) []byte {
	buf = append(buf, "event: "+anthropicwire.EventBlockDelta+"\ndata: {\"type\":\""+anthropicwire.EventBlockDelta+"\",\"index\":"...)
	buf = strconv.AppendInt(buf, int64(index), 10)
	buf = append(buf, `,"delta":{"type":"`+anthropicwire.DeltaInputJSON+`","partial_json":"`...)
	if open {
		buf = append(buf, `{\"query\": \"`...)
	}
	for range n {
		buf = append(buf, c.words.next()...)
	}
	if last {
		buf = append(buf, `\"}`...)
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
	switch {
	case c.req.tool != "":
		content = append(content, map[string]any{"type": anthropicwire.BlockToolUse, "id": "toolu_" + c.id[len("msg_"):],
			"name": c.req.tool, "input": map[string]string{"query": text}})
	case text != "" || c.reasoning == 0:
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
