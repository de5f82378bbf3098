package executor

import (
	"strings"

	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/internal/apis"
	"github.com/llmload/llmload/internal/openaiwire"
	"github.com/tidwall/gjson"
)

// APIResponses is the OpenAI Responses API (POST /v1/responses, streamed):
// input in, named events out (response.output_text.delta, ...,
// response.completed with the usage). vLLM serves it.
const APIResponses = apis.Responses

func init() { register(APIResponses, responses{}) }

// responses is the protocol of APIResponses.
type responses struct{}

// Body sends the request's messages as the input (role and content, the
// API's easy input messages), or its prompt as a string; the output cap
// is max_output_tokens. The API has no stream_options: the usage always
// comes with response.completed.
func (responses) Body(t Target, r dataset.Request) map[string]any {
	var input any = r.Prompt
	if len(r.Messages) > 0 {
		input = r.Messages
	}
	return map[string]any{
		"model":             t.Model,
		"input":             input,
		"max_output_tokens": r.OutputLen,
		"stream":            true,
		"temperature":       pyFloat("0.0"),
	}
}

// Parse reads one Responses event. Its type is the SSE event name, or the
// payload's "type" when the name is missing (a proxy may drop it): the
// text deltas and tool-call argument deltas are answer output, the
// reasoning text and summary deltas reasoning; response.completed and
// response.incomplete end the stream with the usage (input_tokens,
// output_tokens, output_tokens_details.reasoning_tokens) and a finish
// reason ("stop", or "length" for max_output_tokens); response.failed and
// error events are server errors. Every other event carries no output.
func (responses) Parse(event, data []byte, c *chunk, keepText bool) error {
	root, ok, err := openEvent(data, c)
	if !ok {
		return err
	}
	typ := eventType(event, root)
	switch typ {
	case openaiwire.EventTextDelta, openaiwire.EventToolArgs:
		c.content(root.Get("delta"), keepText)
	case openaiwire.EventReasoning, openaiwire.EventSummary, openaiwire.EventReasoningV0:
		d := root.Get("delta")
		if d.IsObject() {
			// Some vLLM releases sent {"delta": {"content": "..."}}.
			d = d.Get("content")
		}
		c.reasoningContent(d, keepText)
	case openaiwire.EventCompleted, openaiwire.EventIncomplete:
		resp := root.Get("response")
		if u := resp.Get("usage"); u.IsObject() {
			c.hasUsage = true
			c.promptTokens = int(u.Get("input_tokens").Int())
			c.completionTokens = int(u.Get("output_tokens").Int())
			c.reasoningTokens = int(u.Get("output_tokens_details.reasoning_tokens").Int())
		}
		c.finish = openaiwire.FinishStop
		if typ == openaiwire.EventIncomplete {
			c.finish = "incomplete"
			if r := resp.Get("incomplete_details.reason").Str; r == openaiwire.IncompleteMaxTokens {
				c.finish = openaiwire.FinishLength
			} else if r != "" {
				c.finish = strings.Clone(r)
			}
		}
		c.done = true
	case openaiwire.EventFailed:
		if e := root.Get("response.error"); e.Exists() && e.Type != gjson.Null {
			c.errMsg = errorMessage(e)
		} else {
			c.errMsg = "server error: response failed"
		}
	case openaiwire.EventError:
		c.errMsg = errorMessage(root)
	}
	return nil
}
