package dataset

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/llmload/llmload/tokenizer"
)

// readAgentTrace reads an agent trace's text as a multi-turn mooncake
// trace.
func readAgentTrace(text string, multi bool) ([]Request, Stats, error) {
	return readTrace(Trace{Path: "agent.jsonl", Format: FormatMooncake, MultiTurn: multi}, strings.NewReader(text), tokenizer.Approximate())
}

// TestAgentTrace: the rows of a session become its turns (each row the
// conversation so far), the recorded tool calls and results kept, delays
// as think times, the first row's timestamp as the session's arrival; a
// row without a session_id is a session of its own.
func TestAgentTrace(t *testing.T) {
	const trace = `{"session_id": "a", "timestamp": 100, "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "find it"}], "tools": [{"type": "function", "function": {"name": "grep"}}], "output_length": 20}
{"timestamp": 50, "text_input": "hello there", "output_length": 8}
{"session_id": "a", "delay": 250, "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "find it"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "grep", "arguments": "{\"q\": \"x\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "found x in y"}], "output_length": 30, "fan_out": [{"prompt": "check y"}, {"prompt": "check z", "context": "shared", "output_len": 9}]}
{"session_id": "a", "delay": 1500, "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "find it"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "grep", "arguments": "{\"q\": \"x\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "found x in y"}, {"role": "assistant", "content": "It is in y."}, {"role": "user", "content": "fix it"}], "output_length": 40}
`
	reqs, stats, err := readAgentTrace(trace, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 || stats.Read != 4 || stats.Examined != 2 {
		t.Fatalf("%d requests of %d rows (%d examined), want 2 sessions of 4 rows", len(reqs), stats.Read, stats.Examined)
	}
	if r := reqs[0]; r.At != 0 || r.Turns == nil || len(r.Turns) != 1 || r.Turns[0].Messages[0].Content != "hello there" || r.Turns[0].OutputLen != 8 {
		t.Errorf("the lone row: at %v, turns %+v", r.At, r.Turns)
	}
	a := reqs[1]
	if a.At != 50*time.Millisecond || a.Tools == nil || a.Tools.Names[0] != "grep" {
		t.Errorf("session a: at %v, tools %+v", a.At, a.Tools)
	}
	type turn struct {
		Roles      []string
		Reply      string
		Calls      []ToolCall
		Think      time.Duration
		OutputLen  int
		ToolCallID string
	}
	var got []turn
	for _, tr := range a.Turns {
		g := turn{Reply: tr.Reply, Calls: tr.ReplyCalls, Think: tr.Think, OutputLen: tr.OutputLen}
		for _, m := range tr.Messages {
			g.Roles = append(g.Roles, m.Role)
			if m.ToolCallID != "" {
				g.ToolCallID = m.ToolCallID
			}
		}
		got = append(got, g)
	}
	want := []turn{
		{Roles: []string{"system", "user"}, Calls: []ToolCall{{ID: "c1", Type: "function", Function: FunctionCall{Name: "grep", Arguments: `{"q": "x"}`}}}, OutputLen: 20},
		{Roles: []string{"tool"}, Reply: "It is in y.", Think: 250 * time.Millisecond, OutputLen: 30, ToolCallID: "c1"},
		{Roles: []string{"user"}, Think: 1500 * time.Millisecond, OutputLen: 40},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("session a's turns (-want +got):\n%s", diff)
	}
	// The second row's answer fans out to two sub-agents.
	if f := a.Turns[1].FanOut; len(f) != 2 || !f[0].Brief || f[0].OutputLen != 30 || !f[1].Shared || f[1].OutputLen != 9 || len(a.Turns[0].FanOut)+len(a.Turns[2].FanOut) != 0 {
		t.Errorf("fan-out steps: %+v", f)
	}
	if a.Turns[2].PromptLen <= a.Turns[1].PromptLen || a.Turns[1].PromptLen <= a.Turns[0].PromptLen {
		t.Errorf("prompt lengths %d, %d, %d do not grow with the history", a.Turns[0].PromptLen, a.Turns[1].PromptLen, a.Turns[2].PromptLen)
	}
}

// TestAgentTraceErrors: a bad agent trace is refused with its file and
// line, and a reason.
func TestAgentTraceErrors(t *testing.T) {
	const first = `{"session_id": "s", "timestamp": 0, "messages": [{"role": "user", "content": "q"}], "output_length": 5}` + "\n"
	for _, tt := range []struct {
		name, text string
		multi      bool
		line       int
		want       string
	}{
		{"delta mode", `{"timestamp": 0, "message_mode": "delta", "messages": [{"role": "user", "content": "q"}], "output_length": 5}`, true, 1, `only "history" is replayed`},
		{"timestamp and delay", `{"timestamp": 0, "delay": 5, "messages": [{"role": "user", "content": "q"}], "output_length": 5}`, true, 1, "not both"},
		// A row without messages is Mooncake's: it needs its lengths.
		{"no prompt", `{"session_id": "s", "timestamp": 0, "output_length": 5}`, true, 1, `"input_length" is missing`},
		{"hash ids with messages", `{"timestamp": 0, "messages": [{"role": "user", "content": "q"}], "hash_ids": [1], "output_length": 5}`, true, 1, "hash_ids"},
		{"tool without id", `{"timestamp": 0, "messages": [{"role": "user", "content": "q"}, {"role": "tool", "content": "r"}], "output_length": 5}`, true, 1, "tool_call_id"},
		{"call without name", `{"timestamp": 0, "messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "function": {}}]}, {"role": "tool", "tool_call_id": "c", "content": "r"}], "output_length": 5}`, true, 1, "function.name"},
		{"first row without timestamp", `{"session_id": "s", "delay": 10, "messages": [{"role": "user", "content": "q"}], "output_length": 5}`, true, 1, `no "timestamp"`},
		{"a later turn without multi_turn", first + `{"session_id": "s", "delay": 10, "messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}, {"role": "user", "content": "q2"}], "output_length": 5}`, false, 2, "set multi_turn = true"},
		{"a row that is not a request", first + `{"session_id": "s", "delay": 10, "messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}], "output_length": 5}` + "\n" +
			`{"session_id": "s", "delay": 10, "messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}, {"role": "user", "content": "q2"}, {"role": "assistant", "content": "b"}, {"role": "user", "content": "q3"}], "output_length": 5}`, true, 2, "does not end where a request"},
		{"not a growing conversation", first + `{"session_id": "s", "delay": 10, "messages": [{"role": "user", "content": "other"}, {"role": "assistant", "content": "a"}, {"role": "user", "content": "q2"}], "output_length": 5}`, true, 1, "not the beginning"},
		{"rows and turns differ", first + `{"session_id": "s", "delay": 10, "messages": [{"role": "user", "content": "q"}], "output_length": 5}`, true, 2, "hold 1 requests"},
		{"last row without output_length", `{"session_id": "s", "timestamp": 0, "messages": [{"role": "user", "content": "q"}]}`, true, 1, "output_length"},
		{"mixed rows", first + `{"timestamp": 5, "input_length": 10, "output_length": 5}`, true, 2, "input_length alone"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := readAgentTrace(tt.text, tt.multi)
			var de *Error
			if !errors.As(err, &de) || de.File != "agent.jsonl" || de.Line != tt.line || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v; want agent.jsonl line %d: ...%s...", err, tt.line, tt.want)
			}
		})
	}
}

