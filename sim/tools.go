package sim

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"strconv"
)

// Tool calls: a chat request that offers tools (OpenAI "tools", function
// schemas) may be answered with a call to one instead of text, as a model
// served with a tool parser is (vLLM --enable-auto-tool-choice). The call
// streams as delta.tool_calls: its id and function name first, then its
// arguments, a JSON object {"query": "<words>"}, a fragment per event,
// and the stream ends with finish_reason "tool_calls". Its tokens are the
// answer's tokens, timed by the engine as any.

// chooseTool validates a body's tools and tool_choice and picks the
// function the answer calls ("" for text): a named function or "required"
// always calls (the first tool, for required); "none" never; otherwise a
// share (Profile.ToolCallShare) of prompts call, chosen by the prompt's
// hash, except when the last message is a tool's result.
func chooseTool(a *apiRequest, ids []int, p *Profile) (string, *apiError) {
	var tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal(a.Tools, &tools); err != nil {
		return "", badRequest("tools", "tools must be a list of function tools: %v", err)
	}
	if len(tools) == 0 {
		return "", nil
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		if t.Type != "function" || t.Function.Name == "" {
			return "", badRequest("tools", "tools[%d] must be {\"type\": \"function\", \"function\": {\"name\": ...}}", i)
		}
		names[i] = t.Function.Name
	}
	choice := bytes.TrimSpace(a.ToolChoice)
	var named struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	mode := ""
	switch {
	case len(choice) == 0 || string(choice) == `"auto"`:
		mode = toolAuto
	case string(choice) == `"none"`:
		mode = toolNone
	case string(choice) == `"required"`:
		mode = toolRequired
	case json.Unmarshal(choice, &named) == nil && named.Function.Name != "":
		mode = named.Function.Name
	default:
		return "", badRequest("tool_choice", "tool_choice must be \"auto\", \"none\", \"required\" or a named function")
	}
	answered := false
	if n := len(a.Messages); n > 0 && a.Messages[n-1].Role == "tool" {
		answered = true
	}
	return decideTool(names, mode, answered, ids, p)
}

// What a request's tool choice asks of the model (decideTool): any other
// mode names the function it must call.
const (
	toolAuto     = "\x00auto"     // the model chooses
	toolNone     = "\x00none"     // never call
	toolRequired = "\x00required" // call a function, any
)

// decideTool picks the function an answer calls among names ("" for
// text), as mode asks: a named function or required always calls (the
// function picked by the prompt's hash, for required); none never; auto
// calls for a share (Profile.ToolCallShare) of prompts, chosen by the
// prompt's hash, unless answered (the last message is a tool's result,
// which the model answers in text).
func decideTool(names []string, mode string, answered bool, ids []int, p *Profile) (string, *apiError) {
	h := fnv.New64a()
	for _, id := range ids {
		h.Write(strconv.AppendInt(nil, int64(id), 10))
	}
	pick := names[h.Sum64()%uint64(len(names))]
	switch mode {
	case toolAuto:
	case toolNone:
		return "", nil
	case toolRequired:
		return pick, nil
	default:
		for _, n := range names {
			if n == mode {
				return n, nil
			}
		}
		return "", badRequest("tool_choice", "tool_choice names %q, which is not among the tools", mode)
	}
	if answered {
		return "", nil
	}
	// The share of prompts that call: the hash's high bits, apart from
	// the low ones that picked the function.
	if float64(h.Sum64()>>11)/(1<<53) >= p.ToolCallShare {
		return "", nil
	}
	return pick, nil
}

// appendToolCalls appends the delta's tool_calls for an event carrying n
// of the call's tokens, the first of which is the call's token from: the
// first event names the call and opens its arguments; the last closes
// them.
func (c *call) appendToolCalls(buf []byte, from, n int, last bool) []byte {
	buf = append(buf, `"tool_calls":[{"index":0,`...)
	if from == 0 {
		buf = append(buf, `"id":"call_`...)
		buf = append(buf, c.id...)
		buf = append(buf, `","type":"function","function":{"name":`...)
		name, _ := json.Marshal(c.req.tool)
		buf = append(buf, name...)
		buf = append(buf, `,"arguments":"{\"query\": \"`...)
	} else {
		buf = append(buf, `"function":{"arguments":"`...)
	}
	for range n {
		buf = append(buf, c.words.next()...)
	}
	if last {
		buf = append(buf, `\"}`...)
	}
	return append(buf, `"}}]`...)
}

// toolArguments is a whole answer's call arguments.
func toolArguments(words string) string {
	b, _ := json.Marshal(map[string]string{"query": words})
	return string(b)
}
