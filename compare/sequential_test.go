package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/llmload/llmload/metrics"
)

// TestSpending: the looks' shares add up to the error rate, whether the
// run goes to its plan or the budget ends it early, and a look below two
// blocks is not made.
func TestSpending(t *testing.T) {
	for _, tt := range []struct {
		planned, stop int
	}{{20, 20}, {20, 7}, {2, 2}, {5, 3}} {
		s := NewSequential(0.95, tt.planned)
		if _, ok := s.Next(1, false); ok {
			t.Fatal("a look at one block")
		}
		sum := 0.0
		for k := 2; k <= tt.stop; k++ {
			l, _ := s.Next(k, k == tt.stop)
			sum += l.Alpha
			if l.Confidence <= 0.95 && k < tt.stop {
				t.Errorf("planned %d: an interim look at %d has confidence %g, not above 95%%", tt.planned, k, l.Confidence)
			}
		}
		if math.Abs(sum-0.05) > 1e-12 {
			t.Errorf("planned %d, stopped at %d: the looks spent %g, want 0.05", tt.planned, tt.stop, sum)
		}
		if !s.Looks[len(s.Looks)-1].Final {
			t.Errorf("planned %d, stopped at %d: the last look is not final", tt.planned, tt.stop)
		}
	}
}

// gate runs one sequential A/B gate on synthetic blocks: each block's P99
// TTFT is 100 ms times (1 + effect) for the candidate, with a drift common
// to both arms (it cancels in the pairs) and each arm's own noise sd. It
// returns the verdict and the block it stopped at. With fixed > 0 every
// look uses that confidence instead (peeking without a sequential method);
// with fixed < 0, one look at the end at -fixed (a fixed-length run).
func gate(r *rand.Rand, effect, tolerance, sd float64, planned int, fixed float64) (string, int) {
	tol := Tolerance{Key: "ttft_p99", Metric: "ttft", Stat: "p99", Fraction: tolerance}
	seq := NewSequential(0.95, planned)
	var base, cand []*metrics.Summary
	for k := 1; k <= planned; k++ {
		drift := driftSD * r.NormFloat64()
		b := 100 * (1 + drift) * (1 + sd*r.NormFloat64())
		c := 100 * (1 + effect) * (1 + drift) * (1 + sd*r.NormFloat64())
		base = append(base, blockSummary(b))
		cand = append(cand, blockSummary(c))
		if fixed < 0 && k < planned {
			continue // one look, at the end: a fixed-length comparison
		}
		l, ok := seq.Next(k, k == planned)
		if !ok {
			continue
		}
		if fixed != 0 {
			l.Confidence = math.Abs(fixed)
		}
		d := Judge(pooled(base), pooled(cand), tol, Options{Confidence: l.Confidence, BaseRuns: base, NewRuns: cand, Paired: true})
		if Decided([]Delta{d}) || l.Final {
			return d.Verdict, k
		}
	}
	return Inconclusive, planned
}

var driftSD = 0.1

func blockSummary(p99 float64) *metrics.Summary {
	return &metrics.Summary{Completed: 2000, TTFT: metrics.Latency{Count: 2000, P99: p99}}
}

// pooled stands for the arms' pooled summary: the mean of the blocks'
// figures.
func pooled(blocks []*metrics.Summary) *metrics.Summary {
	var v float64
	for _, b := range blocks {
		v += b.TTFT.P99
	}
	s := blockSummary(v / float64(len(blocks)))
	s.TTFT.Count = int64(2000 * len(blocks))
	return s
}

type gateStats struct {
	trials, fails, passes int
	meanStop              float64
}

func (g gateStats) String() string {
	return fmt.Sprintf("fail %.2f%%, pass %.2f%%, mean stop %.1f blocks (%d gates)",
		100*float64(g.fails)/float64(g.trials), 100*float64(g.passes)/float64(g.trials), g.meanStop, g.trials)
}

func gates(seed uint64, trials int, effect, tolerance, sd float64, planned int, fixed float64) gateStats {
	r := rand.New(rand.NewPCG(seed, 99))
	g := gateStats{trials: trials}
	for range trials {
		v, at := gate(r, effect, tolerance, sd, planned, fixed)
		switch v {
		case Fail:
			g.fails++
		case Pass:
			g.passes++
		}
		g.meanStop += float64(at) / float64(trials)
	}
	return g
}

