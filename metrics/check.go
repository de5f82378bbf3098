package metrics

import (
	"fmt"
	"strconv"
	"strings"
)

// The outcome of a check, as data. assert evaluates checks into it, results
// stores it, report renders it, and merge and compare read it back: one
// type, so the two sides cannot drift.

// Verdicts of a check. An inconclusive check could not be judged (too few
// samples for its percentile, streams without per-token timing, or an
// interval straddling its bound with verdict = "strict").
const (
	Pass         = "pass"
	Fail         = "fail"
	Inconclusive = "inconclusive"
	// Skipped: the check reads a baseline the run does not have
	// (baseline_optional = true).
	Skipped = "skipped"
)

// Check is the outcome of one check (an sla bound, an assert, a regression rule), as data: numbers, not
// display strings.
type Check struct {
	Name string `json:"name"`
	Kind string `json:"kind"` // "sla" or "assert"
	// Description is the check in words ("P99 TTFT <= 500 ms") for an sla,
	// the condition as written for an assert.
	Description string `json:"description,omitempty"`
	// Metric, Stat, Op, Threshold and Unit say what an sla bounds:
	// metric "ttft", stat "p99", op "<=", threshold 500, unit "ms". Empty
	// (and threshold null) for an assert, whose condition is free-form.
	Metric    string   `json:"metric,omitempty"`
	Stat      string   `json:"stat,omitempty"`
	Op        string   `json:"op,omitempty"`
	Threshold *float64 `json:"threshold"`
	Unit      string   `json:"unit,omitempty"`
	// Value is the measured figure (null when there was nothing to
	// measure); Samples is how many samples it rests on (requests for a
	// run-wide figure).
	Value   *float64 `json:"value"`
	Samples int64    `json:"samples"`
	// Refs are the metrics an assert's condition refers to, with their
	// values (null for no samples).
	Refs []CheckRef `json:"refs,omitempty"`
	// Lower and Upper are the 95% confidence interval of a percentile
	// (distribution-free, from order statistics); absent for other figures.
	Lower *float64 `json:"lower,omitempty"`
	Upper *float64 `json:"upper,omitempty"`
	// Confidence of Lower and Upper when it is not 95%: a regression
	// check judged by a sequential gate's last look (stop_early).
	Confidence float64 `json:"confidence,omitempty"`
	// Default marks a check the scenario did not write (the default error
	// budget).
	Default bool `json:"default,omitempty"`
	// Baseline and Tolerance: a regression check's baseline value and
	// tolerance (a fraction); its Threshold is the baseline moved by the
	// tolerance, and Lower and Upper bound its value given the baseline.
	Baseline  *float64 `json:"baseline,omitempty"`
	Tolerance *float64 `json:"tolerance,omitempty"`
	Verdict   string   `json:"verdict"` // Pass, Fail, Inconclusive or Skipped
	// Passed is Verdict == Pass, kept for readers of older results.
	Passed  bool   `json:"passed"`
	Message string `json:"message,omitempty"` // why it failed or was inconclusive
}

// CheckRef is one metric reference of an assert condition and its value.
type CheckRef struct {
	Ref   string   `json:"ref"` // "metrics.ttft.p99"
	Value *float64 `json:"value"`
}

// ThresholdText renders an sla check's bound: "<= 500 ms".
func (c *Check) ThresholdText() string {
	if c.Threshold == nil {
		return ""
	}
	t := c.Op + " " + Format(c.Metric, c.Stat, *c.Threshold)
	if c.Baseline != nil && c.Tolerance != nil {
		t += fmt.Sprintf(" (baseline %s %+g%%)", Format(c.Metric, c.Stat, *c.Baseline), 100**c.Tolerance)
	}
	return t
}

// MeasuredText renders the measured value: "612.3 ms" for an sla, the
// referenced metrics for an assert, "no samples" when there were none.
func (c *Check) MeasuredText() string {
	if c.Kind == "assert" || c.Metric == "" {
		var parts []string
		for _, r := range c.Refs {
			v := "null (no samples)"
			if r.Value != nil {
				v = strconv.FormatFloat(*r.Value, 'g', 6, 64)
			}
			parts = append(parts, r.Ref+" = "+v)
		}
		return strings.Join(parts, ", ")
	}
	if c.Value == nil {
		if c.Verdict == Skipped {
			return "not judged" // no baseline to judge against; samples there may be
		}
		return "no samples"
	}
	return Format(c.Metric, c.Stat, *c.Value)
}

// Rule is one validity rule of a run, as data: a figure of the load
// generator itself and the bound it must stay within (value <= bound) for
// the run to say anything about the server. assert judges it, results
// stores it and report renders it: one type.
type Rule struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Value       float64 `json:"value"`
	Bound       float64 `json:"bound"`
	Unit        string  `json:"unit"` // "fraction" or "ms"
	// Applies is false when the rule has nothing to judge (no schedule, no
	// token counts to compare); Why then says why, or what the figure
	// rests on.
	Applies bool   `json:"applies"`
	Valid   bool   `json:"valid"`
	Why     string `json:"why,omitempty"`
}
