package compare

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/llmload/llmload/metrics"
)

// Verdicts of a judged figure.
const (
	Pass         = "pass"
	Fail         = "fail"
	Inconclusive = "inconclusive"
)

// Changes of a figure without a tolerance: what its interval says.
const (
	Worse    = "worse"
	Better   = "better"
	NoChange = "no change" // the interval holds 0
	// NoInterval: too few samples or windows for an interval.
	NoInterval = "no interval"
)

// Methods of an interval.
const (
	MethodBootstrap  = "bootstrap"     // percentiles, from the histograms
	MethodWelch      = "welch"         // means
	MethodWindows    = "windows"       // throughputs, from the time series
	MethodProportion = "agresti-caffo" // the error rate
	MethodNone       = "none"          // no interval (max, min, counts)
	// MethodRuns: from the spread of the figure over each side's repeated
	// runs (both sides have repeats).
	MethodRuns = "runs"
	// MethodBlocks: from the per-block differences of an interleaved A/B
	// run (paired: block k of one arm against block k of the other).
	MethodBlocks = "blocks"
)

// MinRuns is the fewest repeated runs per side for the run-to-run method.
const MinRuns = 2

// Options tune a comparison.
type Options struct {
	// Confidence of the intervals (default metrics.DefaultConfidence).
	Confidence float64
	// Replicates of the bootstrap (default 4000) and its seed (default 1).
	Replicates int
	Seed       uint64
	// MinSamples, when set, replaces a percentile's minimum samples per
	// run (metrics.MinSamples: 1,000 for P99).
	MinSamples int64
	// BaseRuns and NewRuns are each side's repeated runs (repeat = N),
	// whose pooled summaries are the base and candidate. When both sides
	// have at least MinRuns, every figure's interval comes from the
	// run-to-run spread (MethodRuns) instead of the variation within one
	// run, so that drift between runs (a busier machine, another boot of
	// the server) is inside it.
	BaseRuns, NewRuns []*metrics.Summary
	// Paired says BaseRuns[k] and NewRuns[k] ran under the same conditions
	// (block k of an interleaved A/B run): the interval then comes from
	// the spread of the per-block differences (MethodBlocks), in which
	// drift common to both arms cancels.
	Paired bool
}

