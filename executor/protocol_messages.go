package executor

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/internal/anthropicwire"
	"github.com/llmload/llmload/internal/apis"
	"github.com/llmload/llmload/internal/openaiwire"
	"github.com/tidwall/gjson"
)

// APIMessages is Anthropic's Messages API (POST /v1/messages, streamed):
// messages and a top-level system prompt in, named events out
// (content_block_delta, message_delta with the usage, message_stop). Its
// key goes in x-api-key, with an anthropic-version header. Anthropic
// serves it, and so do vLLM and llama.cpp's server.
const APIMessages = apis.Messages

func init() { register(APIMessages, messages{}) }

// messages is the protocol of APIMessages.
type messages struct{}

// MessagesMaxTokens is the max_tokens of a Messages request whose dataset
// entry asks for no output length: the API requires the field.
const MessagesMaxTokens = 4096

// Body sends the request's messages (messagesTurns), or its prompt as one
// user message, with max_tokens (the API requires it) and greedy sampling
// (temperature 0.0, as the other APIs send it). The API has no
// stream_options: the usage always comes in message_start (the input)
// and message_delta (the output).
func (messages) Body(t Target, r dataset.Request) map[string]any {
	msgs := r.Messages
	if len(msgs) == 0 {
		msgs = []dataset.Message{{Role: "user", Content: r.Prompt}}
	}
	system, turns := messagesTurns(msgs)
	maxTokens := r.OutputLen
	if maxTokens <= 0 {
		maxTokens = MessagesMaxTokens
	}
	b := map[string]any{
		"model":       t.Model,
		"messages":    turns,
		"max_tokens":  maxTokens,
		"stream":      true,
		"temperature": pyFloat("0.0"),
	}
	if len(system) > 0 {
		b["system"] = strings.Join(system, "\n\n")
	}
	if r.Tools != nil {
		b["tools"], b["tool_choice"] = messagesTools(r.Tools)
		if b["tool_choice"] == nil {
			delete(b, "tool_choice")
		}
	}
	return b
}

// messagesTurn is one message as the API takes it: its content a string,
// or a list of content blocks.
type messagesTurn struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

// messagesTurns writes a conversation, in OpenAI's chat form as datasets
// and sessions hold it, in the API's. The API has no system role: the
// system (and developer) messages' contents are returned apart, for the
// top-level system string. An assistant message's tool calls are
// tool_use blocks after its text (the call's arguments its input, or an
// empty object when they are not a JSON object: the API takes nothing
// else); tool messages (the calls' results) are tool_result blocks of a
// user message, one message for the results that follow one another. The
// other messages keep their order and their text.
func messagesTurns(msgs []dataset.Message) (system []string, turns []messagesTurn) {
	turns = make([]messagesTurn, 0, len(msgs))
	results := false // the last turn holds tool results
	for _, m := range msgs {
		switch {
		case m.Role == dataset.RoleSystem || m.Role == "developer":
			system = append(system, m.Content)
			continue
		case m.Role == dataset.RoleTool:
			block := map[string]any{"type": anthropicwire.BlockToolResult, "tool_use_id": m.ToolCallID, "content": m.Content}
			if results {
				last := &turns[len(turns)-1]
				last.Content = append(last.Content.([]map[string]any), block)
			} else {
				turns = append(turns, messagesTurn{Role: dataset.RoleUser, Content: []map[string]any{block}})
			}
			results = true
			continue
		case len(m.ToolCalls) > 0:
			var blocks []map[string]any
			if strings.TrimSpace(m.Content) != "" {
				blocks = append(blocks, map[string]any{"type": anthropicwire.BlockText, "text": m.Content})
			}
			for _, tc := range m.ToolCalls {
				input := json.RawMessage(`{}`)
				if a := strings.TrimSpace(tc.Function.Arguments); a != "" && a[0] == '{' && json.Valid([]byte(a)) {
					input = json.RawMessage(a)
				}
				blocks = append(blocks, map[string]any{"type": anthropicwire.BlockToolUse, "id": tc.ID, "name": tc.Function.Name, "input": input})
			}
			turns = append(turns, messagesTurn{Role: m.Role, Content: blocks})
		case len(m.Images) > 0:
			// The images after the text, as chat's image_url parts are.
			blocks := []map[string]any{{"type": anthropicwire.BlockText, "text": m.Content}}
			for _, u := range m.Images {
				blocks = append(blocks, imageBlock(u))
			}
			turns = append(turns, messagesTurn{Role: m.Role, Content: blocks})
		default:
			turns = append(turns, messagesTurn{Role: m.Role, Content: m.Content})
		}
		results = false
	}
	return system, turns
}

