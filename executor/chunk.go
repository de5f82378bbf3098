package executor

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"
)

// chunk is what one SSE data payload of an OpenAI-style stream says.
type chunk struct {
	output           bool   // it carries generated output (a token)
	text             []byte // the generated text, appended when asked for
	finish           string // choices[].finish_reason, when set
	hasUsage         bool
	promptTokens     int
	completionTokens int
	errMsg           string // the server reported an error in the stream
}

var errNotObject = errors.New("data is not a JSON object")

// parseChunk reads one data payload (not "[DONE]") into c, which it resets
// first. Generated text is appended to c.text only when keepText is set. An
// error means the payload is not the JSON we expect (a malformed event).
//
// Output is a non-empty choices[].text (completions) or a non-empty
// delta.content, delta.reasoning_content, delta.reasoning or delta.tool_calls
// (chat); a chunk that only names the role carries no output.
func parseChunk(data []byte, c *chunk, keepText bool) error {
	*c = chunk{text: c.text[:0]}
	// The payload is only read while data is unchanged; strings kept past
	// this call are copied.
	s := unsafe.String(unsafe.SliceData(data), len(data))
	if !gjson.Valid(s) {
		return fmt.Errorf("invalid JSON: %s", excerpt(data))
	}
	root := gjson.Parse(s)
	if !root.IsObject() {
		return errNotObject
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
			v.ForEach(func(_, choice gjson.Result) bool {
				c.choice(choice, keepText)
				return true
			})
		case "usage":
			if v.IsObject() {
				c.hasUsage = true
				c.promptTokens = int(v.Get("prompt_tokens").Int())
				c.completionTokens = int(v.Get("completion_tokens").Int())
			}
		case "error":
			if v.Type != gjson.Null {
				c.errMsg = errorMessage(v)
			}
		case "object":
			if v.Str == "error" {
				c.errMsg = errorMessage(root)
			}
		}
		return true
	})
	return bad
}

// choice reads one element of choices.
func (c *chunk) choice(choice gjson.Result, keepText bool) {
	choice.ForEach(func(key, v gjson.Result) bool {
		switch key.Str {
		case "text":
			c.content(v, keepText)
		case "delta":
			v.ForEach(func(key, v gjson.Result) bool {
				switch key.Str {
				case "content", "reasoning_content", "reasoning":
					c.content(v, keepText)
				case "tool_calls":
					if v.IsArray() {
						v.ForEach(func(_, _ gjson.Result) bool {
							c.output = true
							return false
						})
					}
				}
				return true
			})
		case "finish_reason":
			if v.Type == gjson.String && v.Str != "" {
				c.finish = strings.Clone(v.Str)
			}
		}
		return true
	})
}

// content notes a generated string; "" and null carry no output.
func (c *chunk) content(v gjson.Result, keepText bool) {
	if v.Type != gjson.String || len(v.Raw) <= 2 {
		return
	}
	c.output = true
	if keepText {
		c.text = append(c.text, v.Str...)
	}
}

// errorMessage renders an error object or value from a stream.
func errorMessage(v gjson.Result) string {
	if m := v.Get("message"); m.Exists() {
		return "server error: " + clip(m.String(), 200)
	}
	return "server error: " + clip(v.String(), 200)
}

// excerpt is a short, printable prefix of a payload for error messages.
func excerpt(b []byte) string { return clip(string(b), 120) }

// clip shortens s to at most n bytes, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
