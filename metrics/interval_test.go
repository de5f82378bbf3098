package metrics

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// exactQuantile is qbinom(a, n, q) computed with 512-bit floats (about 150
// digits, where the code under test uses float64 and lgamma): the smallest
// k with P(B <= k) >= a, B ~ Binomial(n, num/den).
func exactQuantile(a *big.Rat, n int64, num, den int64) int64 {
	const prec = 512
	f := func(x int64) *big.Float { return new(big.Float).SetPrec(prec).SetInt64(x) }
	p := new(big.Float).SetPrec(prec).Quo(f(num), f(den))
	q := new(big.Float).SetPrec(prec).Sub(f(1), p)
	ratio := new(big.Float).SetPrec(prec).Quo(p, q)
	af := new(big.Float).SetPrec(prec).SetRat(a)
	// term = P(B = k), starting from q^n and stepping by (n-k)/(k+1) p/q.
	term := f(1)
	for range n {
		term.Mul(term, q)
	}
	cum := f(0)
	for k := int64(0); k <= n; k++ {
		cum.Add(cum, term)
		if cum.Cmp(af) >= 0 {
			return k
		}
		term.Mul(term, f(n-k))
		term.Quo(term, f(k+1))
		term.Mul(term, ratio)
	}
	return n
}

func TestIntervalRanksKnown(t *testing.T) {
	// The textbook distribution-free 95% intervals of a median: X(6) to
	// X(15) for 20 samples, X(40) to X(61) for 100.
	for _, tt := range []struct{ n, l, u int64 }{{20, 6, 15}, {100, 40, 61}} {
		if l, u := IntervalRanks(tt.n, 0.5, 0.95); l != tt.l || u != tt.u {
			t.Errorf("median of %d: ranks [%d, %d], want [%d, %d]", tt.n, l, u, tt.l, tt.u)
		}
	}
}

func TestBinomialQuantileExact(t *testing.T) {
	lo, hi := big.NewRat(25, 1000), big.NewRat(975, 1000)
	for _, tt := range []struct{ n, num, den int64 }{
		{20, 1, 2}, {100, 9, 10}, {250, 95, 100}, {1000, 99, 100}, {1200, 999, 1000}, {37, 1, 10},
	} {
		q := float64(tt.num) / float64(tt.den)
		for _, a := range []*big.Rat{lo, hi} {
			af, _ := a.Float64()
			want := exactQuantile(a, tt.n, tt.num, tt.den)
			if got := BinomialQuantile(af, tt.n, q); got != want {
				t.Errorf("qbinom(%g, %d, %g) = %d, want %d", af, tt.n, q, got, want)
			}
		}
	}
}

func TestMinSamples(t *testing.T) {
	for _, tt := range []struct {
		p    float64
		want int64
	}{{50, 20}, {90, 100}, {95, 200}, {99, 1000}, {99.9, 10000}} {
		if got := MinSamples(tt.p); got != tt.want {
			t.Errorf("MinSamples(%g) = %d, want %d", tt.p, got, tt.want)
		}
	}
}

// TestPercentileIntervalOrderStatistics checks the interval's values
// against the exact order statistics of a generated sample.
func TestPercentileIntervalOrderStatistics(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	d := newDist()
	var raw []int64
	for range 5000 {
		v := int64(math.Exp(rng.NormFloat64()*0.8) * float64(50*time.Millisecond))
		d.add(v)
		raw = append(raw, v)
	}
	slices.Sort(raw)
	l := d.latency()
	for _, p := range []float64{50, 90, 99} {
		lower, upper, err := l.PercentileInterval(p, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		lr, ur := IntervalRanks(int64(len(raw)), p/100, 0.95)
		for _, c := range []struct {
			name string
			got  float64
			rank int64
		}{{"lower", lower, lr}, {"upper", upper, ur}} {
			exact := float64(raw[c.rank-1]) / 1e6
			if math.Abs(c.got-exact) > exact/1024+0.001 {
				t.Errorf("P%g %s: %g ms, the order statistic X(%d) is %g ms", p, c.name, c.got, c.rank, exact)
			}
		}
		point, _ := l.Stat(map[float64]string{50: "p50", 90: "p90", 99: "p99"}[p])
		if !(lower <= point && point <= upper) || lower == upper {
			t.Errorf("P%g: interval [%g, %g] does not hold the point %g", p, lower, upper, point)
		}
	}
}

// TestPercentileIntervalCoverage draws many samples of a known
// distribution: the 95% interval of its P90 must hold the true P90 in about
// 95% of them (at least 95% in theory; 92% leaves room for chance).
func TestPercentileIntervalCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const trials, n = 400, 1000
	truth := 90.0 // ms: P90 of uniform [0, 100) ms
	covered := 0
	for range trials {
		d := newDist()
		for range n {
			d.add(int64(rng.Float64() * float64(100*time.Millisecond)))
		}
		l := d.latency()
		lower, upper, err := l.PercentileInterval(90, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		if lower <= truth && truth <= upper {
			covered++
		}
	}
	if frac := float64(covered) / trials; frac < 0.92 || frac == 1 {
		t.Errorf("the interval held the true P90 in %d of %d samples (%.1f%%), want about 95%%", covered, trials, 100*frac)
	}
}

func TestPercentileIntervalEmpty(t *testing.T) {
	var l Latency
	if _, _, err := l.PercentileInterval(99, 0.95); err != ErrNoSamples {
		t.Errorf("empty latency: err %v, want ErrNoSamples", err)
	}
}