// imageBlock is an image (a data URL, or an http(s) URL the API fetches)
// as the API's image block: a base64 source with its media type, or a url
// source.
func imageBlock(u string) map[string]any {
	if media, data, ok := splitDataURL(u); ok {
		return map[string]any{"type": anthropicwire.BlockImage, "source": map[string]any{"type": "base64", "media_type": media, "data": data}}
	}
	return map[string]any{"type": anthropicwire.BlockImage, "source": map[string]any{"type": "url", "url": u}}
}

// splitDataURL splits a base64 data URL ("data:image/png;base64,...")
// into its media type and data.
func splitDataURL(u string) (media, data string, ok bool) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return "", "", false
	}
	head, data, ok := strings.Cut(rest, ",")
	media, ok2 := strings.CutSuffix(head, ";base64")
	return media, data, ok && ok2
}

// messagesImagesOK says whether the API can take a message's images: each
// a base64 data URL of a media type it reads, or an http(s) URL.
func messagesImagesOK(msgs []dataset.Message) error {
	for _, m := range msgs {
		for _, u := range m.Images {
			if media, _, ok := splitDataURL(u); ok {
				if !slices.Contains(anthropicwire.ImageMediaTypes, media) {
					return fmt.Errorf("an image of type %q: the Messages API reads %s", media, strings.Join(anthropicwire.ImageMediaTypes, ", "))
				}
				continue
			}
			if !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
				return fmt.Errorf("image %.40q is neither a base64 data URL nor an http(s) URL", u)
			}
		}
	}
	return nil
}

// messagesTools writes the request's tools (OpenAI function tools, as a
// dataset gives them) as the API takes them: {"name", "description",
// "input_schema"}, the schema being the function's parameters (an object
// without properties when it has none); and its tool_choice: "auto" is
// {"type": "auto"}, "required" {"type": "any"}, "none" {"type": "none"},
// a named function {"type": "tool", "name"}; nil when none is set.
func messagesTools(t *dataset.Tools) ([]map[string]any, any) {
	var tools []map[string]any
	gjson.ParseBytes(t.Defs).ForEach(func(_, v gjson.Result) bool {
		fn := v.Get("function")
		tool := map[string]any{"name": fn.Get("name").Str}
		if d := fn.Get("description"); d.Type == gjson.String {
			tool["description"] = d.Str
		}
		tool["input_schema"] = json.RawMessage(`{"type":"object","properties":{}}`)
		if p := fn.Get("parameters"); p.IsObject() {
			tool["input_schema"] = json.RawMessage(p.Raw)
		}
		tools = append(tools, tool)
		return true
	})
	c := gjson.ParseBytes(t.Choice)
	switch {
	case len(t.Choice) == 0:
		return tools, nil
	case c.Str == "required":
		return tools, map[string]any{"type": "any"}
	case c.Type == gjson.String:
		return tools, map[string]any{"type": c.Str} // "auto", "none"
	default:
		return tools, map[string]any{"type": "tool", "name": c.Get("function.name").Str}
	}
}

// setKey puts the key in x-api-key, as the API takes it (never in
// Authorization).
func (messages) setKey(h http.Header, key string) { h.Set(anthropicwire.HeaderKey, key) }

// setHeaders names the API version every request is written for.
func (messages) setHeaders(h http.Header) {
	h.Set(anthropicwire.HeaderVersion, anthropicwire.Version)
}

