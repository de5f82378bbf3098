package sim

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/llmload/llmload/internal/testshared"
	"github.com/llmload/llmload/tokenizer"
)

// shareGPTWork is a closed-loop workload from a ShareGPT-format file, as
// examples/calibration.hcl sends it (`make calibrate`): the first human turn
// is a completions prompt, counted by the simulator's prompt tokenizer as
// the server counts it; max_tokens is the first reply's length counted by
// count (special tokens included), as the sharegpt dataset counts it;
// ignore_eos is on. Entries are kept by the dataset's default rules
// (vLLM's), on those counts: prompt 4 to 1,024 tokens, reply at least 4,
// both at most 2,048.
func shareGPTWork(t testing.TB, path string, count tokenizer.Tokenizer) []Work {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("calibration data: %v", err)
	}
	var convs []struct {
		Conversations []struct {
			From  string `json:"from"`
			Value string `json:"value"`
		} `json:"conversations"`
	}
	if err := json.Unmarshal(data, &convs); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var work []Work
	for _, c := range convs {
		if len(c.Conversations) < 2 {
			continue
		}
		prompt, reply := c.Conversations[0].Value, c.Conversations[1].Value
		promptLen, replyLen := len(count.Encode(prompt, true)), len(count.Encode(reply, true))
		if promptLen < 4 || replyLen < 4 || promptLen > 1024 || promptLen+replyLen > 2048 {
			continue
		}
		work = append(work, Work{PromptTokens: countTokens(prompt), MaxTokens: replyLen, IgnoreEOS: true})
	}
	if len(work) == 0 {
		t.Fatalf("%s: no conversation with two turns", path)
	}
	return work
}

// The a100-llama3-8b profile against the public reference (Llama-3-8B on
// one A100 80GB, ShareGPT-like prompts, closed-loop users without think
// time), on two workloads: the ShareGPT-like sample of ../shared counted
// with the real Llama-3 tokenizer, and the synthetic sample that
// examples/calibration.hcl sends from a fresh clone, counted by the
// simulator's /tokenize (the approximate tokenizer).
func TestCalibrationA100(t *testing.T) {
	p, err := LookupProfile("a100-llama3-8b")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		work func(t *testing.T) []Work
	}{
		{"sharegpt_like_500 llama3", func(t *testing.T) []Work {
			dir := testshared.Path(t, "data")
			llama3, err := tokenizer.Load(filepath.Join(dir, "tokenizers", "llama3", "tokenizer.json"))
			if err != nil {
				testshared.Skipf(t, "calibration tokenizer: %v", err)
			}
			return shareGPTWork(t, filepath.Join(dir, "sharegpt", "sharegpt_like_500.json"), llama3)
		}},
		{"examples synthetic approximate", func(t *testing.T) []Work {
			return shareGPTWork(t, filepath.Join("..", "examples", "data", "sharegpt_synthetic.json"), tokenizer.Approximate())
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work := tt.work(t)
			run := func(users int) ClosedLoopResult {
				r := SimulateClosedLoop(p, work, users, max(200, 10*users), 1)
				t.Logf("%3d users: %6.0f tok/s, TTFT p50 %v p99 %v, ITL p50 %v p99 %v, mean batch %.1f, preemptions %d",
					users, r.OutputTokPerSec, r.TTFTP50.Round(time.Millisecond), r.TTFTP99.Round(time.Millisecond),
					r.ITLP50.Round(100*time.Microsecond), r.ITLP99.Round(100*time.Microsecond), r.MeanBatch, r.Preemptions)
				return r
			}
			one, hundred, twoHundred := run(1), run(100), run(200)
			within := func(what string, got, want, tol float64) {
				if got < want*(1-tol) || got > want*(1+tol) {
					t.Errorf("%s = %.0f, want %.0f ± %.0f%%", what, got, want, tol*100)
				}
			}
			within("1 user tok/s", one.OutputTokPerSec, 115, 0.15)
			within("100 users tok/s", hundred.OutputTokPerSec, 3100, 0.15)
			within("200 users TTFT p99 (ms)", float64(twoHundred.TTFTP99.Milliseconds()), 3400, 0.5)
			if twoHundred.OutputTokPerSec > 1.10*hundred.OutputTokPerSec {
				t.Errorf("200 users: %.0f tok/s, more than 10%% over 100 users' %.0f", twoHundred.OutputTokPerSec, hundred.OutputTokPerSec)
			}
			if twoHundred.TTFTP99 < 5*hundred.TTFTP99 {
				t.Errorf("TTFT p99: %v at 200 users, less than 5× the %v at 100 users", twoHundred.TTFTP99, hundred.TTFTP99)
			}
			if twoHundred.ITLP50 <= 55*time.Millisecond {
				t.Errorf("200 users: ITL p50 %v, want above 55ms", twoHundred.ITLP50)
			}
		})
	}
}
