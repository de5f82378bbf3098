package compare

// Serial correlation. A queue that builds and drains makes neighbouring
// requests' latencies alike, so a run's samples are not independent draws
// and an interval that treats them as such is too narrow. Batch means
// (batch quantiles for percentiles) hold under correlation: the run's
// time series is cut into B batches of consecutive windows, the figure is
// read in each batch, and the spread of the B values over sqrt(B) is the
// standard error of the run's figure, as long as a batch is longer than
// the queue's memory. A within-run interval is widened to it whenever it
// is wider than the independent one.

import (
	"math"

	"github.com/llmload/llmload/metrics"
)

// Batches is how many batches of consecutive windows a run is cut into,
// and MinBatches the fewest the batch method uses (fewer windows: the
// independent interval alone, as the table's method says).
const (
	Batches    = 10
	MinBatches = 5
)

// batchCount is how many batches n windows make: Batches, or fewer of at
// least two windows each; 0 below MinBatches.
func batchCount(n int) int {
	b := min(Batches, n/2)
	if b < MinBatches {
		return 0
	}
	return b
}

// batchLatencies reads a distribution's statistic in each batch of a
// run's windows (only TTFT and ITL have per-window histograms). A
// percentile needs 5/(1-q) samples in every batch (50 for P90, 500 for
// P99). ok is false when the run cannot be batched.
func batchLatencies(s *metrics.Summary, metric, stat string) ([]float64, bool) {
	if s == nil || s.Series == nil || (metric != "ttft" && metric != "itl") {
		return nil, false
	}
	ws := s.Series.Windows
	b := batchCount(len(ws))
	if b == 0 {
		return nil, false
	}
	need := int64(2)
	if p, ok := metrics.StatPercentile(stat); ok {
		need = int64(math.Ceil(5 / (1 - p/100)))
	}
	out := make([]float64, 0, b)
	for i := range b {
		lo, hi := i*len(ws)/b, (i+1)*len(ws)/b
		ls := make([]metrics.Latency, 0, hi-lo)
		for _, w := range ws[lo:hi] {
			if metric == "itl" {
				ls = append(ls, w.ITL)
			} else {
				ls = append(ls, w.TTFT)
			}
		}
		v, n, err := metrics.PooledStat(ls, stat)
		if err != nil || n < need {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}

// batchRates are the per-batch rates of a run's windows (output tokens,
// or completions, per second), without the first and last windows; nil
// when there are too few windows to batch.
func batchRates(s *metrics.Summary, requests bool) []float64 {
	rates := windowRates(s, requests)
	b := batchCount(len(rates))
	if b == 0 {
		return nil
	}
	out := make([]float64, b)
	for i := range b {
		lo, hi := i*len(rates)/b, (i+1)*len(rates)/b
		var sum float64
		for _, r := range rates[lo:hi] {
			sum += r
		}
		out[i] = sum / float64(hi-lo)
	}
	return out
}

// batchSE is the standard error of a run's figure from its batch values,
// with its degrees of freedom.
func batchSE(values []float64) (se, df float64) {
	sp := SpreadOf(values)
	return sp.SD / math.Sqrt(float64(len(values))), float64(len(values) - 1)
}

// batchedSE is a run's standard error of a figure under correlation,
// from batches: the batch values' spread over sqrt(B), with B-1 degrees
// of freedom; ok false when the run cannot be batched.
type batchedSE func(s *metrics.Summary, seIndependent float64) (se, df float64, ok bool)

// latencySE is batchedSE for a distribution's statistic: the larger of
// the batch quantiles' (or batch means') standard error and the
// independent one scaled by the variance inflation the batch means show
// (an effective sample size: n times the independent variance of the
// mean over the batches' variance of it), which holds for a tail
// percentile when its batch values, each read from a tenth of the run,
// are too coarse to show it.
func latencySE(metric, stat string) batchedSE {
	return func(s *metrics.Summary, seIndependent float64) (float64, float64, bool) {
		v, ok := batchLatencies(s, metric, stat)
		if !ok {
			return 0, 0, false
		}
		se, df := batchSE(v)
		if stat == "mean" {
			return se, df, true
		}
		l := s.LatencyOf(metric)
		means, ok := batchLatencies(s, metric, "mean")
		if !ok || l == nil || l.Count < 2 || l.Stddev <= 0 {
			return se, df, true
		}
		meanSE, _ := batchSE(means)
		inflation := meanSE / (l.Stddev / math.Sqrt(float64(l.Count)))
		return max(se, seIndependent*inflation), df, true
	}
}

// widen widens d's interval, of per-side standard errors seB and seN
// (the independent method's), to the batches' when either is wider: the
// interval becomes the delta plus or minus Student's t (Welch-Satterthwaite
// degrees of freedom over the batches) times the combined standard error.
// It returns false when neither side's batches are wider.
func widen(d *Delta, base, cand *metrics.Summary, seB, seN float64, batched batchedSE, conf float64) bool {
	side := func(s *metrics.Summary, se float64) (float64, float64, bool) {
		bse, df, ok := batched(s, se)
		if !ok || bse <= se {
			return se, math.Inf(1), false
		}
		return bse, df, true
	}
	sb, dfb, wb := side(base, seB)
	sn, dfn, wn := side(cand, seN)
	if !wb && !wn {
		return false
	}
	vb, vn := sb*sb, sn*sn
	se := math.Sqrt(vb + vn)
	den := 0.0
	if !math.IsInf(dfb, 1) {
		den += vb * vb / dfb
	}
	if !math.IsInf(dfn, 1) {
		den += vn * vn / dfn
	}
	t := tQuantile(conf, math.Pow(vb+vn, 2)/den)
	d.Lower, d.Upper = d.Delta-t*se, d.Delta+t*se
	d.Method = MethodBatches
	return true
}
