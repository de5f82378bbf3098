package executor

import (
	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/internal/apis"
	"github.com/tidwall/gjson"
)

// APIChat is the OpenAI chat completions API (POST /v1/chat/completions):
// messages in, choices[].delta out.
const APIChat = apis.Chat

func init() { register(APIChat, chat{}) }

// chat is the protocol of APIChat.
type chat struct{}

// Body sends the request's messages, or its prompt as one user message.
// The output cap goes in max_completion_tokens (OpenAI's current name, what
// vLLM's benchmark sends) and in max_tokens (what older servers read). The
// prompt is a plain string where vLLM sends one text part: servers render
// both the same, and some accept only the string.
func (chat) Body(t Target, r dataset.Request) map[string]any {
	msgs := r.Messages
	if len(msgs) == 0 {
		msgs = []dataset.Message{{Role: "user", Content: r.Prompt}}
	}
	b := openAIStream(t)
	b["messages"] = msgs
	b["max_tokens"] = r.OutputLen
	b["max_completion_tokens"] = r.OutputLen
	if r.Tools != nil {
		b["tools"] = r.Tools.Defs
		if len(r.Tools.Choice) > 0 {
			b["tool_choice"] = r.Tools.Choice
		}
	}
	return b
}

// Parse reads a chat.completion.chunk: output is a non-empty
// delta.content (the answer), delta.tool_calls (tool calls: a function's
// name and fragments of its arguments, by index), or
// delta.reasoning_content or delta.reasoning (reasoning, as vLLM's
// reasoning parsers and other servers stream it); a chunk that only names
// the role carries none.
func (chat) Parse(_, data []byte, c *chunk, keepText bool) error {
	return parseOpenAI(data, c, keepText, chatChoice)
}

// chatChoice reads one chat choice: delta, finish_reason.
func chatChoice(c *chunk, choice gjson.Result, keepText bool) {
	choice.ForEach(func(key, v gjson.Result) bool {
		switch key.Str {
		case "delta":
			v.ForEach(func(key, v gjson.Result) bool {
				switch key.Str {
				case "content":
					c.content(v, keepText)
				case "reasoning_content", "reasoning":
					c.reasoningContent(v, keepText)
				case "tool_calls":
					c.toolCallDeltas(v, keepText)
				}
				return true
			})
		case "finish_reason":
			c.finishReason(v)
		}
		return true
	})
}
