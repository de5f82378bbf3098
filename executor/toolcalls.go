package executor

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/llmload/llmload/metrics"
)

// Tool calls, as OpenAI's chat API streams them: delta.tool_calls, a list
// of fragments, each naming the call it belongs to by index; the first
// fragment of a call carries its id and function name, the later ones
// pieces of its arguments (a JSON object, as text). They are timed as a
// phase of their own (metrics.Request.TTFTToolCall) and checked once the
// stream ends: a call without a name, or whose arguments are not a JSON
// object, is an output defect (bad_tool_call).

// toolDelta is one fragment of a tool call; its strings are copies.
type toolDelta struct {
	index    int
	id, name string
	args     string
}

// Bounds on what a stream's tool calls may hold: beyond them the calls are
// not kept whole (and are counted bad), so that a server streaming
// arguments without end cannot grow the client's memory.
const (
	maxToolCalls    = 64
	maxToolArgBytes = 1 << 20
)

// toolCallDeltas reads delta.tool_calls into c: each fragment with a
// name, an id or arguments is output of the tool-call phase.
func (c *chunk) toolCallDeltas(v gjson.Result, _ bool) {
	if !v.IsArray() {
		return
	}
	pos := 0
	v.ForEach(func(_, d gjson.Result) bool {
		td := toolDelta{index: pos}
		pos++
		if i := d.Get("index"); i.Type == gjson.Number {
			td.index = int(i.Int())
		}
		fn := d.Get("function")
		if n := fn.Get("name"); n.Type == gjson.String {
			td.name = strings.Clone(n.Str)
		}
		if id := d.Get("id"); id.Type == gjson.String {
			td.id = strings.Clone(id.Str)
		}
		if a := fn.Get("arguments"); a.Type == gjson.String {
			td.args = strings.Clone(a.Str)
		}
		if td.name == "" && td.args == "" && td.id == "" {
			return true
		}
		c.output, c.toolCall = true, true
		for _, s := range []string{td.name, td.args} {
			c.toolText(s)
		}
		c.tools = append(c.tools, td)
		return true
	})
}

// toolText notes a tool call's generated string: it counts as output (its
// bytes, the stream's hash) but not as the answer's text.
func (c *chunk) toolText(s string) {
	if s == "" {
		return
	}
	c.textBytes += len(s)
	c.hash = fnvAdd(c.hash, s)
	c.evHash = fnvAdd(c.evHash, s)
	if !utf8.ValidString(s) || strings.ContainsRune(s, utf8.RuneError) {
		c.badText = true
	}
	if !c.nonSpace && strings.TrimSpace(s) != "" {
		c.nonSpace = true
	}
}

// toolCalls gathers a stream's tool calls from their fragments.
type toolCalls struct {
	calls []toolCallState
	// over: more calls, or longer arguments, than the bounds allow.
	over bool
}

type toolCallState struct {
	index int
	metrics.ToolCall
	args []byte
}

// add takes an event's fragments.
func (t *toolCalls) add(ds []toolDelta) {
	for _, d := range ds {
		var s *toolCallState
		for i := range t.calls {
			if t.calls[i].index == d.index {
				s = &t.calls[i]
				break
			}
		}
		if s == nil {
			if len(t.calls) >= maxToolCalls {
				t.over = true
				continue
			}
			t.calls = append(t.calls, toolCallState{index: d.index})
			s = &t.calls[len(t.calls)-1]
		}
		if d.id != "" && s.ID == "" {
			s.ID = d.id
		}
		if d.name != "" {
			s.Name += d.name
		}
		if len(s.args)+len(d.args) > maxToolArgBytes {
			t.over = true
			continue
		}
		s.args = append(s.args, d.args...)
	}
}

// note sets the request's tool-call count and whether any was malformed.
func (t *toolCalls) note(res *metrics.Request) {
	res.ToolCalls = len(t.calls)
	res.BadToolCall = t.over
	for _, c := range t.all() {
		if !validToolCall(c) {
			res.BadToolCall = true
		}
	}
}

// all returns the calls, whole, in the order they began.
func (t *toolCalls) all() []metrics.ToolCall {
	out := make([]metrics.ToolCall, len(t.calls))
	for i := range t.calls {
		out[i] = t.calls[i].ToolCall
		out[i].Arguments = string(t.calls[i].args)
	}
	return out
}

// validToolCall: a call names its function, and its arguments are a JSON
// object (none at all, for a function without parameters, too).
func validToolCall(c metrics.ToolCall) bool {
	if strings.TrimSpace(c.Name) == "" {
		return false
	}
	a := strings.TrimSpace(c.Arguments)
	if a == "" {
		return true
	}
	return a[0] == '{' && json.Valid([]byte(a))
}
