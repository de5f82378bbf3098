package sim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// toolStream is what a chat stream's tool calls held, gathered from its
// fragments as a client does.
type toolStream struct {
	names, ids []string
	args       string
	finish     string
	text       string
}

func gatherTools(t *testing.T, res streamResult) toolStream {
	t.Helper()
	var ts toolStream
	for _, p := range res.payloads {
		if p == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct {
					Content   string `json:"content"`
					ToolCalls []struct {
						Index    int    `json:"index"`
						ID       string `json:"id"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(p), &c); err != nil {
			t.Fatalf("payload %s: %v", p, err)
		}
		for _, ch := range c.Choices {
			ts.text += ch.Delta.Content
			for _, tc := range ch.Delta.ToolCalls {
				if tc.Index != 0 {
					t.Errorf("a call at index %d", tc.Index)
				}
				if tc.Function.Name != "" {
					ts.names = append(ts.names, tc.Function.Name)
				}
				if tc.ID != "" {
					ts.ids = append(ts.ids, tc.ID)
				}
				ts.args += tc.Function.Arguments
			}
			if ch.FinishReason != nil {
				ts.finish = *ch.FinishReason
			}
		}
	}
	return ts
}

// TestToolCalls: offered tools, the simulator answers a share of prompts
// with a call, streamed as OpenAI's chat API streams one (the id and name
// first, the arguments in fragments that join into a JSON object, finish
// reason tool_calls), whose tokens are the answer's; tool_choice decides
// as the API says; a tool's result is answered in text; bad tools are
// refused as vLLM refuses them.
func TestToolCalls(t *testing.T) {
	r := startTiny(t, nil)
	tools := []any{
		map[string]any{"type": "function", "function": map[string]any{"name": "search", "parameters": map[string]any{"type": "object"}}},
		map[string]any{"type": "function", "function": map[string]any{"name": "get_weather"}},
	}
	body := func(prompt string, choice any, msgs ...any) map[string]any {
		if msgs == nil {
			msgs = []any{map[string]any{"role": "user", "content": prompt}}
		}
		b := map[string]any{"messages": msgs, "max_tokens": 12, "ignore_eos": true, "stream": true,
			"stream_options": map[string]any{"include_usage": true}, "tools": tools}
		if choice != nil {
			b["tool_choice"] = choice
		}
		return b
	}
	t.Run("required", func(t *testing.T) {
		res := post(t, r.URL+"/v1/chat/completions", body("find the nearest station", "required"))
		if res.status != http.StatusOK {
			t.Fatalf("status %d: %s", res.status, res.body)
		}
		ts := gatherTools(t, res)
		var args map[string]string
		if err := json.Unmarshal([]byte(ts.args), &args); err != nil {
			t.Fatalf("arguments %q: %v", ts.args, err)
		}
		if len(ts.names) != 1 || !slices.Contains([]string{"search", "get_weather"}, ts.names[0]) || len(ts.ids) != 1 || ts.finish != "tool_calls" || ts.text != "" {
			t.Errorf("names %v, ids %v, finish %q, text %q", ts.names, ts.ids, ts.finish, ts.text)
		}
		last := res.chunks[len(res.chunks)-1]
		if last.Usage == nil || len(strings.Fields(args["query"])) != last.Usage.CompletionTokens || last.Usage.CompletionTokens != 12 {
			t.Errorf("the call's %d words against usage %+v", len(strings.Fields(args["query"])), last.Usage)
		}
	})
	t.Run("named", func(t *testing.T) {
		ts := gatherTools(t, post(t, r.URL+"/v1/chat/completions", body("what is it like outside", map[string]any{"type": "function", "function": map[string]any{"name": "get_weather"}})))
		if !slices.Equal(ts.names, []string{"get_weather"}) {
			t.Errorf("names %v, want get_weather", ts.names)
		}
	})
	t.Run("none", func(t *testing.T) {
		ts := gatherTools(t, post(t, r.URL+"/v1/chat/completions", body("hello there", "none")))
		if len(ts.names) != 0 || ts.text == "" || ts.finish != "length" {
			t.Errorf("tool_choice none: names %v, text %q, finish %q", ts.names, ts.text, ts.finish)
		}
	})
	t.Run("a tool's result is answered", func(t *testing.T) {
		msgs := []any{
			map[string]any{"role": "user", "content": "weather in Paris"},
			map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": "get_weather", "arguments": `{"city": "Paris"}`}}}},
			map[string]any{"role": "tool", "tool_call_id": "call_1", "content": "sunny, 21 C"},
		}
		ts := gatherTools(t, post(t, r.URL+"/v1/chat/completions", body("", nil, msgs...)))
		if len(ts.names) != 0 || ts.text == "" {
			t.Errorf("after a tool's result: names %v, text %q", ts.names, ts.text)
		}
	})
	t.Run("share", func(t *testing.T) {
		calls := 0
		const n = 120
		for i := range n {
			ts := gatherTools(t, post(t, r.URL+"/v1/chat/completions", body(fmt.Sprintf("question number %d about trains", i), nil)))
			if len(ts.names) > 0 {
				calls++
			}
		}
		// tool_call_share 0.5 over 120 prompts: 60 expected, binomial sd
		// 5.5, and 38 to 82 is 4 sd either side; each prompt decides alike
		// every time.
		if calls < 38 || calls > 82 {
			t.Errorf("%d of %d prompts called a tool, want about half", calls, n)
		}
		again := gatherTools(t, post(t, r.URL+"/v1/chat/completions", body("question number 7 about trains", nil)))
		first := gatherTools(t, post(t, r.URL+"/v1/chat/completions", body("question number 7 about trains", nil)))
		if len(again.names) != len(first.names) {
			t.Error("one prompt decided differently twice")
		}
	})
	for _, bad := range []struct {
		name  string
		tools any
		pick  any
	}{
		{"not a function", []any{map[string]any{"type": "code_interpreter"}}, nil},
		{"unknown choice", tools, map[string]any{"type": "function", "function": map[string]any{"name": "launch"}}},
		{"bad choice", tools, "always"},
	} {
		t.Run(bad.name, func(t *testing.T) {
			b := body("x", bad.pick)
			b["tools"] = bad.tools
			if res := post(t, r.URL+"/v1/chat/completions", b); res.status != http.StatusBadRequest {
				t.Errorf("status %d, want 400", res.status)
			}
		})
	}
	t.Run("not streamed", func(t *testing.T) {
		b := body("find a station", "required")
		b["stream"] = false
		res := post(t, r.URL+"/v1/chat/completions", b)
		var whole struct {
			Choices []struct {
				Message struct {
					Content   *string `json:"content"`
					ToolCalls []struct {
						Function struct{ Name, Arguments string } `json:"function"`
					} `json:"tool_calls"`
				} `json:"message"`
				FinishReason string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(res.body, &whole); err != nil || len(whole.Choices) != 1 {
			t.Fatalf("%v: %s", err, res.body)
		}
		m := whole.Choices[0]
		if m.Message.Content != nil || len(m.Message.ToolCalls) != 1 || !json.Valid([]byte(m.Message.ToolCalls[0].Function.Arguments)) || m.FinishReason != "tool_calls" {
			t.Errorf("whole answer %s", res.body)
		}
	})
}
