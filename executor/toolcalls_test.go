package executor

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/metrics"
)

// TestToolCallStream: the chat API's streamed tool calls are gathered from
// their fragments by index (two calls interleaved, as parallel tool calls
// stream), timed as their own phase, and judged once the stream ends: a
// call without a name or with arguments that are not a JSON object is an
// output defect; the answer's text stays the text alone.
func TestToolCallStream(t *testing.T) {
	weather := []string{
		`{"choices":[{"delta":{"role":"assistant","content":""}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"call_2","type":"function","function":{"name":"get_time"}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\": "}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{}"}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]}}]}`,
		`{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}`,
	}
	for _, tt := range []struct {
		name   string
		events []string
		want   []metrics.ToolCall
		bad    bool
		// text: events carrying answer text; calls: events carrying a
		// tool call.
		text, calls int
	}{
		{"two calls interleaved", weather, []metrics.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"city": "Paris"}`}, {ID: "call_2", Name: "get_time", Arguments: "{}"}}, false, 0, 5},
		{"text then a call", []string{
			`{"choices":[{"delta":{"content":"Let me look."}}]}`,
			`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"search","arguments":"{\"q\":\"x\"}"}}]}}]}`,
		}, []metrics.ToolCall{{ID: "c", Name: "search", Arguments: `{"q":"x"}`}}, false, 1, 1},
		{"arguments cut off", []string{
			`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"search","arguments":"{\"q\": \"x"}}]}}]}`,
		}, []metrics.ToolCall{{ID: "c", Name: "search", Arguments: `{"q": "x`}}, true, 0, 1},
		{"arguments not an object", []string{
			`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"search","arguments":"[1, 2]"}}]}}]}`,
		}, []metrics.ToolCall{{ID: "c", Name: "search", Arguments: `[1, 2]`}}, true, 0, 1},
		{"no name", []string{
			`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}]}`,
		}, []metrics.ToolCall{{Arguments: `{}`}}, true, 0, 1},
		{"no arguments", []string{
			`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"now"}}]}}]}`,
		}, []metrics.ToolCall{{ID: "c", Name: "now"}}, false, 0, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var (
				c     chunk
				tools toolCalls
				res   metrics.Request
				text  []byte
				ph    streamPhases
				out   outputFacts
			)
			c.hash = fnvOffset
			for _, ev := range tt.events {
				if err := (chat{}).Parse(nil, []byte(ev), &c, true); err != nil {
					t.Fatal(err)
				}
				if c.output {
					res.OutputEvents++
					tools.add(c.tools)
					text = append(text, c.text...)
					out.event(&c)
					ph.add(&res, &c, zeroTime, zeroTime)
				}
			}
			tools.note(&res)
			out.note(&res)
			if diff := cmp.Diff(tt.want, tools.all()); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if res.ToolCalls != len(tt.want) || res.BadToolCall != tt.bad {
				t.Errorf("tool calls %d, bad %v; want %d, %v", res.ToolCalls, res.BadToolCall, len(tt.want), tt.bad)
			}
			if res.ToolCallEvents != tt.calls || res.AnswerEvents != tt.text {
				t.Errorf("tool-call events %d, answer events %d; want %d, %d", res.ToolCallEvents, res.AnswerEvents, tt.calls, tt.text)
			}
			if res.Blank {
				t.Error("an answer of tool calls counted blank")
			}
			if tt.text == 0 && len(text) != 0 {
				t.Errorf("tool-call arguments in the answer's text: %q", text)
			}
		})
	}
}

var zeroTime time.Time

