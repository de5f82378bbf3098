package sim

import (
	"io"
	"net/http"

	"github.com/llmload/llmload/internal/apis"
	"github.com/llmload/llmload/internal/openaiwire"
)

// embedDims is the length of the simulator's embeddings.
const embedDims = 16

// embed answers an embeddings request once the engine has prefilled its
// input (a sequence without output): a list of one embedding, with the
// input's usage. The drop, stall and malformed faults apply as to a
// non-streamed completion.
func (c *call) embed() {
	if _, ok := c.wait(); !ok {
		return
	}
	switch c.fault {
	case FaultKindDrop:
		c.s.countFault(c.fault)
		c.abort()
	case FaultKindStall:
		c.s.countFault(c.fault)
		if !c.pause(c.s.p.StallDuration) {
			return
		}
	case FaultKindMalformed:
		c.s.countFault(c.fault)
		c.w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(c.w, `{"object":"list","data":[{"embedding":[`)
		return
	}
	vec := make([]float64, embedDims)
	for i := range vec {
		vec[i] = float64(len(c.words.next())%7)/7 - 0.5
	}
	writeJSON(c.w, http.StatusOK, map[string]any{
		"id": c.id, "object": openaiwire.ObjectList, "created": c.created, "model": c.s.p.Model,
		"data":  []any{map[string]any{"object": openaiwire.ObjectEmbedding, "index": 0, "embedding": vec}},
		"usage": map[string]int{"prompt_tokens": c.req.promptTokens, "total_tokens": c.req.promptTokens},
	})
}

func init() { register(apis.Embeddings, embeddingsAPI{}) }

// embeddingsAPI is POST /v1/embeddings: input in, one embedding out, no
// stream and no output (the table's row does not stream).
type embeddingsAPI struct{}

func (embeddingsAPI) prompt(a *apiRequest) ([]int, *apiError) { return inputIDs(a.Input) }
func (embeddingsAPI) limits(*apiRequest) (*int, bool)         { return nil, false }
func (embeddingsAPI) idPrefix() string                        { return "embd-" }
func (embeddingsAPI) reasons() bool                           { return false }
func (embeddingsAPI) answer(c *call)                          { c.embed() }
