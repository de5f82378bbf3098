package executor

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/internal/apis"
)

// protocol is how one server API's requests are written and its answers
// read. Each API is one type in its own file (protocol_<api>.go) that
// registers itself under its name in the API table (internal/apis), which
// gives its endpoint and whether it streams; the client and the run never
// look at API names.
type protocol interface {
	// Body is the JSON body asking for a stream of r's output, with the
	// fields vLLM's benchmark client sends for the same API. prepare adds
	// what every API shares: ignore_eos, then Target.ExtraBody over all
	// (where a nil value removes the field).
	Body(t Target, r dataset.Request) map[string]any
	// Parse reads one SSE event into c, which it resets first: its name
	// (the "event:" field, empty for the default; APIs that name their
	// events, as the Responses API does, read it) and its data payload. It
	// appends the generated text to c.text only when keepText is set. An
	// error means the payload is not what the API sends (a malformed
	// event); a payload that ends the stream sets c.done. For an API that
	// does not stream, data is the whole JSON body and event is empty.
	Parse(event, data []byte, c *chunk, keepText bool) error
}

// ownHeaders is a protocol whose API is not OpenAI's in its headers
// either: it takes the API key in a header of its own rather than as
// "Authorization: Bearer <key>", and may name more headers that every
// request carries (a version). The target's headers override both.
type ownHeaders interface {
	// setKey sets the header carrying key.
	setKey(h http.Header, key string)
	// setHeaders sets the headers every request carries.
	setHeaders(h http.Header)
}

// wire is an API as the client speaks it: its row of the table (Path;
// Streaming: an API that does not stream, as embeddings, answers one JSON
// body, read whole and parsed once, and the request has a latency (E2EL)
// but no first token, no gaps and no output tokens) and its protocol.
type wire struct {
	apis.API
	protocol
}

// setKey sets the header that carries the API key: the protocol's own
// (ownHeaders), else "Authorization: Bearer <key>".
func (w wire) setKey(h http.Header, key string) {
	if o, ok := w.protocol.(ownHeaders); ok {
		o.setKey(h, key)
		return
	}
	h.Set("Authorization", "Bearer "+key)
}

// setHeaders sets the headers of the API's own that every request
// carries (ownHeaders); none for the OpenAI APIs.
func (w wire) setHeaders(h http.Header) {
	if o, ok := w.protocol.(ownHeaders); ok {
		o.setHeaders(h)
	}
}

// protocols are the APIs a Target can speak, by the name Target.API gives:
// each protocol_<api>.go registers its own.
var protocols = map[string]wire{}

// register adds p as the protocol of the API table's row named name; it
// panics for a name the table does not have, or registered twice (both
// mistakes of this package, caught by any test).
func register(name string, p protocol) {
	a, ok := apis.Lookup(name)
	if !ok {
		panic("executor: protocol for " + name + ", which is not in internal/apis")
	}
	if _, dup := protocols[name]; dup {
		panic("executor: two protocols for " + name)
	}
	protocols[name] = wire{API: a, protocol: p}
}

// APIs returns the names Target.API accepts, sorted ("" also means
// APICompletions).
func APIs() []string { return slices.Sorted(maps.Keys(protocols)) }

// protocolFor returns the API named api; "" is APICompletions.
func protocolFor(api string) (wire, error) {
	if api == "" {
		api = APICompletions
	}
	if p, ok := protocols[api]; ok {
		return p, nil
	}
	return wire{}, fmt.Errorf("target api %q: want %s", api, oneOf(APIs()))
}

// oneOf renders quoted names as `"a"`, `"a" or "b"`, `"a", "b" or "c"`.
func oneOf(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// openAIStream is the part of a body that OpenAI-style streaming APIs
// share: the model, a stream whose last chunk carries the usage, and
// greedy sampling (temperature 0.0), as vLLM's benchmark sends by default
// so that output lengths do not depend on sampling (docs/executor.md).
func openAIStream(t Target) map[string]any {
	return map[string]any{
		"model":          t.Model,
		"stream":         true,
		"stream_options": map[string]any{"include_usage": true},
		"temperature":    pyFloat("0.0"),
	}
}

// pyFloat is a float written as Python's json.dumps writes it ("0.0",
// "1.0"), so that bodies read the same as vLLM's byte for byte in those
// fields; a JSON number all the same.
func pyFloat(s string) json.Number { return json.Number(s) }