// TestToolCallBounds: a server streaming more calls, or longer arguments,
// than the bounds keeps the client's memory bounded and the answer is
// counted bad.
func TestToolCallBounds(t *testing.T) {
	var tools toolCalls
	for i := range maxToolCalls + 10 {
		tools.add([]toolDelta{{index: i, name: "f", args: "{}"}})
	}
	big := make([]byte, 64<<10)
	for i := range big {
		big[i] = 'a'
	}
	for range 2 * maxToolArgBytes / len(big) {
		tools.add([]toolDelta{{index: 0, args: string(big)}})
	}
	var res metrics.Request
	tools.note(&res)
	if len(tools.calls) != maxToolCalls || !res.BadToolCall {
		t.Errorf("%d calls kept, bad %v; want %d, bad", len(tools.calls), res.BadToolCall, maxToolCalls)
	}
	if n := len(tools.all()[0].Arguments); n > maxToolArgBytes {
		t.Errorf("%d bytes of arguments kept, over the bound %d", n, maxToolArgBytes)
	}
}

// FuzzToolCallDeltas: any payload parses without a panic, and whatever
// fragments it holds, the gathered calls stay within their bounds.
func FuzzToolCallDeltas(f *testing.F) {
	f.Add(`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{\"a\":1}"}}]}}]}`)
	f.Add(`{"choices":[{"delta":{"tool_calls":[{"index":-1,"function":{"name":7}},{"index":1e30}]}}]}`)
	f.Add(`{"choices":[{"delta":{"tool_calls":{"index":0}}}]}`)
	f.Fuzz(func(t *testing.T, payload string) {
		var (
			c     chunk
			tools toolCalls
			res   metrics.Request
		)
		for range 3 {
			if (chat{}).Parse(nil, []byte(payload), &c, false) != nil {
				return
			}
			tools.add(c.tools)
		}
		tools.note(&res)
		if len(tools.calls) > maxToolCalls || res.ToolCalls != len(tools.calls) {
			t.Fatalf("%d calls gathered, %d counted", len(tools.calls), res.ToolCalls)
		}
		for _, call := range tools.all() {
			if len(call.Arguments) > maxToolArgBytes {
				t.Fatalf("%d bytes of arguments", len(call.Arguments))
			}
			if validToolCall(call) && call.Name == "" {
				t.Fatal("a call without a name judged valid")
			}
		}
	})
}

// TestToolCallsOverTheWire: the chat body offers the request's tools and
// tool_choice as the dataset wrote them, and a server whose streamed call
// has arguments that never close is a completed request with an output
// defect, its call counted and timed apart from the text.
func TestToolCallsOverTheWire(t *testing.T) {
	bodies := make(chan map[string]json.RawMessage, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]json.RawMessage
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			t.Error(err)
		}
		bodies <- body
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range []string{
			`{"choices":[{"delta":{"content":"Checking."}}]}`,
			`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"search","arguments":"{\"q\": "}}]}}]}`,
			`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"trains"}}]}}]}`,
			`{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}`,
			`[DONE]`,
		} {
			fmt.Fprintf(w, "data: %s\n\n", ev)
		}
	}))
	defer srv.Close()
	tools := &dataset.Tools{Defs: json.RawMessage(`[{"type":"function","function":{"name":"search"}}]`), Names: []string{"search"}, Choice: json.RawMessage(`"required"`)}
	res := sendOne(t, Target{BaseURL: srv.URL, API: APIChat}, dataset.Request{Prompt: "trains", OutputLen: 8, Tools: tools}, nil)
	body := <-bodies
	if string(body["tools"]) != string(tools.Defs) || string(body["tool_choice"]) != `"required"` {
		t.Errorf("sent tools %s, tool_choice %s", body["tools"], body["tool_choice"])
	}
	if !res.OK() || res.ToolCalls != 1 || !res.BadToolCall || res.ToolCallEvents != 2 || res.AnswerEvents != 1 {
		t.Errorf("error %q, calls %d, bad %v, tool-call events %d, answer events %d", res.Error, res.ToolCalls, res.BadToolCall, res.ToolCallEvents, res.AnswerEvents)
	}
	if res.TTFTToolCall < res.TTFTAnswer || res.TTFTToolCall <= 0 {
		t.Errorf("first tool-call token at %v, first answer token at %v: the call came after the text", res.TTFTToolCall, res.TTFTAnswer)
	}
}
