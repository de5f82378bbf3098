package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/llmload/llmload/internal/apis"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// postMessage posts body to the Messages endpoint with an API key and,
// unless version is "", the anthropic-version header. It returns the
// status, the named events of a stream (their data must repeat the name
// in "type") and the body of an answer that is not a stream.
func postMessage(t *testing.T, url, version string, body any) (int, []event, []byte) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, err := http.NewRequest(http.MethodPost, url+"/v1/messages", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-api-key", "sk-ant-anything")
	if version != "" {
		req.Header.Set("anthropic-version", version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		whole, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, nil, whole
	}
	var out []event
	var name string
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadString('\n')
		line = strings.TrimRight(line, "\n")
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			name = v
		}
		if v, ok := strings.CutPrefix(line, "data: "); ok {
			var d map[string]any
			if err := json.Unmarshal([]byte(v), &d); err != nil {
				t.Fatalf("event %s: %v: %s", name, err, v)
			}
			if d["type"] != name {
				t.Errorf("event %q carries type %v", name, d["type"])
			}
			out = append(out, event{name, d})
		}
		if err != nil {
			return resp.StatusCode, out, nil
		}
	}
}

// The Messages stream, as Anthropic documents it: message_start with the
// input usage, a ping, the thinking block (the profile's reasoning
// tokens, signed), the text block, message_delta with the stop reason and
// the usage, message_stop. The system prompt is counted as chat counts a
// system message; max_tokens reached is stop_reason max_tokens.
func TestMessagesStream(t *testing.T) {
	r := startTiny(t, map[string]string{"reasoning_tokens": "3"})
	status, evs, body := postMessage(t, r.URL, "2023-06-01", map[string]any{
		"model": "sim-tiny", "system": "Be brief.", "messages": []any{map[string]any{"role": "user", "content": "why"}},
		"max_tokens": 8, "ignore_eos": true, "stream": true,
	})
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, body)
	}
	var names []string
	var thinking, text string
	for _, e := range evs {
		if e.name == "content_block_delta" {
			d := e.data["delta"].(map[string]any)
			switch d["type"] {
			case "thinking_delta":
				thinking += d["thinking"].(string)
			case "text_delta":
				text += d["text"].(string)
			}
			names = append(names, "content_block_delta "+d["type"].(string))
		} else {
			names = append(names, e.name)
		}
		if n := len(names); n > 1 && names[n-1] == names[n-2] {
			names = names[:n-1]
		}
	}
	want := []string{
		"message_start", "ping", "content_block_start", "content_block_delta thinking_delta", "content_block_delta signature_delta",
		"content_block_stop", "content_block_start", "content_block_delta text_delta", "content_block_stop", "message_delta", "message_stop",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if strings.Count(thinking, " ") != 3 || strings.Count(text, " ") != 5 {
		t.Errorf("thinking %q, text %q: want 3 and 5 words", thinking, text)
	}
	// The same messages through chat: the prompt's count.
	chat := post(t, r.URL+"/v1/chat/completions", map[string]any{
		"messages":   []any{map[string]any{"role": "system", "content": "Be brief."}, map[string]any{"role": "user", "content": "why"}},
		"max_tokens": 1, "stream": true, "stream_options": map[string]any{"include_usage": true},
	})
	prompt := -1.0
	for _, c := range chat.chunks {
		if c.Usage != nil {
			prompt = float64(c.Usage.PromptTokens)
		}
	}
	start := evs[0].data["message"].(map[string]any)
	if u := start["usage"].(map[string]any); u["input_tokens"] != prompt || start["model"] != "sim-tiny" || start["role"] != "assistant" {
		t.Errorf("message_start %v: want input_tokens %v, as chat counts the same messages", start, prompt)
	}
	last := evs[len(evs)-2].data
	if d := last["delta"].(map[string]any); d["stop_reason"] != "max_tokens" || last["usage"].(map[string]any)["output_tokens"] != 8.0 {
		t.Errorf("message_delta %v: want max_tokens and 8 output tokens", last)
	}
	// Without ignore_eos and room to spare, the model ends its turn.
	_, evs, _ = postMessage(t, r.URL, "2023-06-01", map[string]any{
		"messages": []any{map[string]any{"role": "user", "content": "hello"}}, "max_tokens": 1000, "stream": true,
	})
	if d := evs[len(evs)-2].data["delta"].(map[string]any); d["stop_reason"] != "end_turn" {
		t.Errorf("message_delta %v, want end_turn", evs[len(evs)-2].data)
	}
}

