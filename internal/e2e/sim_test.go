// Package e2e drives the built-in simulator through the real load client
// (executor), end to end over loopback HTTP, and checks the engine model's
// invariants as a user of llmload would observe them.
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

// TestSaturationThroughRealClient: output throughput grows with users
// until the engine's batch bound (max_num_seqs = 16 on tiny), then
// flattens while TTFT grows with queueing; every streamed token is counted
// by the server's usage block.
func TestSaturationThroughRealClient(t *testing.T) {
	r := startSim(t, nil)
	const outputLen = 32
	plan := executor.Plan{
		KeepResults: true,
		Target:      executor.Target{BaseURL: r.URL, API: executor.APICompletions, Model: "sim-tiny", Timeout: 20 * time.Second, IgnoreEOS: true},
		Requests:    prompts(64, outputLen),
		Closed: &executor.ClosedLoop{Stages: []executor.Stage{
			{Users: 4, Duration: 1500 * time.Millisecond},
			{Users: 16, Duration: 1500 * time.Millisecond},
			{Users: 48, Duration: 1500 * time.Millisecond},
		}},
	}
	out, err := executor.Run(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Stages) != 3 {
		t.Fatalf("%d stages, want 3", len(out.Stages))
	}
	tput := func(i int) float64 { return out.Stages[i].Summary.OutputThroughput }
	ttft := func(i int) float64 { return out.Stages[i].Summary.TTFT.P50 }
	for i, st := range out.Stages {
		t.Logf("stage %d: %2d users, %7.0f tok/s, TTFT p50 %6.2f ms, ITL p50 %5.2f ms, %d completed, %d failed",
			i+1, st.Users, tput(i), ttft(i), st.Summary.ITL.P50, st.Summary.Completed, st.Summary.Failed)
		if st.Summary.Failed > 0 {
			t.Errorf("stage %d: %d failed requests: %v", i+1, st.Summary.Failed, st.Summary.Errors)
		}
	}
	// 4x the users under the batch bound: close to 4x the tokens (the
	// generous bound leaves room for a shared, noisy machine).
	if got := tput(1) / tput(0); got < 2.5 {
		t.Errorf("throughput at 16 users is %.2fx that at 4; want it to grow with users (>= 2.5x)", got)
	}
	// Past the bound: flat throughput, and the extra users queue.
	if got := tput(2) / tput(1); got > 1.3 {
		t.Errorf("throughput at 48 users is %.2fx that at 16; want it flat past max_num_seqs (<= 1.3x)", got)
	}
	if got := ttft(2) / ttft(1); got < 3 {
		t.Errorf("TTFT p50 at 48 users is %.2fx that at 16; want queueing to show (>= 3x)", got)
	}

	checked := 0
	for _, res := range out.Results {
		if !res.OK() {
			continue
		}
		checked++
		if res.OutputTokensSource != metrics.SourceUsage || res.OutputTokens != res.OutputEvents || res.OutputTokens != outputLen {
			t.Fatalf("request %d: usage says %d tokens (source %s), %d events streamed; want %d of each",
				res.ID, res.OutputTokens, res.OutputTokensSource, res.OutputEvents, outputLen)
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
