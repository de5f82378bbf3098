package sim

import "github.com/llmload/llmload/internal/apis"

func init() { register(apis.Completions, completionsAPI{}) }

// completionsAPI is POST /v1/completions: a prompt in, choices[].text out
// (choices.go).
type completionsAPI struct{}

func (completionsAPI) prompt(a *apiRequest) ([]int, *apiError) { return promptIDs(a.Prompt) }
func (completionsAPI) limits(a *apiRequest) (*int, bool)       { return chatLimits(a) }
func (completionsAPI) idPrefix() string                        { return "cmpl-" }
func (completionsAPI) reasons() bool                           { return false }

func (completionsAPI) answer(c *call) {
	if c.req.stream {
		c.stream()
		return
	}
	c.respond()
}
