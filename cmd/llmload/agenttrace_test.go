package main

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmload/llmload/executor/executortest"
	"github.com/llmload/llmload/results"
)

// traceRow is a row of examples/data/agent_trace.jsonl, as the test reads
// it: what the server must see.
type traceRow struct {
	Session    string            `json:"session_id"`
	Timestamp  *float64          `json:"timestamp"`
	Delay      *float64          `json:"delay"`
	Messages   []json.RawMessage `json:"messages"`
	TextInput  string            `json:"text_input"`
	Tools      []json.RawMessage `json:"tools"`
	ToolChoice json.RawMessage   `json:"tool_choice"`
	OutputLen  int               `json:"output_length"`
}

// wireMessage is a chat message compared field by field (a recorded
// assistant message with tool calls and null content is sent with "").
type wireMessage struct {
	Role       string          `json:"role"`
	Content    string          `json:"content"`
	ToolCalls  json.RawMessage `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

func normalize(t *testing.T, raw []json.RawMessage) []wireMessage {
	t.Helper()
	out := make([]wireMessage, len(raw))
	for i, r := range raw {
		var m wireMessage
		if err := json.Unmarshal(r, &m); err != nil {
			t.Fatal(err)
		}
		if len(m.ToolCalls) > 0 {
			var v any
			_ = json.Unmarshal(m.ToolCalls, &v)
			m.ToolCalls, _ = json.Marshal(v) // one spelling of the same JSON
		}
		out[i] = m
	}
	return out
}

// TestAgentTraceReplay replays examples/agent-trace.hcl against a fake
// server and checks what it saw against the trace: every row one request
// with the row's messages exactly (tool calls, tool results), its tools
// and tool_choice, its output_length as max_tokens; each session's first
// request at its timestamp and each later one its delay after the
// previous answer ended.
func TestAgentTraceReplay(t *testing.T) {
	f, err := os.Open("../../examples/data/agent_trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []traceRow
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var r traceRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.TextInput != "" {
			r.Messages = []json.RawMessage{json.RawMessage(`{"role": "user", "content": ` + string(must(json.Marshal(r.TextInput))) + `}`)}
		}
		rows = append(rows, r)
	}

	srv := executortest.New(executortest.Config{Tokens: 4})
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "trace.json")
	code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, "-var", "base_url="+srv.URL, "../../examples/agent-trace.hcl")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}

	// What the server saw, by request id (the preflight probe's too).
	seen := map[string]map[string]any{}
	for _, r := range srv.Received() {
		if strings.HasSuffix(r.Path, "/chat/completions") {
			seen[r.Header.Get("X-Request-Id")] = r.Body
		}
	}
	// The requests file: each request's session, turn and times.
	data, err := os.ReadFile(strings.TrimSuffix(out, ".json") + ".requests.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	type sent struct {
		line       results.RequestLine
		body       map[string]any
		intended   float64
		end        float64
		sessionKey string
	}
	bySession := map[int64][]sent{}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != len(rows) {
		t.Fatalf("%d requests sent, the trace has %d rows", len(lines), len(rows))
	}
	for _, raw := range lines {
		var l results.RequestLine
		var times struct {
			Intended float64 `json:"intended_ms"`
			End      float64 `json:"end_ms"`
		}
		if err := json.Unmarshal([]byte(raw), &l); err != nil {
			t.Fatal(err)
		}
		_ = json.Unmarshal([]byte(raw), &times)
		if l.Session == nil || seen[l.RequestID] == nil {
			t.Fatalf("request %s: session %v, seen by the server: %v", l.RequestID, l.Session, seen[l.RequestID] != nil)
		}
		bySession[*l.Session] = append(bySession[*l.Session], sent{line: l, body: seen[l.RequestID], intended: times.Intended, end: times.End})
	}
	// The trace's sessions, rows in order.
	trace := map[string][]traceRow{}
	var order []string
	for _, r := range rows {
		if trace[r.Session] == nil {
			order = append(order, r.Session)
		}
		trace[r.Session] = append(trace[r.Session], r)
	}
	if len(bySession) != len(trace) {
		t.Fatalf("%d sessions replayed, the trace has %d", len(bySession), len(trace))
	}
	matched := map[string]bool{}
	for _, reqs := range bySession {
		slices.SortFunc(reqs, func(a, b sent) int { return a.line.Turn - b.line.Turn })
		// The session is the one whose first row's messages it sent.
		var name string
		for _, id := range order {
			if cmp.Equal(normalize(t, trace[id][0].Messages), normalize(t, rawMessages(t, reqs[0].body))) {
				name = id
			}
		}
		if name == "" || matched[name] {
			t.Fatalf("a session's first request matches no trace session (or one twice): %v", reqs[0].body["messages"])
		}
		matched[name] = true
		want := trace[name]
		if len(reqs) != len(want) {
			t.Errorf("session %s: %d requests, %d rows", name, len(reqs), len(want))
			continue
		}
		for k, r := range want {
			got := reqs[k]
			if diff := cmp.Diff(normalize(t, r.Messages), normalize(t, rawMessages(t, got.body))); diff != "" {
				t.Errorf("session %s row %d: messages (-trace +sent):\n%s", name, k+1, diff)
			}
			if mt, _ := got.body["max_tokens"].(float64); int(mt) != r.OutputLen {
				t.Errorf("session %s row %d: max_tokens %v, output_length %d", name, k+1, got.body["max_tokens"], r.OutputLen)
			}
			var names []string
			for _, tool := range r.Tools {
				var v struct{ Function struct{ Name string } }
				_ = json.Unmarshal(tool, &v)
				names = append(names, v.Function.Name)
			}
			var sentNames []string
			tools, _ := got.body["tools"].([]any)
			for _, tool := range tools {
				sentNames = append(sentNames, tool.(map[string]any)["function"].(map[string]any)["name"].(string))
			}
			if !slices.Equal(names, sentNames) {
				t.Errorf("session %s row %d: tools offered %v, the trace's %v", name, k+1, sentNames, names)
			}
			// Each row's own tool_choice, or none.
			var choice any
			if len(r.ToolChoice) > 0 {
				_ = json.Unmarshal(r.ToolChoice, &choice)
			}
			if !cmp.Equal(choice, got.body["tool_choice"]) {
				t.Errorf("session %s row %d: tool_choice %v, the trace's %v", name, k+1, got.body["tool_choice"], choice)
			}
			// Timing: the first request at the session's timestamp (speed
			// 1, the trace's first timestamp 0), a later one its delay
			// after the previous answer ended: the schedule's intended
			// times, exact whatever the machine's speed.
			wantAt := 0.0
			if k == 0 {
				wantAt = *r.Timestamp
			} else {
				wantAt = reqs[k-1].end + *r.Delay
			}
			if math.Abs(got.intended-wantAt) > 0.01 {
				t.Errorf("session %s row %d: intended at %.3f ms, want %.3f ms", name, k+1, got.intended, wantAt)
			}
		}
	}
	res, err := results.ReadResult(out)
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Summary; s.Sessions != 4 || s.SessionsComplete != 4 || len(s.Turns) != 4 {
		t.Errorf("summary: %d sessions (%d whole), %d turn indexes", s.Sessions, s.SessionsComplete, len(s.Turns))
	}
}

func rawMessages(t *testing.T, body map[string]any) []json.RawMessage {
	t.Helper()
	msgs, _ := body["messages"].([]any)
	out := make([]json.RawMessage, len(msgs))
	for i, m := range msgs {
		out[i] = must(json.Marshal(m))
	}
	return out
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
