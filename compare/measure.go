package compare

// The statistics of a comparison: each figure's delta and its 95% interval,
// by a seeded bootstrap of percentiles from the HDR histograms, Welch for
// means, per-window rates for throughputs, Agresti-Caffo for error rates,
// and the run-to-run spread of repeated runs.

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/llmload/llmload/metrics"
)

// Measure computes one figure's delta and interval, without judging it.
func Measure(base, cand *metrics.Summary, metric, stat string, opts Options) Delta {
	opts = opts.withDefaults()
	m, _ := metrics.Lookup(metric)
	d := Delta{Key: Key(metric, stat), Metric: metric, Stat: stat, Unit: m.Unit, Better: m.Better, Method: MethodNone}
	if metrics.IsAgreement(metric) {
		measureAgreement(&d, cand, opts)
		d.Change = change(d)
		return d
	}
	b, okB := base.Value(metric, stat)
	n, okN := cand.Value(metric, stat)
	if !okB || !okN {
		d.Missing = true
		d.Percent = math.NaN()
		return d
	}
	d.Base, d.New, d.Delta = b, n, n-b
	d.Percent = math.NaN()
	if b != 0 {
		d.Percent = 100 * d.Delta / math.Abs(b)
	}
	switch {
	case len(opts.BaseRuns) >= MinRuns && len(opts.NewRuns) >= MinRuns && measureRuns(&d, base, cand, opts):
	case m.Kind == metrics.Distribution:
		measureDist(&d, base, cand, base.LatencyOf(metric), cand.LatencyOf(metric), opts)
	case metric == "error_rate":
		measureErrorRate(&d, base, cand, opts)
	case isThroughput(metric):
		measureThroughput(&d, base, cand, opts)
	default:
		d.BaseSamples, d.NewSamples = int64(base.Completed+base.Failed), int64(cand.Completed+cand.Failed)
	}
	d.Change = change(d)
	return d
}

// change says which way the interval points.
func change(d Delta) string {
	lo, hi := d.Lower, d.Upper
	if !d.HasInterval {
		if d.Message != "" {
			return NoInterval // too few samples or windows
		}
		lo, hi = d.Delta, d.Delta
	}
	switch {
	case d.Better == metrics.Neither || (lo <= 0 && hi >= 0):
		return NoChange
	case (lo > 0) == (d.Better == metrics.LowerIsBetter):
		return Worse
	}
	return Better
}

func isThroughput(metric string) bool {
	m, _ := metrics.Lookup(metric)
	return m.Windowed
}

// z is the two-sided normal quantile of a confidence.
func z(conf float64) float64 { return math.Sqrt2 * math.Erfinv(conf) }

// measureDist: percentiles by bootstrap, the mean by Welch, other
// statistics without interval.
func measureDist(d *Delta, base, cand *metrics.Summary, lb, ln *metrics.Latency, o Options) {
	d.BaseSamples, d.NewSamples = lb.Count, ln.Count
	batched := latencySE(d.Metric, d.Stat)
	if d.Stat == "mean" {
		seB, seN := lb.Stddev/math.Sqrt(float64(lb.Count)), ln.Stddev/math.Sqrt(float64(ln.Count))
		se := math.Sqrt(seB*seB + seN*seN)
		d.Lower, d.Upper = d.Delta-z(o.Confidence)*se, d.Delta+z(o.Confidence)*se
		d.HasInterval, d.Method = true, MethodWelch
		widen(d, base, cand, seB, seN, batched, o.Confidence)
		return
	}
	p, ok := metrics.StatPercentile(d.Stat)
	if !ok {
		return
	}
	need := o.MinSamples
	if need == 0 {
		need = metrics.MinSamples(p)
	}
	if lb.Count < need || ln.Count < need {
		d.Message = fmt.Sprintf("%s rests on %d samples in the baseline and %d in the candidate; a %s comparison needs at least %d in each.",
			metrics.Title(d.Metric, d.Stat), lb.Count, ln.Count, metrics.StatTitle(d.Stat), need)
	}
	rb, err1 := lb.PercentileReader()
	rn, err2 := ln.PercentileReader()
	if err1 != nil || err2 != nil {
		return
	}
	rng := rand.New(rand.NewPCG(o.Seed, seedOf(d.Key)))
	diffs := make([]float64, o.Replicates)
	bs, ns := make([]float64, o.Replicates), make([]float64, o.Replicates)
	for i := range diffs {
		bs[i], ns[i] = rb(100*orderLevel(rng, lb.Count, p/100)), rn(100*orderLevel(rng, ln.Count, p/100))
		diffs[i] = ns[i] - bs[i]
	}
	slices.Sort(diffs)
	alpha := 1 - o.Confidence
	d.Lower, d.Upper = quantile(diffs, alpha/2), quantile(diffs, 1-alpha/2)
	d.HasInterval, d.Method = true, MethodBootstrap
	// Serial correlation: the batches' spread, when it is wider.
	widen(d, base, cand, SpreadOf(bs).SD, SpreadOf(ns).SD, batched, o.Confidence)
}