// Parse reads one Messages event. Its type is the SSE event name, or the
// payload's "type" when the name is missing (a proxy may drop it).
//
//   - message_start: the model, and the prompt's tokens from its usage
//     (input_tokens plus the tokens written to and read from the prompt
//     cache, which input_tokens leaves out; the ones read are the cached
//     tokens). Its usage's output_tokens is a first guess, not a count:
//     it is not read.
//   - content_block_start: a tool_use block begins a tool call (its id and
//     name, which the model generated: output of the tool-call phase, as
//     chat's first tool-call delta is), the block's index naming the call;
//     text and thinking blocks start empty and carry none.
//   - content_block_delta: text_delta is answer output, thinking_delta
//     reasoning, input_json_delta a fragment of its block's tool call's
//     input (a JSON object, gathered and checked as chat's arguments);
//     signature_delta is not generated text.
//   - message_delta: the stop reason (end_turn and stop_sequence are
//     "stop", max_tokens "length", tool_use "tool_calls", as the OpenAI
//     APIs say them; any other is kept) and the usage: output_tokens is
//     the cumulative count, and input tokens when it repeats them.
//   - message_stop ends the stream; error is a server error, named by its
//     type; ping is a keep-alive, which is not progress for stall_timeout.
//
// Every other event carries no output.
func (messages) Parse(event, data []byte, c *chunk, keepText bool) error {
	root, ok, err := openEvent(data, c)
	if !ok {
		return err
	}
	typ := eventType(event, root)
	switch typ {
	case anthropicwire.EventBlockDelta:
		d := root.Get("delta")
		switch d.Get("type").Str {
		case anthropicwire.DeltaText:
			c.content(d.Get("text"), keepText)
		case anthropicwire.DeltaThinking:
			c.reasoningContent(d.Get("thinking"), keepText)
		case anthropicwire.DeltaInputJSON:
			if a := d.Get("partial_json"); a.Type == gjson.String && a.Str != "" {
				c.toolDelta(toolDelta{index: int(root.Get("index").Int()), args: strings.Clone(a.Str)})
			}
		}
	case anthropicwire.EventBlockStart:
		b := root.Get("content_block")
		if b.Get("type").Str != anthropicwire.BlockToolUse {
			break
		}
		td := toolDelta{index: int(root.Get("index").Int()), id: strings.Clone(b.Get("id").Str), name: strings.Clone(b.Get("name").Str)}
		if in := b.Get("input"); in.IsObject() && len(in.Map()) > 0 {
			// Streamed, the input starts empty and follows in
			// input_json_delta; a server that sends it here is read too.
			td.args = strings.Clone(in.Raw)
		}
		if td.name != "" || td.id != "" || td.args != "" {
			c.toolDelta(td)
		}
	case anthropicwire.EventMessageStart:
		m := root.Get("message")
		c.model = m.Get("model").Str
		messagesInput(c, m.Get("usage"))
	case anthropicwire.EventMessageDelta:
		switch r := root.Get("delta.stop_reason"); r.Str {
		case "":
		case anthropicwire.StopEndTurn, anthropicwire.StopSequence:
			c.finish = openaiwire.FinishStop
		case anthropicwire.StopMaxTokens:
			c.finish = openaiwire.FinishLength
		case anthropicwire.StopToolUse:
			c.finish = openaiwire.FinishToolCalls
		default:
			c.finishReason(r)
		}
		if u := root.Get("usage"); u.IsObject() {
			if out := u.Get("output_tokens"); out.Type == gjson.Number {
				c.hasUsage = true
				c.completionTokens = int(out.Int())
			}
			messagesInput(c, u)
		}
	case anthropicwire.EventMessageStop:
		c.done = true
	case anthropicwire.EventPing:
		c.keepAlive = true
	case anthropicwire.EventError:
		e := root.Get("error")
		if !e.IsObject() {
			c.errMsg = errorMessage(root)
			break
		}
		c.errMsg = "server error: " + e.Get("message").String()
		if t := e.Get("type").Str; t != "" {
			c.errMsg = "server error: " + t + ": " + e.Get("message").String()
		}
	}
	return nil
}

// toolDelta notes a fragment of a tool call: output of the tool-call
// phase, its name and arguments counted as generated text (not the
// answer's).
func (c *chunk) toolDelta(td toolDelta) {
	c.output, c.toolCall = true, true
	c.toolText(td.name)
	c.toolText(td.args)
	c.tools = append(c.tools, td)
}

// messagesInput reads the prompt's tokens from a Messages usage object,
// when it has input_tokens: those, plus the tokens the prompt cache
// wrote (cache_creation_input_tokens) and read (cache_read_input_tokens,
// which are the cached tokens), which input_tokens leaves out.
func messagesInput(c *chunk, u gjson.Result) {
	in := u.Get("input_tokens")
	if in.Type != gjson.Number {
		return
	}
	read := u.Get("cache_read_input_tokens")
	c.promptTokens = int(in.Int() + u.Get("cache_creation_input_tokens").Int() + read.Int())
	if read.Type == gjson.Number {
		c.engine.cached, c.engine.hasCached = int(read.Int()), true
	}
}
