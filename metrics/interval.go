package metrics

import (
	"errors"
	"fmt"
	"math"
)

// Confidence intervals of percentiles, without assuming a distribution.
//
// The k-th smallest of n samples (its order statistic X_(k)) lies under the
// true q-quantile exactly when at least k samples do, and the number of
// samples under the quantile is Binomial(n, q). So [X_(l), X_(u)] covers the
// quantile with probability P(l <= B <= u-1), B ~ Binomial(n, q). Taking
// l = the α/2 quantile of B and u = the 1-α/2 quantile plus one gives at
// least 1-α (the usual distribution-free interval; Hahn and Meeker,
// Statistical Intervals, §5.2). The values are read from the HDR histogram
// at those ranks, so they carry its 0.1% precision.

// DefaultConfidence is the confidence of the intervals checks carry.
const DefaultConfidence = 0.95

// TailSamples is how many samples must lie beyond a percentile for a check
// of it to be conclusive by default: MinSamples(p) = ceil(TailSamples / (1 - p)).
const TailSamples = 10

// MinSamples is the default number of samples a check of the p-th
// percentile (0 < p < 100) needs: enough that TailSamples of them lie
// beyond it (20 for P50, 100 for P90, 200 for P95, 1,000 for P99, 10,000
// for P99.9).
func MinSamples(p float64) int64 {
	tail := 1 - p/100
	if tail <= 0 {
		return math.MaxInt64
	}
	// Round away float noise (1 - 0.99 is 0.010000000000000009) before
	// the ceiling.
	return int64(math.Ceil(math.Round(TailSamples/tail*1e6) / 1e6))
}

// StatPercentile returns the percentile a statistic names ("p99" -> 99,
// "p999" -> 99.9); ok is false for a statistic that is not a percentile.
func StatPercentile(stat string) (p float64, ok bool) {
	switch stat {
	case "p50":
		return 50, true
	case "p90":
		return 90, true
	case "p95":
		return 95, true
	case "p99":
		return 99, true
	case "p999":
		return 99.9, true
	}
	return 0, false
}

// BinomialQuantile is the smallest k with P(B <= k) >= a, B ~ Binomial(n, q):
// R's qbinom(a, n, q). 0 <= q <= 1, 0 < a < 1.
func BinomialQuantile(a float64, n int64, q float64) int64 {
	switch {
	case n <= 0 || q <= 0:
		return 0
	case q >= 1:
		return n
	}
	lo, hi := binomialWindow(n, q)
	// The mass outside [lo, hi] is under 1e-20: the cumulative sum starts
	// at lo as if it were 0.
	ln, _ := math.Lgamma(float64(n) + 1)
	logP, logQ := math.Log(q), math.Log1p(-q)
	logC := func(k int64) float64 {
		b, _ := math.Lgamma(float64(k) + 1)
		c, _ := math.Lgamma(float64(n-k) + 1)
		return ln - b - c + float64(k)*logP + float64(n-k)*logQ
	}
	cum := 0.0
	for k := lo; k <= hi; k++ {
		cum += math.Exp(logC(k))
		if cum >= a*(1-1e-12) {
			return k
		}
	}
	return hi
}

// binomialWindow is a range of k holding all but a negligible part of the
// Binomial(n, q) mass: 14 standard deviations and 10 on each side of the
// mean.
func binomialWindow(n int64, q float64) (lo, hi int64) {
	mean := float64(n) * q
	sd := math.Sqrt(float64(n) * q * (1 - q))
	lo = int64(math.Max(0, math.Floor(mean-14*sd-10)))
	hi = int64(math.Min(float64(n), math.Ceil(mean+14*sd+10)))
	return lo, hi
}

// IntervalRanks returns the 1-based ranks [l, u] of the order statistics
// that bound the q-quantile (0 < q < 1) of n samples with confidence conf,
// clamped into [1, n]. A rank clamped means the interval is open on that
// side in truth; min or max stands in for it.
func IntervalRanks(n int64, q, conf float64) (l, u int64) {
	alpha := 1 - conf
	l = BinomialQuantile(alpha/2, n, q)
	u = BinomialQuantile(1-alpha/2, n, q) + 1
	return min(max(l, 1), n), min(max(u, 1), n)
}

// IntervalBounded says whether each end of the interval IntervalRanks
// gives is a real order statistic: too few samples leave the rank beyond
// the sample (the interval is then open on that side, however the min or
// max that stands in for it reads).
func IntervalBounded(n int64, q, conf float64) (low, high bool) {
	alpha := 1 - conf
	return BinomialQuantile(alpha/2, n, q) >= 1, BinomialQuantile(1-alpha/2, n, q)+1 <= n
}

// ErrNoSamples is returned for an interval of a distribution without samples.
var ErrNoSamples = errors.New("no samples")

// PercentileInterval returns a distribution-free confidence interval
// [lower, upper] of the p-th percentile (0 < p < 100) at confidence conf
// (0.95 for 95%): the order statistics at IntervalRanks, read from the
// latency's HDR histogram (within its 0.1% precision) and clamped into the
// exact [Min, Max].
func (l *Latency) PercentileInterval(p, conf float64) (lower, upper float64, err error) {
	if p <= 0 || p >= 100 || conf <= 0 || conf >= 1 {
		return 0, 0, fmt.Errorf("percentile interval: p %g and confidence %g must lie strictly between 0 and 100, and 0 and 1", p, conf)
	}
	if l.Count == 0 {
		return 0, 0, ErrNoSamples
	}
	h, err := l.DecodeHistogram()
	if err != nil {
		return 0, 0, err
	}
	lr, ur := IntervalRanks(l.Count, p/100, conf)
	bars := h.Distribution()
	at := func(rank int64) float64 {
		var cum int64
		for _, b := range bars {
			cum += b.Count
			if cum >= rank {
				v := float64(b.To) / histPerRep
				return min(max(v, l.Min), l.Max)
			}
		}
		return l.Max
	}
	return at(lr), at(ur), nil
}

// PercentileReader decodes the latency's histogram once and returns a
// function reading any percentile p (0 <= p <= 100) from it, as Percentile
// does (clamped into the exact [Min, Max]); for resampling many
// percentiles without decoding the histogram each time.
func (l *Latency) PercentileReader() (func(p float64) float64, error) {
	if l.Count == 0 {
		return nil, ErrNoSamples
	}
	h, err := l.DecodeHistogram()
	if err != nil {
		return nil, err
	}
	lo, hi := l.Min, l.Max
	return func(p float64) float64 { return percentileOf(h, min(max(p, 0), 100), lo, hi) }, nil
}
