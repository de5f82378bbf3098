package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestMessagesSessions runs multi-turn sessions through Anthropic's
// Messages API on the simulator. Each conversation opens with a system
// message, which the API takes as its top-level system parameter (the
// simulator refuses a system role, as Anthropic does, so a client that
// sent one would fail every first turn), and each later turn carries the
// server's own replies: its prompt, by the server's count, holds the
// turn before's prompt and reply. plan -show-request shows the request
// as sent, the key redacted.
func TestMessagesSessions(t *testing.T) {
	dir := t.TempDir()
	var convs []map[string]any
	for i := range 4 {
		convs = append(convs, map[string]any{"id": fmt.Sprint(i), "conversations": []map[string]string{
			{"from": "system", "value": "You are a terse assistant who answers in one short sentence."},
			{"from": "human", "value": fmt.Sprintf("Question %d: what is the capital of a country you like, and why?", i)},
			{"from": "gpt", "value": "Paris, because its museums hold so much of the history of painting."},
			{"from": "human", "value": "And which museum there would you visit first on a short trip?"},
			{"from": "gpt", "value": "The Orsay, for the impressionists gathered in a former railway station."},
			{"from": "human", "value": "What would you see there that cannot be seen anywhere else at all?"},
		}})
	}
	data, err := json.Marshal(convs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "chats.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	const key = "sk-ant-e2e-PLANTED-0123456789"
	src := fmt.Sprintf(`
target "claude" {
  base_url = "sim://tiny"
  api      = "anthropic-messages"
  model    = "tiny"
  api_key  = %q
  timeout  = "20s"
}
dataset "chats" {
  sharegpt {
    path        = "chats.json"
    multi_turn  = true
    num_prompts = 4
    output_len  = 8
  }
}
scenario "sessions" {
  target          = target.claude
  dataset         = dataset.chats
  turn_think_time = "5ms"
  closed_loop {
    users = 2
  }
  requests = 4
  sla {
    error_rate = 0
  }
  validity {
    max_lag_p99    = "10s"
    max_client_cpu = 1
  }
}
`, key)
	hcl := filepath.Join(dir, "messages.hcl")
	if err := os.WriteFile(hcl, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := call(t, context.Background(), "plan", "-show-request", hcl)
	if code != exitOK {
		t.Fatalf("plan: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"POST sim://tiny/v1/messages", "Anthropic-Version: 2023-06-01", "X-Api-Key: <redacted>",
		`"system": "You are a terse assistant`, `"max_tokens": 8`} {
		if !strings.Contains(out, want) {
			t.Errorf("plan -show-request does not show %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, key) || strings.Contains(out, "Authorization") || strings.Contains(out, `"role": "system"`) {
		t.Errorf("plan -show-request shows the key, a bearer token or a system message:\n%s", out)
	}

	code, out, errOut = call(t, context.Background(), "run", "-quiet", "-out", dir, hcl)
	if code != exitOK {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	type turn struct{ turn, prompt, output int }
	sessions := map[float64][]turn{}
	for _, l := range requestMaps(t, filepath.Join(dir, "sessions.requests.jsonl")) {
		if l["error"] != nil || l["prompt_tokens_source"] != "usage" || l["output_tokens_source"] != "usage" {
			t.Fatalf("request %v: error %v, prompt tokens from %v, output tokens from %v", l["id"], l["error"], l["prompt_tokens_source"], l["output_tokens_source"])
		}
		s, _ := l["session"].(float64)
		sessions[s] = append(sessions[s], turn{int(l["turn"].(float64)), int(l["prompt_tokens"].(float64)), int(l["output_tokens"].(float64))})
	}
	if len(sessions) != 4 {
		t.Fatalf("%d sessions, want 4", len(sessions))
	}
	for s, turns := range sessions {
		sort.Slice(turns, func(i, j int) bool { return turns[i].turn < turns[j].turn })
		if len(turns) != 3 {
			t.Errorf("session %v: %d turns, want 3", s, len(turns))
			continue
		}
		for j := 1; j < len(turns); j++ {
			prev, cur := turns[j-1], turns[j]
			if cur.turn != j+1 || cur.prompt < prev.prompt+prev.output {
				t.Errorf("session %v turn %d: %d prompt tokens after a turn of %d + %d: the history is not in it", s, cur.turn, cur.prompt, prev.prompt, prev.output)
			}
		}
	}
	if strings.Contains(out, key) || strings.Contains(errOut, key) {
		t.Error("the run printed the key")
	}
}
