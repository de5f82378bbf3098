package compare

import (
	"bytes"
	"encoding/json"
	"math"

	"github.com/llmload/llmload/metrics"
)

// deltaJSON is a Delta as a result file stores it (a row of its
// comparison): a figure a run lacks, or one that is not a number, is null;
// the interval is absent without one; the tolerance is its fraction, and
// absolute says whether it is in the metric's unit.
type deltaJSON struct {
	Key         string   `json:"key"`
	Metric      string   `json:"metric"`
	Stat        string   `json:"stat,omitempty"`
	Unit        string   `json:"unit"`
	Base        *float64 `json:"base"`
	New         *float64 `json:"new"`
	Delta       *float64 `json:"delta"`
	Percent     *float64 `json:"delta_pct"`
	Lower       *float64 `json:"lower,omitempty"`
	Upper       *float64 `json:"upper,omitempty"`
	Method      string   `json:"method"`
	BaseSamples int64    `json:"base_samples"`
	NewSamples  int64    `json:"new_samples"`
	Tolerance   *float64 `json:"tolerance,omitempty"`
	Absolute    bool     `json:"absolute,omitempty"`
	Verdict     string   `json:"verdict,omitempty"`
	Change      string   `json:"change"`
	Message     string   `json:"message,omitempty"`
}

// finite returns &v, or nil when v is NaN or infinite (null in JSON).
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// orNaN returns *p, or NaN for nil.
func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// MarshalJSON writes the delta as a row of a saved comparison: Base, New,
// Delta and Percent are null when a run lacks the figure (Missing) or they
// are not numbers; Lower and Upper are left out without an interval.
func (d Delta) MarshalJSON() ([]byte, error) {
	w := deltaJSON{
		Key: d.Key, Metric: d.Metric, Stat: d.Stat, Unit: d.Unit,
		Method: d.Method, BaseSamples: d.BaseSamples, NewSamples: d.NewSamples,
		Verdict: d.Verdict, Change: d.Change, Message: d.Message,
	}
	if !d.Missing {
		w.Base, w.New, w.Delta, w.Percent = finite(d.Base), finite(d.New), finite(d.Delta), finite(d.Percent)
	}
	if d.HasInterval {
		w.Lower, w.Upper = finite(d.Lower), finite(d.Upper)
	}
	if d.Tolerance != nil {
		w.Tolerance, w.Absolute = finite(d.Tolerance.Fraction), d.Tolerance.Absolute()
	}
	// Without HTML escaping, as the struct would be written: the encoder
	// that calls this escapes or not, as it was told.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON reads what MarshalJSON writes. A row without a single
// figure is Missing; a null value is NaN; an interval is
// there when either bound is; Better, the tolerance's key and Limit are
// what Measure and Judge would have set.
func (d *Delta) UnmarshalJSON(b []byte) error {
	var w deltaJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	m, _ := metrics.Lookup(w.Metric)
	*d = Delta{
		Key: w.Key, Metric: w.Metric, Stat: w.Stat, Unit: w.Unit, Better: m.Better,
		Method: w.Method, BaseSamples: w.BaseSamples, NewSamples: w.NewSamples,
		Verdict: w.Verdict, Change: w.Change, Message: w.Message,
		Percent: math.NaN(),
	}
	if w.Base == nil && w.New == nil && w.Delta == nil && w.Percent == nil {
		d.Missing = true
	} else {
		d.Base, d.New, d.Delta, d.Percent = orNaN(w.Base), orNaN(w.New), orNaN(w.Delta), orNaN(w.Percent)
	}
	if w.Lower != nil || w.Upper != nil {
		d.HasInterval = true
		d.Lower, d.Upper = orNaN(w.Lower), orNaN(w.Upper)
	}
	if w.Tolerance != nil {
		d.Tolerance = &Tolerance{Key: w.Key, Metric: w.Metric, Stat: w.Stat, Fraction: *w.Tolerance}
		d.Limit = d.Tolerance.Fraction * math.Abs(d.Base)
		if d.Tolerance.Absolute() {
			d.Limit = d.Tolerance.Fraction
		}
	}
	return nil
}