// TestAgentTraceAIPerfRows: rows as AIPerf's own examples and SDK dumps
// write them: a later row with its own timestamp (kept as the turn's
// time), null members (absent), and without multi_turn every row a
// request at its timestamp; a Mooncake row with a session_id stays a
// Mooncake row.
func TestAgentTraceAIPerfRows(t *testing.T) {
	const trace = `{"session_id": "s", "timestamp": 100, "delay": null, "tools": null, "messages": [{"role": "user", "content": "q", "tool_calls": null}], "output_length": 5}
{"session_id": "s", "timestamp": 900, "messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a", "tool_calls": []}, {"role": "user", "content": "q2"}], "output_length": 5}
`
	reqs, _, err := readAgentTrace(trace, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 1 || len(reqs[0].Turns) != 2 || reqs[0].Tools != nil {
		t.Fatalf("requests %+v", reqs)
	}
	if tr := reqs[0].Turns[1]; !tr.AtSet || tr.At != 800*time.Millisecond || tr.Think != 0 {
		t.Errorf("the later row: at %v (set %v), think %v; want 800ms from the session's first", tr.At, tr.AtSet, tr.Think)
	}
	reqs, _, err = readAgentTrace(trace, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 || reqs[0].At != 0 || reqs[1].At != 800*time.Millisecond || len(reqs[1].Messages) != 3 || reqs[1].Turns != nil {
		t.Errorf("without multi_turn: %d requests at %v and %v", len(reqs), reqs[0].At, reqs[len(reqs)-1].At)
	}
	// A Mooncake row keeps its meaning with a session_id beside it.
	reqs, _, err = readAgentTrace(`{"session_id": "x", "timestamp": 0, "input_length": 12, "output_length": 3}`, false)
	if err != nil || len(reqs) != 1 || reqs[0].PromptLen != 12 {
		t.Errorf("a Mooncake row with a session_id: %v, %+v", err, reqs)
	}
}
