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

func TestTQuantile(t *testing.T) {
	// Student t 97.5% quantiles.
	for df, want := range map[float64]float64{1: 12.706, 2: 4.303, 3: 3.182, 5: 2.571, 30: 2.042} {
		if got := tQuantile(0.95, df); math.Abs(got-want)/want > 0.01 {
			t.Errorf("tQuantile(0.95, %g) = %.3f, want %.3f", df, got, want)
		}
	}
}

// TestPairedBlocks: blocks of an interleaved A/B run share their drift
// (block k of both arms ran on the same machine, minutes apart); the
// candidate is 20% slower in every block. Paired, the per-block
// differences decide a 5% tolerance; unpaired, the drift hides it.
func TestPairedBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	var base, cand []*metrics.Summary
	for k := range 6 {
		drift := math.Exp(0.3 * r.NormFloat64())
		m := time.Duration(float64(100*time.Millisecond) * drift)
		base = append(base, synth{n: 200, ttft: m, span: 2 * time.Second, tokens: 2, seed: uint64(10 + 2*k)}.summary())
		cand = append(cand, synth{n: 200, ttft: m * 12 / 10, span: 2 * time.Second, tokens: 2, seed: uint64(11 + 2*k)}.summary())
	}
	pb, err := metrics.PoolSummaries(base...)
	if err != nil {
		t.Fatal(err)
	}
	pc, err := metrics.PoolSummaries(cand...)
	if err != nil {
		t.Fatal(err)
	}
	tol, _ := ParseTolerances("ttft_mean=5%")
	paired := Judge(pb, pc, tol[0], Options{BaseRuns: base, NewRuns: cand, Paired: true})
	if paired.Method != MethodBlocks || paired.Verdict != Fail {
		t.Errorf("paired: method %s, verdict %s [%g, %g]; want blocks, fail", paired.Method, paired.Verdict, paired.Lower, paired.Upper)
	}
	unpaired := Judge(pb, pc, tol[0], Options{BaseRuns: base, NewRuns: cand})
	if unpaired.Verdict == Fail {
		t.Errorf("unpaired runs decided the regression through 30%% drift: [%g, %g]", unpaired.Lower, unpaired.Upper)
	}
}

// TestRunsWithoutSpread: blocks whose figure moved by exactly as much in
// every pair (no errors in any block, say) give no spread to judge by; a
// zero-width interval would decide any tolerance, so the within-run
// method judges instead.
func TestRunsWithoutSpread(t *testing.T) {
	var base, cand []*metrics.Summary
	for k := range 4 {
		base = append(base, synth{n: 300, ttft: 100 * time.Millisecond, span: 3 * time.Second, tokens: 2, seed: uint64(20 + 2*k)}.summary())
		cand = append(cand, synth{n: 300, ttft: 100 * time.Millisecond, span: 3 * time.Second, tokens: 2, seed: uint64(21 + 2*k)}.summary())
	}
	pb, err := metrics.PoolSummaries(base...)
	if err != nil {
		t.Fatal(err)
	}
	pc, err := metrics.PoolSummaries(cand...)
	if err != nil {
		t.Fatal(err)
	}
	tol, _ := ParseTolerances("error_rate=0.5%")
	for _, paired := range []bool{true, false} {
		d := Judge(pb, pc, tol[0], Options{BaseRuns: base, NewRuns: cand, Paired: paired})
		if d.Method == MethodBlocks || d.Method == MethodRuns || (d.HasInterval && d.Upper <= d.Lower) {
			t.Errorf("paired %v: error rate 0 in every block judged by %s over [%g, %g]; want the within-run method's interval", paired, d.Method, d.Lower, d.Upper)
		}
		if d.BaseSamples != 1200 || d.NewSamples != 1200 {
			t.Errorf("paired %v: samples %d and %d, want the requests (1200 each)", paired, d.BaseSamples, d.NewSamples)
		}
	}
}
