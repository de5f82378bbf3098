package e2e

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/executor"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/sim"
)

// startSim runs the tiny profile, with overrides, on a free loopback port.
func startSim(t *testing.T, overrides map[string]string) *sim.Running {
	t.Helper()
	p, err := sim.LookupProfile("tiny")
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range overrides {
		if err := p.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	r, err := sim.Listen("127.0.0.1:0", p, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func prompts(n, outputLen int) []dataset.Request {
	reqs := make([]dataset.Request, n)
	for i := range reqs {
		reqs[i] = dataset.Request{Index: i, Prompt: "the quick brown fox jumps over the lazy dog", PromptLen: 12, OutputLen: outputLen}
	}
	return reqs
}

// TestSaturationThroughRealClient: the engine's batch grows with users
// until its bound (max_num_seqs = 16 on tiny), then stays there while the
// extra users queue; every streamed token is counted by the server's usage
// block. The batch is read as output tokens per engine step (one token per
// running sequence a step), which does not depend on how fast the machine
// runs the steps: throughput ratios in real time do (a client slowed by a
// busy machine or the race detector holds fewer streams open), and the
// engine's virtual-time tests (sim) check those.
func TestSaturationThroughRealClient(t *testing.T) {
	r := startSim(t, nil)
	const outputLen, bound = 32, 16
	type stage struct {
		users          int
		tokensPerStep  float64
		ttftP50        float64
		results        []*metrics.Request
		completed, bad int
	}
	var stages []stage
	for _, users := range []int{4, 16, 48} {
		before := r.Server.Stats().Steps
		out, err := executor.Run(context.Background(), executor.Plan{
			KeepResults: true,
			Target:      executor.Target{BaseURL: r.URL, API: executor.APICompletions, Model: "sim-tiny", Timeout: 20 * time.Second, IgnoreEOS: true},
			Requests:    prompts(64, outputLen),
			Closed:      &executor.ClosedLoop{Stages: []executor.Stage{{Users: users, Duration: time.Second}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		steps := r.Server.Stats().Steps - before
		sum := out.Overall
		st := stage{users: users, ttftP50: sum.TTFT.P50, results: out.Results, completed: sum.Completed, bad: sum.Failed}
		if steps > 0 {
			st.tokensPerStep = float64(sum.TotalOutputTokens) / float64(steps)
		}
		t.Logf("%2d users: %5.2f output tokens per engine step (%d steps), %6.0f tok/s, TTFT p50 %6.2f ms, %d completed, %d failed",
			users, st.tokensPerStep, steps, sum.OutputThroughput, st.ttftP50, sum.Completed, sum.Failed)
		if sum.Failed > 0 {
			t.Errorf("%d users: %d failed requests: %v", users, sum.Failed, sum.Errors)
		}
		stages = append(stages, st)
	}
	// Under the bound the batch is at most the users; past 4 users it
	// grows beyond what 4 could fill; it never passes max_num_seqs.
	if tps := stages[0].tokensPerStep; tps > 4 {
		t.Errorf("4 users: %.2f tokens per step, more than 4 sequences can produce", tps)
	}
	if tps := stages[1].tokensPerStep; tps <= 4 || tps > bound {
		t.Errorf("16 users: %.2f tokens per step; want the batch past 4 and within max_num_seqs (%d)", tps, bound)
	}
	if tps := stages[2].tokensPerStep; tps > bound {
		t.Errorf("48 users: %.2f tokens per step, past max_num_seqs (%d)", tps, bound)
	}
	// Past the bound, users wait for a whole request (32 steps) to finish
	// before their first token; under it, for at most a prefill step.
	if got := stages[2].ttftP50 / stages[1].ttftP50; got < 3 {
		t.Errorf("TTFT p50 at 48 users is %.2fx that at 16; want queueing to show (>= 3x)", got)
	}

	checked := 0
	for _, st := range stages {
		for _, res := range st.results {
			if !res.OK() {
				continue
			}
			checked++
			if res.OutputTokensSource != metrics.SourceUsage || res.OutputTokens != res.OutputEvents || res.OutputTokens != outputLen {
				t.Fatalf("request %d: usage says %d tokens (source %s), %d events streamed; want %d of each",
					res.ID, res.OutputTokens, res.OutputTokensSource, res.OutputEvents, outputLen)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no successful request to check")
	}
}

// TestFaultRatesThroughRealClient: injected faults reach the client as the
// failure kinds they stand for, at the configured rates.
func TestFaultRatesThroughRealClient(t *testing.T) {
	const n, rate = 400, 0.1
	r := startSim(t, map[string]string{
		"fault_http_500":  "0.1",
		"fault_http_429":  "0.1",
		"fault_drop":      "0.1",
		"fault_malformed": "0.1",
	})
	out, err := executor.Run(context.Background(), executor.Plan{
		KeepResults: true,
		Target:      executor.Target{BaseURL: r.URL, API: executor.APIChat, Model: "sim-tiny", Timeout: 20 * time.Second, IgnoreEOS: true},
		Requests:    prompts(n, 8),
		Open:        &executor.OpenLoop{Rate: math.Inf(1), MaxConcurrency: 16},
	})
	if err != nil {
		t.Fatal(err)
	}
	status := map[int]int{}
	for _, res := range out.Results {
		if res.Error == metrics.ErrHTTPStatus || res.Error == metrics.ErrRateLimited {
			status[res.StatusCode]++
		}
	}
	s := out.Overall
	// Each kind is a binomial count: allow 4 standard deviations.
	tol := 4 * math.Sqrt(n*rate*(1-rate))
	for _, c := range []struct {
		name string
		got  int
	}{
		{"HTTP 500", status[500]},
		{"HTTP 429", status[429]},
		{"dropped streams", s.Errors[metrics.ErrStream]},
		{"malformed events", s.Errors[metrics.ErrMalformed]},
	} {
		if math.Abs(float64(c.got)-n*rate) > tol {
			t.Errorf("%s: %d of %d, want %.0f ± %.0f", c.name, c.got, n, n*rate, tol)
		}
	}
	if s.Completed+s.Failed != n {
		t.Errorf("completed %d + failed %d != %d sent", s.Completed, s.Failed, n)
	}
	t.Logf("errors by kind: %v, HTTP statuses: %v", s.Errors, status)
}
