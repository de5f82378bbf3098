package report

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// niceTicks marks a linear axis at a readable step (1, 2, 2.5 or 5 times
// a power of ten) chosen for about five labelled ticks, with unlabelled
// ticks between: never an axis with only its two ends labelled.
type niceTicks struct{}

func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return []plot.Tick{{Value: lo, Label: formatTick(lo, 0)}}
	}
	step := niceStep((hi - lo) / 6)
	prec := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	if step*math.Pow(10, float64(prec)) != math.Round(step*math.Pow(10, float64(prec))) {
		prec++ // 2.5, 0.25
	}
	var out []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		out = append(out, plot.Tick{Value: v, Label: formatTick(v, prec)})
		if m := v + step/2; m < hi {
			out = append(out, plot.Tick{Value: m})
		}
	}
	return out
}

// niceStep rounds a raw step up to 1, 2, 2.5 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= raw*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// formatTick writes a tick's value with prec decimals, without a
// negative zero.
func formatTick(v float64, prec int) string {
	if math.Abs(v) < 1e-12 {
		v = 0
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// logTicks marks a log axis: every decade labelled, within a span of
// under one decade every integer multiple, and within one of under three
// decades 2 and 5 times each power of ten labelled too, so that
// data within one decade still has labels; the other integers are
// unlabelled ticks.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return nil
	}
	fine := math.Log10(hi/lo) < 3
	// Under a decade, every integer multiple is labelled (5 to 47 ms:
	// 5, 6, 7, 8, 9, 10, 20, 30, 40).
	finest := math.Log10(hi/lo) < 1
	var out []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		p := math.Pow(10, e)
		for m := 1.0; m < 10; m++ {
			v := m * p
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || finest || fine && (m == 2 || m == 5) {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			out = append(out, t)
		}
	}
	// A span with no labelled tick at all (inside one 1-2-5 step): label
	// its ends.
	labelled := 0
	for _, t := range out {
		if t.Label != "" {
			labelled++
		}
	}
	if labelled < 2 {
		out = append(out, plot.Tick{Value: lo, Label: strconv.FormatFloat(lo, 'g', 3, 64)}, plot.Tick{Value: hi, Label: strconv.FormatFloat(hi, 'g', 3, 64)})
	}
	return out
}