// orderLevel draws the level (0..1) at which the q-quantile of n samples
// falls: the k-th of n uniform order statistics, k = q(n+1), is
// Beta(k, n+1-k).
func orderLevel(r *rand.Rand, n int64, q float64) float64 {
	k := q * float64(n+1)
	k = min(max(k, 1), float64(n))
	return betaDraw(r, k, float64(n)+1-k)
}

func seedOf(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// quantile reads the q-quantile of sorted values (linear interpolation).
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	f := pos - float64(i)
	return sorted[i]*(1-f) + sorted[i+1]*f
}

// betaDraw draws from Beta(a, b) as X/(X+Y) of two gamma draws.
func betaDraw(r *rand.Rand, a, b float64) float64 {
	x, y := gammaDraw(r, a), gammaDraw(r, b)
	return x / (x + y)
}

// gammaDraw draws from Gamma(a, 1) (Marsaglia and Tsang, 2000).
func gammaDraw(r *rand.Rand, a float64) float64 {
	if a < 1 {
		return gammaDraw(r, a+1) * math.Pow(r.Float64(), 1/a)
	}
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// measureErrorRate: the Agresti-Caffo interval of p_new - p_base (one
// failure and one success added to each run).
func measureErrorRate(d *Delta, base, cand *metrics.Summary, o Options) {
	nb, nn := float64(base.Completed+base.Failed), float64(cand.Completed+cand.Failed)
	d.BaseSamples, d.NewSamples = int64(nb), int64(nn)
	pb, pn := (float64(base.Failed)+1)/(nb+2), (float64(cand.Failed)+1)/(nn+2)
	se := math.Sqrt(pb*(1-pb)/(nb+2) + pn*(1-pn)/(nn+2))
	c := pn - pb
	d.Lower, d.Upper = c-z(o.Confidence)*se, c+z(o.Confidence)*se
	d.HasInterval, d.Method = true, MethodProportion
}

// MinWindows is the fewest whole windows a throughput interval needs on
// each side.
const MinWindows = 3

// windowRates returns the per-window rates of a run's series (output
// tokens, or completions, per second), without the first and last windows
// (partial: the run started and ended inside them).
func windowRates(s *metrics.Summary, requests bool) []float64 {
	if s.Series == nil || s.Series.Interval <= 0 || len(s.Series.Windows) < 3 {
		return nil
	}
	ws := s.Series.Windows[1 : len(s.Series.Windows)-1]
	out := make([]float64, len(ws))
	for i, w := range ws {
		v := w.OutputTokens
		if requests {
			v = w.Completed
		}
		out[i] = float64(v) / float64(s.Series.Interval)
	}
	return out
}

// relSE is the relative standard error of the mean of the rates, and the
// variance of that relative estimate's numerator for Welch's degrees of
// freedom.
func relSE(rates []float64) (rel float64, ok bool) {
	n := float64(len(rates))
	var mean float64
	for _, r := range rates {
		mean += r
	}
	mean /= n
	if mean <= 0 {
		return 0, false
	}
	var ss float64
	for _, r := range rates {
		ss += (r - mean) * (r - mean)
	}
	sd := math.Sqrt(ss / (n - 1))
	return sd / math.Sqrt(n) / mean, true
}

// measureThroughput: a Welch t-interval around the delta, from the
// relative spread of the per-window rates (output tokens for token
// throughputs, completions for request ones) scaled to each run's figure.
func measureThroughput(d *Delta, base, cand *metrics.Summary, o Options) {
	requests := d.Metric == "request_throughput" || d.Metric == "request_goodput"
	rb, rn := windowRates(base, requests), windowRates(cand, requests)
	d.BaseSamples, d.NewSamples = int64(len(rb)), int64(len(rn))
	if len(rb) < MinWindows || len(rn) < MinWindows {
		d.Message = fmt.Sprintf("%s rests on %d whole time-series windows in the baseline and %d in the candidate; an interval needs at least %d in each (a longer run).",
			metrics.Title(d.Metric, ""), len(rb), len(rn), MinWindows)
		return
	}
	relB, ok1 := relSE(rb)
	relN, ok2 := relSE(rn)
	if !ok1 || !ok2 {
		d.Message = fmt.Sprintf("%s: a run has no throughput in its windows.", metrics.Title(d.Metric, ""))
		return
	}
	vb, vn := math.Pow(relB*d.Base, 2), math.Pow(relN*d.New, 2)
	se := math.Sqrt(vb + vn)
	// Welch-Satterthwaite degrees of freedom.
	df := math.Pow(vb+vn, 2) / (vb*vb/float64(len(rb)-1) + vn*vn/float64(len(rn)-1))
	if math.IsNaN(df) || df <= 0 {
		df = float64(len(rb) + len(rn) - 2)
	}
	t := tQuantile(o.Confidence, df)
	d.Lower, d.Upper = d.Delta-t*se, d.Delta+t*se
	d.HasInterval, d.Method = true, MethodWindows
	// Serial correlation: batch means of the windows, when wider. The
	// batches' rates are scaled to the run's own figure, as the windows'
	// relative spread is.
	batched := func(s *metrics.Summary, _ float64) (float64, float64, bool) {
		br := batchRates(s, requests)
		fig, ok := s.Value(d.Metric, "")
		mean := SpreadOf(windowRates(s, requests)).Mean
		if br == nil || !ok || mean <= 0 {
			return 0, 0, false
		}
		for i := range br {
			br[i] *= fig / mean
		}
		se, df := batchSE(br)
		return se, df, true
	}
	widen(d, base, cand, math.Sqrt(vb), math.Sqrt(vn), batched, o.Confidence)
}

// tQuantile is the two-sided Student t quantile for df degrees of freedom
// (gonum's inverse of the regularized incomplete beta: exact, also at the
// extreme confidences of a sequential gate's early looks).
func tQuantile(conf, df float64) float64 {
	if df <= 0 {
		return math.Inf(1)
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile((1 + conf) / 2)
}

// measureRuns: Welch's t-interval over the per-run values of each side,
// around the delta of the pooled figures. Each run's figure is one draw
// of what a run of that system measures (its drift included), so the
// spread of those draws over n runs estimates the standard error of
// their mean, which the pooled figure approximates. It returns false
// (leaving d to the within-run methods) when a run lacks the figure or
// the runs show no spread at all (a zero-width interval would decide
// anything).
func measureRuns(d *Delta, base, cand *metrics.Summary, o Options) bool {
	vb, okB := runValues(o.BaseRuns, d.Metric, d.Stat)
	vn, okN := runValues(o.NewRuns, d.Metric, d.Stat)
	if !okB || !okN {
		return false
	}
	d.BaseSamples, d.NewSamples = int64(len(vb)), int64(len(vn))
	if m, _ := metrics.Lookup(d.Metric); m.Kind == metrics.Distribution {
		if p, ok := metrics.StatPercentile(d.Stat); ok {
			need := o.MinSamples
			if need == 0 {
				need = metrics.MinSamples(p)
			}
			lb, ln := base.LatencyOf(d.Metric), cand.LatencyOf(d.Metric)
			if lb.Count < need || ln.Count < need {
				d.Message = fmt.Sprintf("%s rests on %d pooled samples in the baseline and %d in the candidate; a %s comparison needs at least %d in each.",
					metrics.Title(d.Metric, d.Stat), lb.Count, ln.Count, metrics.StatTitle(d.Stat), need)
				return true
			}
		}
	}
	scale := o.baseScale
	if scale == 0 {
		scale = 1
	}
	if o.Paired && len(vb) == len(vn) {
		diffs := make([]float64, len(vb))
		for i := range vb {
			diffs[i] = vn[i] - scale*vb[i]
		}
		se := SpreadOf(diffs).SD / math.Sqrt(float64(len(diffs)))
		if se == 0 || math.IsNaN(se) {
			if isThroughput(d.Metric) {
				// An arm's windows have the other arm's blocks cut out of
				// them: no within-run method for a throughput.
				d.Message = fmt.Sprintf("%s moved by exactly as much in every block: no spread to judge by.", metrics.Title(d.Metric, d.Stat))
				return true
			}
			// Every block moved by exactly as much (no errors in any, say):
			// no spread to judge by, so the within-run methods judge.
			d.BaseSamples, d.NewSamples = 0, 0
			return false
		}
		t := tQuantile(o.Confidence, float64(len(diffs)-1))
		d.Lower, d.Upper = d.Delta-t*se, d.Delta+t*se
		d.HasInterval, d.Method = true, MethodBlocks
		return true
	}
	sb, sn := SpreadOf(vb), SpreadOf(vn)
	varB, varN := scale*scale*sb.SD*sb.SD/float64(len(vb)), sn.SD*sn.SD/float64(len(vn))
	se := math.Sqrt(varB + varN)
	if se == 0 || math.IsNaN(se) {
		// The runs all agree on both sides: no spread to judge by.
		d.BaseSamples, d.NewSamples = 0, 0
		return false
	}
	// Welch-Satterthwaite; a side whose runs all agree adds nothing.
	den := 0.0
	if varB > 0 {
		den += varB * varB / float64(len(vb)-1)
	}
	if varN > 0 {
		den += varN * varN / float64(len(vn)-1)
	}
	df := math.Pow(varB+varN, 2) / den
	t := tQuantile(o.Confidence, max(df, 1))
	d.Lower, d.Upper = d.Delta-t*se, d.Delta+t*se
	d.HasInterval, d.Method = true, MethodRuns
	return true
}

// runValues reads a figure from every run; false when a run lacks it.
func runValues(runs []*metrics.Summary, metric, stat string) ([]float64, bool) {
	out := make([]float64, 0, len(runs))
	for _, r := range runs {
		if r == nil {
			return nil, false
		}
		v, ok := r.Value(metric, stat)
		if !ok || math.IsNaN(v) {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}

// Spread describes one figure over repeated runs: the median of the runs'
// values, their range, mean, sample standard deviation and coefficient of
// variation (SD over the mean; NaN when the mean is 0).
type Spread struct {
	Values                     []float64
	Median, Min, Max, Mean, SD float64
	CV                         float64
}

// SpreadOf computes the spread of values (at least one).
func SpreadOf(values []float64) Spread {
	s := Spread{Values: values, CV: math.NaN()}
	if len(values) == 0 {
		s.Median, s.Min, s.Max, s.Mean, s.SD = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
		return s
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	s.Min, s.Max = sorted[0], sorted[len(sorted)-1]
	s.Median = quantile(sorted, 0.5)
	for _, v := range values {
		s.Mean += v
	}
	s.Mean /= float64(len(values))
	if len(values) > 1 {
		var ss float64
		for _, v := range values {
			ss += (v - s.Mean) * (v - s.Mean)
		}
		s.SD = math.Sqrt(ss / float64(len(values)-1))
	}
	if s.Mean != 0 {
		s.CV = s.SD / math.Abs(s.Mean)
	}
	return s
}

// RunSpread is a figure's spread over repeated runs; false when a run
// lacks it.
func RunSpread(runs []*metrics.Summary, metric, stat string) (Spread, bool) {
	v, ok := runValues(runs, metric, stat)
	if !ok || len(v) == 0 {
		return Spread{}, false
	}
	return SpreadOf(v), true
}

// measureAgreement: an agreement figure is the candidate's against its
// baseline, prompt by prompt, so the baseline's own value is 1 (a run
// agrees with itself) and the interval is the figure's Wilson interval
// over the paired prompts (metrics.Agreement.Figure), whatever the
// repeats: the pairs, not the runs, are the samples.
func measureAgreement(d *Delta, cand *metrics.Summary, o Options) {
	d.Percent = math.NaN()
	a := cand.Agreement
	v, lo, hi, n, ok := a.Figure(d.Metric, o.Confidence)
	if !ok {
		d.Missing = true
		switch {
		case a == nil:
			d.Message = fmt.Sprintf("%s was not measured: no answers were paired with the baseline's (a result without its requests file beside it, on either side, or a run that is neither an A/B run nor against a stored baseline).", metrics.Title(d.Metric, ""))
		case a.Sampled:
			d.Message = fmt.Sprintf("%s is not judged: the requests sample (temperature above 0, no seed), so the same prompt need not get the same answer.", metrics.Title(d.Metric, ""))
		default:
			d.Message = fmt.Sprintf("%s was not measured: no prompt was answered on both sides with texts kept to score (outputs { keep }).", metrics.Title(d.Metric, ""))
		}
		return
	}
	d.Base, d.New, d.Delta = 1, v, v-1
	d.Percent = 100 * d.Delta
	d.BaseSamples, d.NewSamples = int64(n), int64(n)
	// The interval holds the figure itself, whatever the rounding.
	d.Lower, d.Upper = min(lo, v)-1, max(hi, v)-1
	d.HasInterval, d.Method = true, MethodWilson
}
