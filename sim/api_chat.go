package sim

import "github.com/llmload/llmload/internal/apis"

func init() { register(apis.Chat, chatAPI{}) }

// chatAPI is POST /v1/chat/completions: messages in, choices[].delta (or
// message) out, reasoning in reasoning_content (choices.go with c.chat).
type chatAPI struct{}

func (chatAPI) prompt(a *apiRequest) ([]int, *apiError) { return chatIDs(a.Messages, a.imageTokens) }
func (chatAPI) limits(a *apiRequest) (*int, bool)       { return chatLimits(a) }
func (chatAPI) idPrefix() string                        { return "chatcmpl-" }
func (chatAPI) reasons() bool                           { return true }

// tool picks the function an answer calls from OpenAI's tools and
// tool_choice (chooseTool).
func (chatAPI) tool(a *apiRequest, ids []int, p *Profile) (string, *apiError) {
	return chooseTool(a, ids, p)
}

func (chatAPI) answer(c *call) {
	c.chat = true
	if c.req.stream {
		c.stream()
		return
	}
	c.respond()
}

// chatLimits is the output cap of both completions APIs, max_tokens or
// (OpenAI's newer name, first) max_completion_tokens, and the usage a
// stream carries when stream_options.include_usage asks for it.
func chatLimits(a *apiRequest) (*int, bool) {
	asked := a.MaxTokens
	if a.MaxCompletionTokens != nil {
		asked = a.MaxCompletionTokens
	}
	return asked, a.StreamOptions != nil && a.StreamOptions.IncludeUsage
}
