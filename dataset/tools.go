package dataset

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/tidwall/gjson"
)

// Tools are the tools a request offers the model (OpenAI's chat
// completions "tools", function schemas) and its "tool_choice", as a
// JSONL entry gives them: sent as they are to an API that takes tools.
type Tools struct {
	// Defs is the "tools" array, as written; Names its functions' names,
	// in order.
	Defs  json.RawMessage `json:"tools"`
	Names []string        `json:"names"`
	// Choice is "tool_choice" as written ("auto", "none", "required" or
	// {"type": "function", "function": {"name": ...}}); empty: not set.
	Choice json.RawMessage `json:"tool_choice,omitempty"`
}

// MaxToolsBytes bounds an entry's tools: schemas beyond it are a mistake
// (a whole API description pasted in), and every request would carry them.
const MaxToolsBytes = 256 << 10

// parseTools reads an entry's "tools" and "tool_choice" (either may be
// absent; a tool_choice without tools is refused).
func parseTools(tools, choice gjson.Result) (*Tools, error) {
	if !tools.Exists() {
		if choice.Exists() {
			return nil, errors.New("\"tool_choice\" without \"tools\": offer the tools it chooses from")
		}
		return nil, nil
	}
	if !tools.IsArray() {
		return nil, fmt.Errorf("\"tools\" is %s, not an array of function tools", kind(tools))
	}
	if len(tools.Raw) > MaxToolsBytes {
		return nil, fmt.Errorf("\"tools\" is %d KiB, over the %d KiB an entry may offer", len(tools.Raw)>>10, MaxToolsBytes>>10)
	}
	t := &Tools{Defs: json.RawMessage(tools.Raw)}
	var bad error
	tools.ForEach(func(_, v gjson.Result) bool {
		i := len(t.Names)
		name := v.Get("function.name")
		switch {
		case !v.IsObject():
			bad = fmt.Errorf("tools[%d] is %s, not an object", i, kind(v))
		case v.Get("type").Str != "function":
			bad = fmt.Errorf("tools[%d] has type %s; OpenAI's chat API takes \"function\" tools: {\"type\": \"function\", \"function\": {\"name\": ..., \"parameters\": {...}}}", i, v.Get("type").Raw)
		case name.Type != gjson.String || name.Str == "":
			bad = fmt.Errorf("tools[%d] has no function.name", i)
		case slices.Contains(t.Names, name.Str):
			bad = fmt.Errorf("tools[%d]: a second function named %q", i, name.Str)
		case v.Get("function.parameters").Exists() && !v.Get("function.parameters").IsObject():
			bad = fmt.Errorf("tools[%d] (%s): function.parameters is %s, not a JSON schema object", i, name.Str, kind(v.Get("function.parameters")))
		}
		if bad != nil {
			return false
		}
		t.Names = append(t.Names, name.Str)
		return true
	})
	if bad != nil {
		return nil, bad
	}
	if len(t.Names) == 0 {
		return nil, errors.New("\"tools\" is empty: remove it, or offer a function")
	}
	if choice.Exists() {
		switch {
		case choice.Type == gjson.String:
			if !slices.Contains([]string{"auto", "none", "required"}, choice.Str) {
				return nil, fmt.Errorf("\"tool_choice\" is %q; want \"auto\", \"none\", \"required\" or {\"type\": \"function\", \"function\": {\"name\": ...}}", choice.Str)
			}
		case choice.IsObject():
			if n := choice.Get("function.name").Str; !slices.Contains(t.Names, n) {
				return nil, fmt.Errorf("\"tool_choice\" names function %q, which \"tools\" does not offer", n)
			}
		default:
			return nil, fmt.Errorf("\"tool_choice\" is %s, not a string or an object", kind(choice))
		}
		t.Choice = json.RawMessage(choice.Raw)
	}
	return t, nil
}
