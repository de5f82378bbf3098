package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// With reasoning_tokens a chat stream sends its first tokens as
// delta.reasoning_content, then the answer as delta.content; an event
// across the boundary (tokens_per_event 2 here) carries both; usage counts
// them all.
func TestChatReasoning(t *testing.T) {
	r := startTiny(t, map[string]string{"reasoning_tokens": "5", "tokens_per_event": "2"})
	res := post(t, r.URL+"/v1/chat/completions", map[string]any{
		"messages": []any{map[string]any{"role": "user", "content": "why"}}, "max_tokens": 12, "ignore_eos": true,
		"stream": true, "stream_options": map[string]any{"include_usage": true},
	})
	if res.status != http.StatusOK || !res.done {
		t.Fatalf("status %d, done %v: %s", res.status, res.done, res.body)
	}
	var phases []string
	var usage *usage
	for _, c := range res.chunks[1:] { // after the role chunk
		if c.Usage != nil {
			usage = c.Usage
		}
		for _, ch := range c.Choices {
			d := ch.Delta
			p := ""
			if d.ReasoningContent != nil {
				p += "R" + strings.Repeat("r", strings.Count(*d.ReasoningContent, " ")-1)
			}
			if d.Content != nil {
				p += "A" + strings.Repeat("a", strings.Count(*d.Content, " ")-1)
			}
			phases = append(phases, p)
		}
	}
	// 12 tokens, 2 per event: reasoning tokens 0-4, answer 5-11.
	if diff := cmp.Diff([]string{"Rr", "Rr", "RA", "Aa", "Aa", "Aa"}, phases); diff != "" {
		t.Errorf("events by phase (-want +got):\n%s", diff)
	}
	if usage == nil || usage.CompletionTokens != 12 {
		t.Errorf("usage %+v, want 12 completion tokens", usage)
	}
}

// event is one named SSE event of a Responses stream.
type event struct {
	name string
	data map[string]any
}

func postEvents(t *testing.T, url string, body any) []event {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
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
			return out
		}
	}
}

// The Responses stream: named events in order, reasoning before the
// answer, sequence numbers counting up, and the usage in the last event;
// max_output_tokens reached ends it with response.incomplete.
func TestResponsesStream(t *testing.T) {
	r := startTiny(t, map[string]string{"reasoning_tokens": "3"})
	evs := postEvents(t, r.URL+"/v1/responses", map[string]any{
		"model": "sim-tiny", "input": []any{map[string]any{"role": "user", "content": "why"}}, "max_output_tokens": 8,
		"ignore_eos": true, "stream": true,
	})
	var names []string
	var text, reasoning string
	for i, e := range evs {
		if n, _ := e.data["sequence_number"].(float64); int(n) != i {
			t.Errorf("event %d (%s): sequence_number %v", i, e.name, e.data["sequence_number"])
		}
		switch e.name {
		case "response.output_text.delta":
			text += e.data["delta"].(string)
		case "response.reasoning_text.delta":
			reasoning += e.data["delta"].(string)
		}
		if len(names) == 0 || names[len(names)-1] != e.name {
			names = append(names, e.name)
		}
	}
	want := []string{
		"response.created", "response.in_progress", "response.output_item.added", "response.reasoning_text.delta",
		"response.reasoning_text.done", "response.output_item.done", "response.output_item.added", "response.content_part.added",
		"response.output_text.delta", "response.output_text.done", "response.output_item.done", "response.incomplete",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("event names (-want +got):\n%s", diff)
	}
	if strings.Count(reasoning, " ") != 3 || strings.Count(text, " ") != 5 {
		t.Errorf("reasoning %q, text %q: want 3 and 5 words", reasoning, text)
	}
	last := evs[len(evs)-1].data["response"].(map[string]any)
	usage := last["usage"].(map[string]any)
	if last["status"] != "incomplete" || usage["output_tokens"] != 8.0 || usage["input_tokens"] != 1.0+4 ||
		usage["output_tokens_details"].(map[string]any)["reasoning_tokens"] != 3.0 {
		t.Errorf("last response %v", last)
	}
	// Without ignore_eos and room to spare, a natural end completes it.
	evs = postEvents(t, r.URL+"/v1/responses", map[string]any{"input": "hello", "max_output_tokens": 1000, "stream": true})
	if e := evs[len(evs)-1]; e.name != "response.completed" || e.data["response"].(map[string]any)["status"] != "completed" {
		t.Errorf("last event %s %v", e.name, e.data)
	}
}

// Embeddings: one JSON answer with a vector and the input's usage; the
// engine counts the prompt.
func TestEmbeddings(t *testing.T) {
	r := startTiny(t, nil)
	b, _ := json.Marshal(map[string]any{"model": "sim-tiny", "input": "one two three four", "encoding_format": "float"})
	resp, err := http.Post(r.URL+"/v1/embeddings", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct {
		Object string `json:"object"`
		Data   []struct {
			Object    string    `json:"object"`
			Embedding []float64 `json:"embedding"`
		} `json:"data"`
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != 200 {
		t.Fatalf("status %d, %v", resp.StatusCode, err)
	}
	if got.Object != "list" || len(got.Data) != 1 || got.Data[0].Object != "embedding" || len(got.Data[0].Embedding) != embedDims || got.Usage.PromptTokens != 4 {
		t.Errorf("answer %+v", got)
	}
	_, metrics := getBody(t, r.URL+"/metrics")
	if !strings.Contains(metrics, `vllm:prompt_tokens_total{engine="0",model_name="sim-tiny"} 4`) {
		t.Errorf("/metrics does not count the embedded prompt")
	}
	if st := r.Server.Stats(); st.Running != 0 || st.KVUsed != 0 {
		t.Errorf("after the answer: %+v", st)
	}
}
