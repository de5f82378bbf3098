package compare

import (
	"fmt"
	"math"
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
	// MethodWilson: an agreement figure's Wilson interval over the
	// prompts paired with the baseline's (the baseline's own value is 1).
	MethodWilson = "wilson"
	MethodNone   = "none" // no interval (max, min, counts)
	// MethodRuns: from the spread of the figure over each side's repeated
	// runs (both sides have repeats).
	MethodRuns = "runs"
	// MethodBlocks: from the per-block differences of an interleaved A/B
	// run (paired: block k of one arm against block k of the other).
	MethodBlocks = "blocks"
	// MethodBatches: a within-run interval widened to the spread of the
	// figure over batches of consecutive windows, which serial
	// correlation (a queue) made wider than the independent method's.
	MethodBatches = "batches"
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
	// baseScale is set by Judge for a relative tolerance judged over
	// runs or blocks: 1 + f for a figure that regresses upwards, 1 - f
	// for one that regresses downwards. The interval's spread is then
	// that of c - scale*b, whose sign is the tolerance's test (c beyond
	// b by more than f), so the ratio's own noise is inside it.
	baseScale float64
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
// percentiles, the throughputs, goodput and the error rate, as the
// catalogue marks them (metrics.Metric.Compare).
var DefaultRows = defaultRows()

func defaultRows() []Row {
	var rows []Row
	for _, f := range metrics.CompareRows() {
		rows = append(rows, Row{f.Metric, f.Stat})
	}
	return rows
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

// Verdict is the comparison's verdict from the one judge (metrics.Judge)
// over its figures' verdicts: Fail when any figure failed, else
// Inconclusive when any was inconclusive, else Pass.
func Verdict(ds []Delta) string {
	checks := make([]metrics.Check, 0, len(ds))
	for _, d := range ds {
		if d.Verdict != "" {
			checks = append(checks, metrics.Check{Name: d.Key, Verdict: d.Verdict})
		}
	}
	// A comparison has no requests of its own: Completed -1 skips that rule.
	return metrics.Judge(metrics.Judging{Completed: -1, Checks: checks}).Verdict
}

// Judge measures the tolerance's figure and judges it.
func Judge(base, cand *metrics.Summary, t Tolerance, opts Options) Delta {
	if m, _ := metrics.Lookup(t.Metric); !t.Absolute() {
		opts.baseScale = 1 + t.Fraction
		if m.Better == metrics.HigherIsBetter {
			opts.baseScale = 1 - t.Fraction
		}
	}
	d := Measure(base, cand, t.Metric, t.Stat, opts)
	d.Key = t.Key
	tol := t
	d.Tolerance = &tol
	d.Limit = t.Fraction * math.Abs(d.Base)
	if t.Absolute() {
		d.Limit = t.Fraction
	}
	name := metrics.Title(t.Metric, t.Stat)
	allowed := Allowed(t, d.Better)
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

// Allowed renders how far a tolerance lets a figure move in its worse
// direction: "+10%" for a latency, "-5%" for a throughput, "-20% points"
// for a share that may fall 20 points.
func Allowed(t Tolerance, better metrics.Direction) string {
	s := "+"
	if better == metrics.HigherIsBetter {
		s = "-"
	}
	s += Percent(t.Fraction)
	if t.Absolute() {
		s += " points"
	}
	return s
}

func confidence(o Options) string {
	return FormatConfidence(o.withDefaults().Confidence)
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
