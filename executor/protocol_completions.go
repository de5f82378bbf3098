package executor

import (
	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/internal/apis"
	"github.com/tidwall/gjson"
)

// APICompletions is the OpenAI completions API (POST /v1/completions): a
// prompt in, choices[].text out. It is the default API.
const APICompletions = apis.Completions

func init() { register(APICompletions, completions{}) }

// completions is the protocol of APICompletions.
type completions struct{}

// Body is vLLM's async_request_openai_completions payload: the prompt,
// max_tokens, repetition_penalty 1.0 and logprobs null (both the server's
// defaults, sent all the same), with the shared stream fields.
func (completions) Body(t Target, r dataset.Request) map[string]any {
	b := openAIStream(t)
	b["prompt"] = r.Prompt
	b["max_tokens"] = r.OutputLen
	b["repetition_penalty"] = pyFloat("1.0")
	b["logprobs"] = nil
	return b
}

// Parse reads a text_completion chunk: output is a non-empty
// choices[].text (all of it answer: the completions API streams no
// reasoning apart).
func (completions) Parse(_, data []byte, c *chunk, keepText bool) error {
	return parseOpenAI(data, c, keepText, completionsChoice)
}

// completionsChoice reads one completions choice: text, finish_reason.
func completionsChoice(c *chunk, choice gjson.Result, keepText bool) {
	choice.ForEach(func(key, v gjson.Result) bool {
		switch key.Str {
		case "text":
			c.content(v, keepText)
		case "finish_reason":
			c.finishReason(v)
		}
		return true
	})
}