// TestSequentialErrorRates runs thousands of sequential gates of 20
// blocks on synthetic per-block P99s (5% noise per arm and block, 10%
// drift common to both arms) and checks the rates docs/compare.md
// quotes, each within three binomial standard deviations:
//   - false alarms: a candidate exactly at the tolerance (the hardest
//     case that must not fail) fails at most 2.5% of the time (half of
//     1 - 95%: the interval's lower end), looking after every block;
//   - peeking at 95% intervals after every block, without the sequential
//     boundaries, fails the same candidate far more often;
//   - equal arms fail almost never and pass, most of them early;
//   - power: a 30% regression against a 10% tolerance fails, and stops
//     after a few blocks; at a 20% regression the power is close to a
//     fixed-length run's of all 20 blocks, with fewer blocks run.
func TestSequentialErrorRates(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates thousands of gates")
	}
	const n, planned, sd, tol = 4000, 20, 0.05, 0.10
	within := func(rate float64) float64 { return 3 * math.Sqrt(rate*(1-rate)/n) }
	atTol := gates(1, n, tol, tol, sd, planned, 0)
	peek := gates(1, n, tol, tol, sd, planned, 0.95)
	equal := gates(2, n, 0, tol, sd, planned, 0)
	regress := gates(3, n, 0.30, tol, sd, planned, 0)
	small := gates(4, n, 0.20, tol, sd, planned, 0)
	smallFixed := gates(4, n, 0.20, tol, sd, planned, -0.95)
	t.Logf("at the tolerance: %s", atTol)
	t.Logf("at the tolerance, peeking at 95%%: %s", peek)
	t.Logf("equal arms: %s", equal)
	t.Logf("30%% regression: %s", regress)
	t.Logf("20%% regression: %s", small)
	t.Logf("20%% regression, one look after 20 blocks: %s", smallFixed)
	rate := func(k int) float64 { return float64(k) / n }
	if r := rate(atTol.fails); r > 0.025+within(0.025) {
		t.Errorf("false alarms at the tolerance %.2f%%, above 2.5%%", 100*r)
	}
	if r := rate(peek.fails); r < 2*0.025 {
		t.Errorf("peeking at 95%% after every block fails %.2f%% at the tolerance; want the inflation this guards against (over 5%%)", 100*r)
	}
	if r := rate(equal.fails); r > 0.001 {
		t.Errorf("equal arms failed %.2f%% of the time", 100*r)
	}
	if r := rate(equal.passes); r < 0.95 {
		t.Errorf("equal arms passed %.2f%% of the time, want 95%% or more", 100*r)
	}
	if r := rate(regress.fails); r < 0.99 {
		t.Errorf("power at a 30%% regression %.2f%%, want 99%% or more", 100*r)
	}
	if regress.meanStop > 6 {
		t.Errorf("a 30%% regression stopped after %.1f blocks on average, want 6 or fewer", regress.meanStop)
	}
	// What looking early costs: the sequential gate's power at a 20%
	// regression is below the fixed-length run's, but not by much, and
	// it stops far earlier.
	if p, f := rate(small.fails), rate(smallFixed.fails); p < f-0.15 || p > f+within(f) {
		t.Errorf("power at a 20%% regression %.2f%%, fixed-length %.2f%%: want at most 15 points less", 100*p, 100*f)
	}
	if small.meanStop > 0.75*planned {
		t.Errorf("a 20%% regression stopped after %.1f blocks on average, want under %d", small.meanStop, 3*planned/4)
	}
	if equal.meanStop >= planned {
		t.Errorf("equal arms never stopped early (mean stop %.1f of %d)", equal.meanStop, planned)
	}
}

// TestDecided: a look stops the run on any fail, wherever it sits among
// the figures, and on passes only when no figure is still open.
func TestDecided(t *testing.T) {
	for _, tt := range []struct {
		verdicts []string
		want     bool
	}{
		{[]string{Fail}, true},
		{[]string{Inconclusive, Fail}, true},
		{[]string{Pass, Inconclusive, Fail}, true},
		{[]string{Pass, Pass}, true},
		{[]string{Pass, Inconclusive}, false},
		{[]string{Inconclusive, Pass}, false},
		{[]string{"", ""}, false}, // nothing judged (agreement only)
		{nil, false},
		{[]string{"", Pass}, true},
	} {
		var ds []Delta
		for _, v := range tt.verdicts {
			ds = append(ds, Delta{Verdict: v})
		}
		if got := Decided(ds); got != tt.want {
			t.Errorf("Decided(%v) = %v, want %v", tt.verdicts, got, tt.want)
		}
	}
}

