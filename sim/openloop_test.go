package sim

import (
	"testing"
	"time"
)

// TestSimulateOpenLoop: every request completes once, after it arrived,
// with its tokens; arrivals keep the rate; and near saturation the queue
// makes neighbours' TTFTs correlated (a lag-1 autocorrelation well above
// what independent requests would show).
func TestSimulateOpenLoop(t *testing.T) {
	p, err := LookupProfile("tiny")
	if err != nil {
		t.Fatal(err)
	}
	reqs := []Work{{PromptTokens: 200, MaxTokens: 20, IgnoreEOS: true}}
	const total = 4000
	out := SimulateOpenLoop(p, reqs, 600, total, 1)
	if len(out) != total {
		t.Fatalf("%d requests completed, want %d", len(out), total)
	}
	var last time.Duration
	for _, r := range out {
		if r.TTFT <= 0 || r.End < r.Arrival+r.TTFT || r.OutputTokens != 20 || len(r.ITL) == 0 {
			t.Fatalf("request %+v", r)
		}
		last = max(last, r.Arrival)
	}
	if rate := float64(total) / last.Seconds(); rate < 540 || rate > 660 {
		t.Errorf("arrival rate %.0f/s, want about 600", rate)
	}
	ttft := make([]float64, len(out))
	for i, r := range out {
		ttft[i] = r.TTFT.Seconds()
	}
	if rho := lag1(ttft); rho < 0.3 {
		t.Errorf("lag-1 autocorrelation of TTFT %.2f: no queue formed", rho)
	}
}

func lag1(x []float64) float64 {
	var mean float64
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	var num, den float64
	for i, v := range x {
		den += (v - mean) * (v - mean)
		if i > 0 {
			num += (v - mean) * (x[i-1] - mean)
		}
	}
	return num / den
}