// A Messages answer without a stream: the whole message, its thinking and
// text as content blocks, with the usage.
func TestMessagesWhole(t *testing.T) {
	r := startTiny(t, map[string]string{"reasoning_tokens": "2"})
	status, _, body := postMessage(t, r.URL, "2023-06-01", map[string]any{
		"messages":   []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "one two"}}}},
		"max_tokens": 6, "ignore_eos": true,
	})
	var got struct {
		Type, Role string
		StopReason string `json:"stop_reason"`
		Content    []struct {
			Type, Text, Thinking, Signature string
		}
		Usage struct {
			InputTokens  int `json:"input_tokens"`
			OutputTokens int `json:"output_tokens"`
		}
	}
	if err := json.Unmarshal(body, &got); err != nil || status != http.StatusOK {
		t.Fatalf("status %d, %v: %s", status, err, body)
	}
	if len(got.Content) != 2 || got.Content[0].Type != "thinking" || strings.Count(got.Content[0].Thinking, " ") != 2 || got.Content[0].Signature == "" ||
		got.Content[1].Type != "text" || strings.Count(got.Content[1].Text, " ") != 4 {
		t.Errorf("content %+v", got.Content)
	}
	if got.Type != "message" || got.Role != "assistant" || got.StopReason != "max_tokens" || got.Usage.InputTokens != 2+4 || got.Usage.OutputTokens != 6 {
		t.Errorf("answer %s", body)
	}
}

// What the API refuses, it refuses in its own error shape: a request
// without anthropic-version, without max_tokens, with a system message
// (the API's system prompt is a parameter), or for another model.
func TestMessagesErrors(t *testing.T) {
	r := startTiny(t, nil)
	user := []any{map[string]any{"role": "user", "content": "hi"}}
	for _, tc := range []struct {
		name, version string
		body          map[string]any
		status        int
		typ, msg      string
	}{
		{"no version", "", map[string]any{"messages": user, "max_tokens": 4}, 400, "invalid_request_error", "anthropic-version"},
		{"no max_tokens", "2023-06-01", map[string]any{"messages": user}, 400, "invalid_request_error", "max_tokens: Field required"},
		{"a system message", "2023-06-01", map[string]any{"max_tokens": 4, "messages": []any{
			map[string]any{"role": "system", "content": "Be brief."}, map[string]any{"role": "user", "content": "hi"},
		}}, 400, "invalid_request_error", "messages.0.role"},
		{"no messages", "2023-06-01", map[string]any{"max_tokens": 4, "messages": []any{}}, 400, "invalid_request_error", "at least one message"},
		{"another model", "2023-06-01", map[string]any{"model": "claude-x", "messages": user, "max_tokens": 4}, 404, "not_found_error", "claude-x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := postMessage(t, r.URL, tc.version, tc.body)
			var got struct {
				Type  string
				Error struct{ Type, Message string }
			}
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("%v: %s", err, body)
			}
			if status != tc.status || got.Type != "error" || got.Error.Type != tc.typ || !strings.Contains(got.Error.Message, tc.msg) {
				t.Errorf("status %d %s; want %d, error type %s, a message holding %q", status, body, tc.status, tc.typ, tc.msg)
			}
		})
	}
	// The simulator's HTTP faults too: a 503 is overloaded_error.
	f := startTiny(t, map[string]string{"fault_http_503": "1"})
	status, _, body := postMessage(t, f.URL, "2023-06-01", map[string]any{"messages": user, "max_tokens": 4, "stream": true})
	if status != http.StatusServiceUnavailable || !strings.Contains(string(body), `"type":"overloaded_error"`) {
		t.Errorf("fault: status %d %s", status, body)
	}
}