// TestLooksPastThePlan: a wall-time budget's plan is an estimate, and runs
// may go past it; a look that is not the last never spends what remains,
// so its confidence stays below 1, the spending never exceeds the error
// rate, and the last look still spends the rest.
func TestLooksPastThePlan(t *testing.T) {
	s := NewSequential(0.95, 4)
	sum := 0.0
	for k := 2; k <= 9; k++ {
		l, _ := s.Next(k, k == 9)
		sum += l.Alpha
		if k < 9 {
			if l.Final || l.Alpha <= 0 || l.Confidence >= 1 || l.Fraction >= 1 {
				t.Errorf("look %d of plan 4 (not the last): final %v, alpha %g, confidence %g, fraction %g", k, l.Final, l.Alpha, l.Confidence, l.Fraction)
			}
		} else if !l.Final {
			t.Error("the last look is not final")
		}
	}
	if math.Abs(sum-0.05) > 1e-12 {
		t.Errorf("the looks spent %g, want 0.05", sum)
	}
}

// TestMoreNeeded: the estimate measures the gap in the figure's worse
// direction, so a throughput that fell (higher is better) is as far from
// its tolerance as a latency that rose by as much; figures decided or
// without an interval over blocks get no estimate.
func TestMoreNeeded(t *testing.T) {
	lat := Delta{Verdict: Inconclusive, HasInterval: true, Method: MethodBlocks, Better: metrics.LowerIsBetter,
		Delta: 8, Limit: 10, Lower: 4, Upper: 12}
	thr := lat
	thr.Better, thr.Delta, thr.Lower, thr.Upper = metrics.HigherIsBetter, -8, -12, -4
	ml, infL, okL := MoreNeeded(lat, 5, 0.95)
	mt, infT, okT := MoreNeeded(thr, 5, 0.95)
	if !okL || !okT || infL || infT || ml != mt || ml < 1 {
		t.Errorf("latency up 8 of 10: %d more (inf %v, ok %v); throughput down 8 of 10: %d more (inf %v, ok %v); want the same finite number", ml, infL, okL, mt, infT, okT)
	}
	// Twice the gap needs fewer blocks.
	far := lat
	far.Delta, far.Lower, far.Upper = 6, 2, 10
	if mf, _, _ := MoreNeeded(far, 5, 0.95); mf >= ml {
		t.Errorf("a gap of 4 needs %d more, a gap of 2 %d: want fewer for the wider gap", mf, ml)
	}
	if _, inf, ok := MoreNeeded(Delta{Verdict: Inconclusive, HasInterval: true, Method: MethodBlocks, Better: metrics.LowerIsBetter, Delta: 10, Limit: 10, Lower: 5, Upper: 15}, 5, 0.95); !ok || !inf {
		t.Error("a delta on the tolerance: want undecidable")
	}
	for _, d := range []Delta{
		{Verdict: Fail, HasInterval: true, Method: MethodBlocks},
		{Verdict: Inconclusive, HasInterval: true, Method: MethodBootstrap},
		{Verdict: Inconclusive, HasInterval: false, Method: MethodBlocks},
	} {
		if _, _, ok := MoreNeeded(d, 5, 0.95); ok {
			t.Errorf("%+v: got an estimate", d)
		}
	}
}

// TestFormatConfidence: rounded down, with the digits that tell it apart
// from 100%.
func TestFormatConfidence(t *testing.T) {
	for c, want := range map[float64]string{
		0.95: "95%", 0.9: "90%", 0.9852: "98.5%", 0.99206: "99.2%", 0.9987: "99.8%", 0.99995: "99.9%", 0.5: "50%",
	} {
		if got := FormatConfidence(c); got != want {
			t.Errorf("FormatConfidence(%g) = %q, want %q", c, got, want)
		}
	}
}
