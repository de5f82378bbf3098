package sim

import (
	"net/http"

	"github.com/llmload/llmload/internal/apis"
)

// frontend is one API the simulator serves: how a request body's prompt
// and output cap read and how the answer is written, over the engine every
// API shares. Each is one file, api_<name>.go, registered under its name
// in the API table (internal/apis), which gives its endpoint and whether
// it generates output (an API that does not stream, as embeddings, is one
// prefill and no output).
type frontend interface {
	// prompt tokenizes the body's prompt: its prompt, messages or input.
	prompt(a *apiRequest) ([]int, *apiError)
	// limits returns the output cap the body asks for (nil when it asks
	// none) and whether a stream of it carries the usage.
	limits(a *apiRequest) (asked *int, usage bool)
	// idPrefix begins the ids of its answers ("chatcmpl-").
	idPrefix() string
	// reasons says whether the API streams reasoning apart from the
	// answer, so that Profile.ReasoningTokens applies to it.
	reasons() bool
	// answer writes the answer of c: a stream when c.req.stream asks for
	// one and the API streams.
	answer(c *call)
}

// headerChecker is a front end whose API requires headers of its own
// (Messages: anthropic-version), checked before the body is read.
type headerChecker interface {
	checkHeader(h http.Header) *apiError
}

// errorWriter is a front end whose API writes its errors in a shape of
// its own (Messages: {"type": "error", "error": {"type", "message"}});
// the others write OpenAI's (writeError).
type errorWriter interface {
	writeError(w http.ResponseWriter, e *apiError)
}

// toolChooser is a front end whose API offers the model tools: from the
// body's tools and tool choice it picks the function the answer calls
// ("" for a text answer; tools.go).
type toolChooser interface {
	tool(a *apiRequest, ids []int, p *Profile) (string, *apiError)
}

// api is an API the simulator serves: its row of the API table.
type api int

// rows is the API table, in its order; an api indexes it.
var rows = apis.All()

// frontends are the APIs' front ends by name: each api_<name>.go
// registers its own.
var frontends = map[string]frontend{}

// register adds f as the front end of the API table's row named name; it
// panics for a name the table does not have, or registered twice (both
// mistakes of this package, caught by any test).
func register(name string, f frontend) {
	if _, ok := apis.Lookup(name); !ok {
		panic("sim: front end for " + name + ", which is not in internal/apis")
	}
	if _, dup := frontends[name]; dup {
		panic("sim: two front ends for " + name)
	}
	frontends[name] = f
}

// row is k's row of the API table.
func (k api) row() apis.API { return rows[k] }

// frontend is k's front end (nil when no file registers one, which the
// tests refuse).
func (k api) frontend() frontend { return frontends[rows[k].Name] }

// writeError answers e in k's shape: its front end's own (errorWriter),
// else OpenAI's.
func (k api) writeError(w http.ResponseWriter, e *apiError) {
	if ew, ok := k.frontend().(errorWriter); ok {
		ew.writeError(w, e)
		return
	}
	writeError(w, e)
}