func (o Options) withDefaults() Options {
	if o.Confidence <= 0 || o.Confidence >= 1 {
		o.Confidence = metrics.DefaultConfidence
	}
	if o.Replicates <= 0 {
		o.Replicates = 4000
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	return o
}

// Delta is one figure of the comparison.
type Delta struct {
	Key    string // "ttft_p99", "output_throughput"
	Metric string
	Stat   string
	Unit   string
	Better metrics.Direction
	// Base and New are the two runs' values; Delta is New - Base and
	// Percent is Delta / Base (NaN when Base is 0).
	Base, New, Delta, Percent float64
	// Lower and Upper bound Delta with the chosen confidence; HasInterval
	// is false when the method gives none (Method MethodNone).
	Lower, Upper float64
	HasInterval  bool
	Method       string
	// Samples are what each side rests on (samples of a distribution,
	// windows of a throughput, requests of the error rate).
	BaseSamples, NewSamples int64
	// Tolerance is the rule the figure was judged by (nil: not judged) and
	// Limit the delta it allows, in the metric's unit, in its worse
	// direction (a positive number).
	Tolerance *Tolerance
	Limit     float64
	// Verdict is Pass, Fail or Inconclusive for a judged figure, "" for
	// the others; Change says which way the interval points (Worse,
	// Better, NoChange). Message says why a verdict is not a pass.
	Verdict string
	Change  string
	Message string
	// Missing is set when either run lacks the figure (no samples): the
	// row says so and, judged, is inconclusive.
	Missing bool
}

// PercentInterval is the interval of the delta as percentages of the base
// (NaN when the base is 0 or there is no interval).
func (d Delta) PercentInterval() (lo, hi float64) {
	if !d.HasInterval || d.Base == 0 {
		return math.NaN(), math.NaN()
	}
	return 100 * d.Lower / math.Abs(d.Base), 100 * d.Upper / math.Abs(d.Base)
}

// Row names one figure of a comparison table.
type Row struct{ Metric, Stat string }

// DefaultRows are the figures `llmload compare` shows: the latency
// percentiles, the throughputs, goodput and the error rate.
var DefaultRows = []Row{
	{"ttft", "p50"}, {"ttft", "p90"}, {"ttft", "p99"}, {"ttft", "mean"},
	{"itl", "p50"}, {"itl", "p99"},
	{"tpot", "p50"}, {"tpot", "p99"},
	{"e2el", "p50"}, {"e2el", "p99"},
	{"output_throughput", ""}, {"request_throughput", ""}, {"total_token_throughput", ""},
	{"request_goodput", ""}, {"error_rate", ""},
}

// Key renders a row's key: "ttft_p99", "output_throughput".
func Key(metric, stat string) string {
	if stat == "" {
		return metric
	}
	return metric + "_" + stat
}

// Compare computes the rows (DefaultRows when nil) and every tolerance's
// figure, judging the figures that have a tolerance.
func Compare(base, cand *metrics.Summary, rows []Row, tols []Tolerance, opts Options) []Delta {
	if rows == nil {
		rows = DefaultRows
	}
	var out []Delta
	seen := map[string]bool{}
	for _, r := range rows {
		key := Key(r.Metric, r.Stat)
		i := slices.IndexFunc(tols, func(t Tolerance) bool { return t.Key == key || (t.Metric == r.Metric && t.Stat == r.Stat) })
		if i >= 0 {
			out = append(out, Judge(base, cand, tols[i], opts))
		} else {
			out = append(out, Measure(base, cand, r.Metric, r.Stat, opts))
		}
		seen[key] = true
	}
	for _, t := range tols {
		if !seen[Key(t.Metric, t.Stat)] {
			out = append(out, Judge(base, cand, t, opts))
		}
	}
	return out
}

// Verdict is the comparison's verdict: Fail when any figure failed, else
// Inconclusive when any was inconclusive, else Pass.
func Verdict(ds []Delta) string {
	v := Pass
	for _, d := range ds {
		switch d.Verdict {
		case Fail:
			return Fail
		case Inconclusive:
			v = Inconclusive
		}
	}
	return v
}

// Judge measures the tolerance's figure and judges it.
func Judge(base, cand *metrics.Summary, t Tolerance, opts Options) Delta {
	d := Measure(base, cand, t.Metric, t.Stat, opts)
	d.Key = t.Key
	tol := t
	d.Tolerance = &tol
	d.Limit = t.Fraction * math.Abs(d.Base)
	if t.Absolute() {
		d.Limit = t.Fraction
	}
	name := metrics.Title(t.Metric, t.Stat)
	allowed := "+" + Percent(t.Fraction)
	if t.Absolute() {
		allowed = "+" + Percent(t.Fraction) + " points"
	}
	switch {
	case d.Missing:
		d.Verdict = Inconclusive
		if d.Message == "" {
			d.Message = fmt.Sprintf("%s is missing from a run, so %s cannot be judged.", name, t)
		}
		return d
	case d.Message != "":
		// too few samples or windows
		d.Verdict = Inconclusive
		return d
	}
	// worse: the delta in the worse direction, and its interval.
	sign := 1.0
	if d.Better == metrics.HigherIsBetter {
		sign = -1
	}
	w := sign * d.Delta
	wLo, wHi := sign*d.Lower, sign*d.Upper
	if wLo > wHi {
		wLo, wHi = wHi, wLo
	}
	change := describe(d)
	switch {
	case !d.HasInterval:
		// No interval exists for this statistic: judged on the point.
		d.Verdict = Pass
		if w > d.Limit {
			d.Verdict = Fail
			d.Message = fmt.Sprintf("%s %s, beyond the %s tolerance (judged on the point: %s has no interval).", name, change, allowed, metrics.StatTitle(t.Stat))
		}
	case wLo > d.Limit:
		d.Verdict = Fail
		d.Message = fmt.Sprintf("%s %s; its whole %s interval lies beyond the %s tolerance.", name, change, confidence(opts), allowed)
	case wHi <= d.Limit:
		d.Verdict = Pass
	default:
		d.Verdict = Inconclusive
		more := "more samples (or repeats)"
		switch d.Method {
		case MethodRuns:
			more = "more runs"
		case MethodBlocks:
			more = "more blocks"
		}
		d.Message = fmt.Sprintf("%s %s; its %s interval straddles the %s tolerance: %s would decide.", name, change, confidence(opts), allowed, more)
	}
	return d
}

func confidence(o Options) string {
	return fmt.Sprintf("%g%%", 100*o.withDefaults().Confidence)
}

// describe renders a delta for messages: "rose 30.2% (95% interval
// +27.1% to +33.0%)", "fell 4.1 tok/s".
func describe(d Delta) string {
	verb := "rose"
	if d.Delta < 0 {
		verb = "fell"
	}
	if d.Delta == 0 {
		verb = "did not change"
	}
	s := verb
	switch {
	case d.Unit == "fraction":
		s += fmt.Sprintf(" from %s to %s", metrics.Format(d.Metric, d.Stat, d.Base), metrics.Format(d.Metric, d.Stat, d.New))
	case d.Base != 0 && d.Delta != 0:
		s += fmt.Sprintf(" %.1f%% (%s to %s)", math.Abs(100*d.Delta/d.Base), metrics.Format(d.Metric, d.Stat, d.Base), metrics.Format(d.Metric, d.Stat, d.New))
	case d.Delta != 0:
		s += " by " + metrics.Format(d.Metric, d.Stat, math.Abs(d.Delta))
	}
	if d.HasInterval {
		if lo, hi := d.PercentInterval(); !math.IsNaN(lo) && d.Unit != "fraction" {
			s += fmt.Sprintf(" (interval %+.1f%% to %+.1f%%)", lo, hi)
		} else {
			s += fmt.Sprintf(" (interval %s to %s)", signed(d, d.Lower), signed(d, d.Upper))
		}
	}
	return s
}

func signed(d Delta, v float64) string {
	s := metrics.Format(d.Metric, d.Stat, math.Abs(v))
	if v < 0 {
		return "-" + s
	}
	return "+" + s
}

// Measure computes one figure's delta and interval, without judging it.
func Measure(base, cand *metrics.Summary, metric, stat string, opts Options) Delta {
	opts = opts.withDefaults()
	m, _ := metrics.Lookup(metric)
	d := Delta{Key: Key(metric, stat), Metric: metric, Stat: stat, Unit: m.Unit, Better: m.Better, Method: MethodNone}
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
		measureDist(&d, base.LatencyOf(metric), cand.LatencyOf(metric), opts)
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
	switch metric {
	case "output_throughput", "request_throughput", "total_token_throughput", "request_goodput", "token_goodput":
		return true
	}
	return false
}

// z is the two-sided normal quantile of a confidence.
func z(conf float64) float64 { return math.Sqrt2 * math.Erfinv(conf) }

// measureDist: percentiles by bootstrap, the mean by Welch, other
// statistics without interval.
func measureDist(d *Delta, lb, ln *metrics.Latency, o Options) {
	d.BaseSamples, d.NewSamples = lb.Count, ln.Count
	if d.Stat == "mean" {
		se := math.Sqrt(lb.Stddev*lb.Stddev/float64(lb.Count) + ln.Stddev*ln.Stddev/float64(ln.Count))
		d.Lower, d.Upper = d.Delta-z(o.Confidence)*se, d.Delta+z(o.Confidence)*se
		d.HasInterval, d.Method = true, MethodWelch
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
	for i := range diffs {
		diffs[i] = rn(100*orderLevel(rng, ln.Count, p/100)) - rb(100*orderLevel(rng, lb.Count, p/100))
	}
	slices.Sort(diffs)
	alpha := 1 - o.Confidence
	d.Lower, d.Upper = quantile(diffs, alpha/2), quantile(diffs, 1-alpha/2)
	d.HasInterval, d.Method = true, MethodBootstrap
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
}

// tQuantile is the two-sided Student t quantile for df degrees of freedom
// (the Cornish-Fisher expansion around the normal quantile; within 1% of
// the exact value from 3 degrees of freedom up; exact at 1 and 2).
func tQuantile(conf, df float64) float64 {
	// Exact for 1 and 2 degrees of freedom (two runs or blocks per side),
	// where the expansion is too narrow.
	p := (1 + conf) / 2
	switch {
	case df <= 1:
		return math.Tan(math.Pi * (p - 0.5))
	case df == 2:
		return (2*p - 1) / math.Sqrt(2*p*(1-p))
	}
	x := z(conf)
	x3, x5, x7 := x*x*x, x*x*x*x*x, x*x*x*x*x*x*x
	return x + (x3+x)/(4*df) + (5*x5+16*x3+3*x)/(96*df*df) + (3*x7+19*x5+17*x3-15*x)/(384*df*df*df)
}

// measureRuns: Welch's t-interval over the per-run values of each side,
// around the delta of the pooled figures. Each run's figure is one draw
// of what a run of that system measures (its drift included), so the
// spread of those draws over n runs estimates the standard error of
// their mean, which the pooled figure approximates. It returns false
// (leaving d to the within-run methods) when a run lacks the figure.
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
	if o.Paired && len(vb) == len(vn) {
		diffs := make([]float64, len(vb))
		for i := range vb {
			diffs[i] = vn[i] - vb[i]
		}
		se := SpreadOf(diffs).SD / math.Sqrt(float64(len(diffs)))
		t := tQuantile(o.Confidence, float64(len(diffs)-1))
		d.Lower, d.Upper = d.Delta-t*se, d.Delta+t*se
		d.HasInterval, d.Method = true, MethodBlocks
		return true
	}
	sb, sn := SpreadOf(vb), SpreadOf(vn)
	varB, varN := sb.SD*sb.SD/float64(len(vb)), sn.SD*sn.SD/float64(len(vn))
	se := math.Sqrt(varB + varN)
	df := float64(len(vb) + len(vn) - 2)
	if varB+varN > 0 {
		// Welch-Satterthwaite; a side whose runs all agree adds nothing.
		den := 0.0
		if varB > 0 {
			den += varB * varB / float64(len(vb)-1)
		}
		if varN > 0 {
			den += varN * varN / float64(len(vn)-1)
		}
		df = math.Pow(varB+varN, 2) / den
	}
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
