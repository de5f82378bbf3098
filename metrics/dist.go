package metrics

import (
	"fmt"
	"math"
	"math/bits"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram geometry. Every histogram counts in units of 1/1000 of the
// reported unit: microseconds for latencies (reported in milliseconds) and
// milli-tokens per second for user TPS (reported in tokens per second).
const (
	// HistogramMax is the largest value a histogram holds, in histogram
	// units (one hour in microseconds). Larger values are clamped to it and
	// counted in Latency.Outliers.
	HistogramMax = int64(time.Hour / time.Microsecond)
	// HistogramDigits is the histograms' precision in significant digits.
	HistogramDigits = 3

	rawPerHist   = 1000 // raw units (ns, micro-tok/s) per histogram unit
	rawPerReport = 1e6  // raw units per reported unit (ms, tok/s)
	tpsScale     = 1e6  // user TPS raw unit: micro-tokens per second
	tokenScale   = 1e6  // token-count raw unit: micro-tokens
	histPerRep   = 1e3  // histogram units per reported unit
	encodeFormat = hdrhistogram.V2CompressedEncodingCookieBase
)

// newHistogram returns an empty histogram with the recorder's geometry.
func newHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(1, HistogramMax, HistogramDigits)
}

// u128 is an unsigned 128-bit accumulator, so sums of squares of
// nanosecond values stay exact and merges stay exact.
type u128 struct{ hi, lo uint64 }

func (u *u128) add(x u128) {
	var carry uint64
	u.lo, carry = bits.Add64(u.lo, x.lo, 0)
	u.hi, _ = bits.Add64(u.hi, x.hi, carry)
}

func (u u128) float() float64 { return float64(u.hi)*(1<<64) + float64(u.lo) }

func square(v uint64) u128 {
	hi, lo := bits.Mul64(v, v)
	return u128{hi, lo}
}

// dist is one distribution: an HDR histogram for percentiles and exact
// integer sums for count, mean, stddev, min and max. Values are raw units
// (nanoseconds, or micro-tokens per second).
type dist struct {
	h          *hdrhistogram.Histogram
	n          int64
	sum, sumSq u128
	min, max   int64
	outliers   int64
}

func newDist() *dist { return &dist{h: newHistogram()} }

// add records one raw value. A negative value (a clock or caller bug) is
// recorded as 0 and counted as an outlier; a value past the histogram's
// range is clamped in the histogram only, counted as an outlier, and kept
// exactly in the sums, min and max.
func (d *dist) add(raw int64) {
	if raw < 0 {
		raw = 0
		d.outliers++
	}
	hv := (raw + rawPerHist/2) / rawPerHist
	if hv > HistogramMax {
		hv = HistogramMax
		d.outliers++
	}
	// hv is within the histogram's range, so RecordValue cannot fail.
	_ = d.h.RecordValue(hv)
	if d.n == 0 || raw < d.min {
		d.min = raw
	}
	if d.n == 0 || raw > d.max {
		d.max = raw
	}
	d.n++
	d.sum.add(u128{lo: uint64(raw)})
	d.sumSq.add(square(uint64(raw)))
}

// latency summarises the distribution in reported units.
func (d *dist) latency() Latency {
	if d.n == 0 {
		return Latency{}
	}
	l := Latency{
		Count:    d.n,
		Min:      float64(d.min) / rawPerReport,
		Max:      float64(d.max) / rawPerReport,
		Sum:      d.sum.float() / rawPerReport,
		SumSq:    d.sumSq.float() / (rawPerReport * rawPerReport),
		Outliers: d.outliers,
	}
	fillFromSums(&l)
	fillFromHistogram(&l, d.h)
	return l
}

// fillFromSums sets Mean and Stddev (population, as numpy's std that vLLM
// uses) from Count, Sum and SumSq.
func fillFromSums(l *Latency) {
	n := float64(l.Count)
	l.Mean = l.Sum / n
	l.Stddev = math.Sqrt(max(0, l.SumSq/n-l.Mean*l.Mean))
}

// fillFromHistogram sets the percentiles and the encoded histogram. A
// percentile is the HDR value (the highest value equivalent to the sample
// at that rank) clamped to the exact [Min, Max].
func fillFromHistogram(l *Latency, h *hdrhistogram.Histogram) {
	at := func(p float64) float64 { return percentileOf(h, p, l.Min, l.Max) }
	l.P50, l.P90, l.P95, l.P99, l.P999 = at(50), at(90), at(95), at(99), at(99.9)
	enc, err := h.Encode(encodeFormat)
	if err != nil {
		// Encoding into memory fails only on a programming error.
		panic(fmt.Sprintf("metrics: encoding histogram: %v", err))
	}
	l.Histogram = string(enc)
}

