package executor

import (
	"fmt"
	"unsafe"

	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/internal/apis"
	"github.com/llmload/llmload/internal/openaiwire"
	"github.com/tidwall/gjson"
)

// APIEmbeddings is the OpenAI embeddings API (POST /v1/embeddings): one
// JSON answer, not a stream. A request has a latency (E2EL), input tokens
// and throughput, but no first token, no gaps and no output tokens.
const APIEmbeddings = apis.Embeddings

func init() { register(APIEmbeddings, embeddings{}) }

// embeddings is the protocol of APIEmbeddings.
type embeddings struct{}

// Body embeds the request's prompt (a conversation's flattened text) as
// floats. The output length of the dataset has no meaning here.
func (embeddings) Body(t Target, r dataset.Request) map[string]any {
	return map[string]any{
		"model":           t.Model,
		"input":           r.Prompt,
		"encoding_format": "float",
	}
}

// Parse reads the whole answer: a list whose data holds an embedding, with
// usage.prompt_tokens; or an error object. An answer without an embedding
// is malformed.
func (embeddings) Parse(_, data []byte, c *chunk, _ bool) error {
	*c = chunk{text: c.text[:0], hash: c.hash, done: true}
	s := unsafe.String(unsafe.SliceData(data), len(data))
	if !gjson.Valid(s) {
		return fmt.Errorf("invalid JSON: %s", excerpt(data))
	}
	root := gjson.Parse(s)
	if !root.IsObject() {
		return errNotObject
	}
	if e := root.Get("error"); e.Exists() && e.Type != gjson.Null {
		c.errMsg = errorMessage(e)
		return nil
	}
	if root.Get("object").Str == openaiwire.ObjectError {
		c.errMsg = errorMessage(root)
		return nil
	}
	if u := root.Get("usage"); u.IsObject() {
		c.hasUsage = true
		c.promptTokens = int(u.Get("prompt_tokens").Int())
	}
	if !root.Get("data.0.embedding").IsArray() {
		return fmt.Errorf("no embedding in the answer: %s", excerpt(data))
	}
	return nil
}
