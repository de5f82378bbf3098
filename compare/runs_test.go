package compare

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/llmload/llmload/metrics"
)

// drifting returns n runs of one system whose median TTFT drifts from run
// to run (log-normal, sigma drift around ttft), as a shared machine makes
// it, and their pooled summary.
func drifting(t *testing.T, n int, ttft time.Duration, drift float64, seed uint64) (pooled *metrics.Summary, runs []*metrics.Summary) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 99))
	for i := range n {
		m := time.Duration(float64(ttft) * math.Exp(drift*r.NormFloat64()))
		runs = append(runs, synth{n: 500, ttft: m, span: 5 * time.Second, tokens: 2, seed: seed*100 + uint64(i)}.summary())
	}
	pooled, err := metrics.PoolSummaries(runs...)
	if err != nil {
		t.Fatal(err)
	}
	return pooled, runs
}

// TestRunsMethodSeesDrift is why repeats exist: two sides of the same
// system whose runs drift by about 12% from run to run. The within-run
// interval (each side pooled, bootstrap over the histograms) cannot see
// the drift and calls many of these pairs a 5% regression; the
// run-to-run interval holds the drift and rarely does. A true 30%
// regression under the same drift still fails.
func TestRunsMethodSeesDrift(t *testing.T) {
	tol, err := ParseTolerances("ttft_p50=5%")
	if err != nil {
		t.Fatal(err)
	}
	const pairs = 12
	withinFails, runFails := 0, 0
	for i := range pairs {
		base, baseRuns := drifting(t, 4, 100*time.Millisecond, 0.12, uint64(2*i+1))
		cand, candRuns := drifting(t, 4, 100*time.Millisecond, 0.12, uint64(2*i+2))
		if d := Judge(base, cand, tol[0], Options{Replicates: 1000}); d.Verdict == Fail {
			withinFails++
		}
		d := Judge(base, cand, tol[0], Options{Replicates: 1000, BaseRuns: baseRuns, NewRuns: candRuns})
		if d.Method != MethodRuns {
			t.Fatalf("method %q with repeats on both sides, want %q", d.Method, MethodRuns)
		}
		if d.Verdict == Fail {
			runFails++
		}
	}
	t.Logf("false regressions in %d pairs: within-run %d, run-to-run %d", pairs, withinFails, runFails)
	if withinFails < 3 {
		t.Errorf("the fixture shows no drift: the within-run interval failed only %d of %d pairs", withinFails, pairs)
	}
	// 2.5% of 12 is 0.3; 2 or more would be a broken interval.
	if runFails > 1 {
		t.Errorf("the run-to-run interval declared %d false regressions in %d pairs", runFails, pairs)
	}

	base, baseRuns := drifting(t, 5, 100*time.Millisecond, 0.05, 101)
	cand, candRuns := drifting(t, 5, 130*time.Millisecond, 0.05, 102)
	if d := Judge(base, cand, tol[0], Options{BaseRuns: baseRuns, NewRuns: candRuns}); d.Verdict != Fail {
		lo, hi := d.PercentInterval()
		t.Errorf("a 30%% regression under 5%% drift: verdict %s (%.1f%% to %.1f%%), want fail", d.Verdict, lo, hi)
	}
	// One side without repeats: the within-run method.
	if d := Measure(base, cand, "ttft", "p50", Options{NewRuns: candRuns}); d.Method != MethodBootstrap {
		t.Errorf("method %q with repeats on one side only, want %q", d.Method, MethodBootstrap)
	}
}

func TestSpreadOf(t *testing.T) {
	s := SpreadOf([]float64{10, 14, 12, 8})
	want := Spread{Median: 11, Min: 8, Max: 14, Mean: 11, SD: math.Sqrt(20.0 / 3)}
	want.CV = want.SD / 11
	if s.Median != want.Median || s.Min != want.Min || s.Max != want.Max || s.Mean != want.Mean ||
		math.Abs(s.SD-want.SD) > 1e-12 || math.Abs(s.CV-want.CV) > 1e-12 {
		t.Errorf("SpreadOf = %+v, want %+v", s, want)
	}
	if one := SpreadOf([]float64{5}); one.SD != 0 || one.CV != 0 || one.Median != 5 {
		t.Errorf("one value: %+v", one)
	}
}