// percentileOf is the p-th percentile of h in reported units: the HDR value
// (the highest value equivalent to the sample at that rank) clamped to the
// exact [lo, hi].
func percentileOf(h *hdrhistogram.Histogram, p, lo, hi float64) float64 {
	v := float64(h.ValueAtPercentile(p)) / histPerRep
	return min(max(v, lo), hi)
}

// Percentile returns the p-th percentile (0 <= p <= 100) of the latency's
// samples, computed from its serialized HDR histogram exactly as P50 to
// P999 are, so any percentile can be read from a result after the run
// (vLLM's --metric-percentiles). It is 0 when there are no samples.
func (l *Latency) Percentile(p float64) (float64, error) {
	if p < 0 || p > 100 || math.IsNaN(p) {
		return 0, fmt.Errorf("percentile %g is outside 0..100", p)
	}
	if l.Count == 0 {
		return 0, nil
	}
	h, err := l.DecodeHistogram()
	if err != nil {
		return 0, err
	}
	return percentileOf(h, p, l.Min, l.Max), nil
}

// DecodeHistogram decodes the latency's serialized HDR histogram (in
// histogram units: microseconds, or milli-tokens per second for user TPS).
// An empty latency decodes to an empty histogram.
func (l *Latency) DecodeHistogram() (*hdrhistogram.Histogram, error) {
	if l.Histogram == "" {
		if l.Count != 0 {
			return nil, fmt.Errorf("latency with %d samples has no histogram", l.Count)
		}
		return newHistogram(), nil
	}
	h, err := hdrhistogram.Decode([]byte(l.Histogram))
	if err != nil {
		return nil, fmt.Errorf("decoding histogram: %w", err)
	}
	if h.TotalCount() != l.Count {
		return nil, fmt.Errorf("histogram holds %d samples, count says %d", h.TotalCount(), l.Count)
	}
	return h, nil
}

// MergeLatency combines two summaries of the same metric (from two shards
// or runs) into the summary of all their samples. Counts, histograms and
// therefore percentiles merge exactly; mean and stddev are recomputed from
// the summed Sum and SumSq, so they match a single recording up to float
// rounding.
func MergeLatency(a, b Latency) (Latency, error) {
	ha, err := a.DecodeHistogram()
	if err != nil {
		return Latency{}, err
	}
	hb, err := b.DecodeHistogram()
	if err != nil {
		return Latency{}, err
	}
	switch {
	case b.Count == 0:
		return a, nil
	case a.Count == 0:
		return b, nil
	}
	h := newHistogram()
	for _, part := range []*hdrhistogram.Histogram{ha, hb} {
		if dropped := h.Merge(part); dropped != 0 {
			return Latency{}, fmt.Errorf("merging histograms: %d values outside the range 0..%d", dropped, HistogramMax)
		}
	}
	l := Latency{
		Count:    a.Count + b.Count,
		Min:      min(a.Min, b.Min),
		Max:      max(a.Max, b.Max),
		Sum:      a.Sum + b.Sum,
		SumSq:    a.SumSq + b.SumSq,
		Outliers: a.Outliers + b.Outliers,
	}
	fillFromSums(&l)
	fillFromHistogram(&l, h)
	return l, nil
}

// PooledStat reads a statistic (mean, a percentile, min, max) of several
// distributions pooled, as MergeLatency of them all would give it but
// without encoding the merged histogram: the batches of a run's windows,
// read for every row of a comparison. It also returns the pooled count.
func PooledStat(ls []Latency, stat string) (float64, int64, error) {
	var h *hdrhistogram.Histogram
	l := Latency{Min: math.Inf(1), Max: math.Inf(-1)}
	for _, part := range ls {
		if part.Count == 0 {
			continue
		}
		ph, err := part.DecodeHistogram()
		if err != nil {
			return 0, 0, err
		}
		if h == nil {
			h = newHistogram()
		}
		if dropped := h.Merge(ph); dropped != 0 {
			return 0, 0, fmt.Errorf("merging histograms: %d values outside the range 0..%d", dropped, HistogramMax)
		}
		l.Count += part.Count
		l.Min, l.Max = min(l.Min, part.Min), max(l.Max, part.Max)
		l.Sum += part.Sum
		l.SumSq += part.SumSq
	}
	if l.Count == 0 {
		return 0, 0, nil
	}
	fillFromSums(&l)
	switch stat {
	case "mean":
		return l.Mean, l.Count, nil
	case "min":
		return l.Min, l.Count, nil
	case "max":
		return l.Max, l.Count, nil
	}
	p, ok := StatPercentile(stat)
	if !ok {
		return 0, 0, fmt.Errorf("%q is not a statistic of a pooled distribution", stat)
	}
	return percentileOf(h, p, l.Min, l.Max), l.Count, nil
}
