package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The cleanup check of examples/abandon.hcl, end to end on the simulator:
// a quarter of the readers leave part-way; a simulator that frees their
// sequences passes the check on server.requests_running.last, one with the
// leak_on_disconnect fault fails it (exit 1) with the leaked requests still
// running. Abandoned requests are listed in the requests file.
func TestAbandonCleanupCheck(t *testing.T) {
	for _, tc := range []struct {
		leak string
		code int
	}{
		{"false", exitOK},
		{"true", exitCheckFailed},
	} {
		t.Run("leak="+tc.leak, func(t *testing.T) {
			out := t.TempDir()
			code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out,
				"-var", "leak="+tc.leak, "-var", "requests=16", "../../examples/abandon.hcl")
			if code != tc.code {
				t.Fatalf("leak=%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", tc.leak, code, tc.code, stdout, stderr)
			}
			res := resultFile(t, filepath.Join(out, "abandon.json"))
			summary := res["summary"].(map[string]any)
			abandoned := summary["abandoned"].(float64)
			running := summary["server"].(map[string]any)["figures"].(map[string]any)["requests_running"].(map[string]any)["last"].(float64)
			t.Logf("leak=%s: %v of 16 abandoned, %v completed; server.requests_running.last = %v", tc.leak, abandoned, summary["completed"], running)
			if abandoned == 0 || summary["completed"].(float64)+abandoned != 16 || summary["failed"].(float64) != 0 {
				t.Errorf("abandoned %v, completed %v, failed %v: want some abandoned, the rest completed", abandoned, summary["completed"], summary["failed"])
			}
			if want := map[string]float64{"false": 0, "true": abandoned}[tc.leak]; running != want {
				t.Errorf("server.requests_running.last = %v, want %v", running, want)
			}
			// The requests file lists each abandoned request with what it
			// received.
			f, err := os.Open(filepath.Join(out, "abandon.requests.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			listed := 0
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				var l struct {
					Abandoned    bool     `json:"abandoned"`
					Error        string   `json:"error"`
					OutputTokens int      `json:"output_tokens"`
					TTFT         *float64 `json:"ttft_ms"`
					E2EL         *float64 `json:"e2el_ms"`
				}
				if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
					t.Fatal(err)
				}
				if !l.Abandoned {
					continue
				}
				listed++
				if l.Error != "abandoned" || l.OutputTokens < 10 || l.OutputTokens > 50 || l.TTFT == nil || l.E2EL != nil {
					t.Errorf("abandoned line %s", sc.Bytes())
				}
			}
			if float64(listed) != abandoned {
				t.Errorf("%d abandoned requests listed, the summary says %v", listed, abandoned)
			}
		})
	}
}

// The Responses, chat, Messages and embeddings APIs run end to end against the
// simulator: the streamed ones time the reasoning apart from the answer
// (TTFT is the first reasoning token, ttft_answer the first answer token),
// embeddings have a latency and no first token.
func TestAPIsOnTheSimulator(t *testing.T) {
	for _, api := range []string{"openai-responses", "openai-chat", "anthropic-messages", "openai-embeddings"} {
		t.Run(api, func(t *testing.T) {
			out := t.TempDir()
			code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, "-var", "api="+api, "testdata/apis.hcl")
			if code != exitOK {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			s := resultFile(t, filepath.Join(out, "apis.json"))["summary"].(map[string]any)
			count := func(name string) float64 { return s[name].(map[string]any)["count"].(float64) }
			mean := func(name string) float64 { v, _ := s[name].(map[string]any)["mean"].(float64); return v }
			if api == "openai-embeddings" {
				if count("e2el") != 20 || count("ttft") != 0 || count("itl") != 0 || s["total_output_tokens"].(float64) != 0 || s["server_input_tokens"].(float64) == 0 {
					t.Errorf("embeddings: e2el %v, ttft %v, itl %v samples, %v output tokens, %v server input tokens",
						count("e2el"), count("ttft"), count("itl"), s["total_output_tokens"], s["server_input_tokens"])
				}
				return
			}
			if count("ttft_answer") != 20 || count("ttft_reasoning") != 20 || mean("reasoning_tokens") != 8 || s["total_output_tokens"].(float64) != 20*24 {
				t.Errorf("%s: ttft_answer %v, ttft_reasoning %v samples, reasoning tokens mean %v, %v output tokens",
					api, count("ttft_answer"), count("ttft_reasoning"), mean("reasoning_tokens"), s["total_output_tokens"])
			}
			if !(mean("ttft_answer") > mean("ttft")) || mean("ttft_reasoning") != mean("ttft") {
				t.Errorf("%s: mean TTFT %v ms, reasoning %v ms, answer %v ms: want the answer after the reasoning", api, mean("ttft"), mean("ttft_reasoning"), mean("ttft_answer"))
			}
		})
	}
}