// Tools offered in the API's own form: the answer calls one as a tool_use
// block (its name the first token) whose input, gathered from its
// input_json_delta fragments, is a JSON object, and the message stops
// with tool_use. tool_choice decides as
// chat's does (any: a call; none: text; auto: the share of prompts
// tool_call_share says, here all, but never in answer to a tool_result);
// an OpenAI function tool is refused; a whole answer holds the call.
func TestMessagesToolUse(t *testing.T) {
	r := startTiny(t, map[string]string{"tool_call_share": "1"})
	tools := []any{
		map[string]any{"name": "search", "description": "Search the timetable", "input_schema": map[string]any{"type": "object", "properties": map[string]any{"query": map[string]any{"type": "string"}}}},
	}
	ask := []any{map[string]any{"role": "user", "content": "trains to Lyon"}}
	answered := []any{
		map[string]any{"role": "user", "content": "trains to Lyon"},
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "search", "input": map[string]any{"query": "Lyon"}}}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": "TGV 6201 at 10:00"}}},
	}
	for _, tc := range []struct {
		name     string
		messages []any
		choice   any
		call     bool
	}{
		{"any", ask, map[string]any{"type": "any"}, true},
		{"a named tool", ask, map[string]any{"type": "tool", "name": "search"}, true},
		{"auto", ask, nil, true},
		{"none", ask, map[string]any{"type": "none"}, false},
		{"auto, after the tool's result", answered, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := map[string]any{"messages": tc.messages, "tools": tools, "max_tokens": 6, "ignore_eos": true, "stream": true}
			if tc.choice != nil {
				body["tool_choice"] = tc.choice
			}
			status, evs, whole := postMessage(t, r.URL, "2023-06-01", body)
			if status != http.StatusOK {
				t.Fatalf("status %d: %s", status, whole)
			}
			var blocks []string
			var input, text string
			for _, e := range evs {
				switch e.name {
				case "content_block_start":
					b := e.data["content_block"].(map[string]any)
					blocks = append(blocks, fmt.Sprint(b["type"], " ", b["name"]))
				case "content_block_delta":
					d := e.data["delta"].(map[string]any)
					if d["type"] == "input_json_delta" {
						input += d["partial_json"].(string)
					} else {
						text += d["text"].(string)
					}
				}
			}
			stop := evs[len(evs)-2].data["delta"].(map[string]any)["stop_reason"]
			if !tc.call {
				if diff := cmp.Diff([]string{"text <nil>"}, blocks); diff != "" || input != "" || stop != "max_tokens" {
					t.Errorf("blocks (-want +got):\n%s\ninput %q, stop_reason %v: want a text answer", diff, input, stop)
				}
				return
			}
			var args struct{ Query string }
			// 6 tokens: the call's name, then 5 words of input.
			if err := json.Unmarshal([]byte(input), &args); err != nil || strings.Count(args.Query, " ") != 5 {
				t.Errorf("the call's input %q: %v; want {\"query\": <5 words>}", input, err)
			}
			if diff := cmp.Diff([]string{"tool_use search"}, blocks); diff != "" || text != "" || stop != "tool_use" {
				t.Errorf("blocks (-want +got):\n%s\ntext %q, stop_reason %v", diff, text, stop)
			}
		})
	}
	openAI := []any{map[string]any{"type": "function", "function": map[string]any{"name": "search"}}}
	if status, _, body := postMessage(t, r.URL, "2023-06-01", map[string]any{"messages": ask, "tools": openAI, "max_tokens": 4}); status != http.StatusBadRequest ||
		!strings.Contains(string(body), "input_schema") {
		t.Errorf("OpenAI-shaped tools: status %d %s; want a 400 naming input_schema", status, body)
	}
	status, _, body := postMessage(t, r.URL, "2023-06-01", map[string]any{"messages": ask, "tools": tools, "tool_choice": map[string]any{"type": "any"}, "max_tokens": 4})
	var got struct {
		StopReason string `json:"stop_reason"`
		Content    []struct {
			Type, Name string
			Input      struct{ Query string }
		}
	}
	if err := json.Unmarshal(body, &got); err != nil || status != http.StatusOK || got.StopReason != "tool_use" || len(got.Content) != 1 ||
		got.Content[0].Type != "tool_use" || got.Content[0].Name != "search" || got.Content[0].Input.Query == "" {
		t.Errorf("a whole answer: status %d %s", status, body)
	}
}

// TestMessagesImages: an image block (a base64 source or a url source)
// adds the profile's image_tokens to the prompt, as chat's image_url part
// does; a block without a source Anthropic takes is refused.
func TestMessagesImages(t *testing.T) {
	p, _ := LookupProfile("tiny")
	body := func(blocks ...any) []byte {
		b, _ := json.Marshal(map[string]any{"max_tokens": 4, "messages": []any{map[string]any{"role": "user", "content": blocks}}})
		return b
	}
	text := map[string]any{"type": "text", "text": "what is this"}
	png := map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
	url := map[string]any{"type": "image", "source": map[string]any{"type": "url", "url": "https://example.com/cat.jpg"}}
	plain, aerr := parseRequest(body(text), apiNamed(apis.Messages), &p)
	if aerr != nil {
		t.Fatal(aerr)
	}
	for _, blocks := range [][]any{{text, png}, {text, url}, {png, text}} {
		got, aerr := parseRequest(body(blocks...), apiNamed(apis.Messages), &p)
		if aerr != nil {
			t.Fatal(aerr)
		}
		if got.promptTokens != plain.promptTokens+p.ImageTokens {
			t.Errorf("%v: %d prompt tokens; want %d and the image's %d", blocks, got.promptTokens, plain.promptTokens, p.ImageTokens)
		}
	}
	bmp := map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/bmp", "data": "Qk0="}}
	for _, bad := range []any{bmp, map[string]any{"type": "image"}} {
		if _, aerr := parseRequest(body(text, bad), apiNamed(apis.Messages), &p); aerr == nil || !strings.Contains(aerr.msg, "source") {
			t.Errorf("%v: error %v, want a refusal of its source", bad, aerr)
		}
	}
}
