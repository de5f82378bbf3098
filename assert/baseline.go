package assert

import (
	"fmt"
	"math"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/llmload/llmload/compare"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/scenario"
)

// KindRegression is the kind of a regression block's checks.
const KindRegression = "regression"

// Skipped is the verdict of a check that reads a baseline the run does not
// have (baseline_optional = true and no baseline file): neither passed nor
// failed, and no reason for exit 3.
const Skipped = metrics.Skipped

// Baseline is the run a scenario's baseline checks compare with.
type Baseline struct {
	// Path is the baseline result file, for messages; RunID its run's id.
	Path  string
	RunID string
	// Summary is its summary; nil when the file is missing and the
	// scenario allowed it (baseline_optional), which skips the checks that
	// read it.
	Summary *metrics.Summary
	// Runs are the baseline's repeated runs and NewRuns this run's (a
	// result's repeat.runs): with both, the regression block judges by
	// the run-to-run spread (compare.Options.BaseRuns).
	Runs, NewRuns []*metrics.Summary
	// Paired says Runs[k] and NewRuns[k] ran under the same conditions
	// (the blocks of an interleaved A/B run; compare.Options.Paired).
	Paired bool
	// Confidence of the regression block's intervals (0: the default
	// 95%): a sequential gate's last look's, so that the verdict is the
	// one the gate stopped on.
	Confidence float64
}

// EvaluateWith is Evaluate with a baseline: conditions read
// baseline.<metric>.<stat> beside metrics.*, and the regression block's
// tolerances are judged as llmload compare judges them (a regression only
// when the whole interval of the delta lies beyond the tolerance). With
// base nil or its Summary nil, the checks that need the baseline are
// skipped.
func EvaluateWith(s *scenario.Scenario, sum *metrics.Summary, base *Baseline) []Outcome {
	var out []Outcome
	for _, sla := range s.SLA {
		out = append(out, evalSLA(s, sla, sum))
	}
	var baseSum *metrics.Summary
	if base != nil {
		baseSum = base.Summary
	}
	if len(s.Asserts) > 0 {
		var raw []string
		for _, a := range s.Asserts {
			raw = append(raw, scenario.RawServerRefs(a.Condition)...)
		}
		ctx := EvalContextWith(sum, baseSum, raw...)
		for _, a := range s.Asserts {
			if baseSum == nil && scenario.ReadsBaseline(a.Condition) {
				out = append(out, skipped(Outcome{Check: metrics.Check{Name: a.Name, Kind: KindAssert, Description: a.Source}}, base, a.Condition.Range()))
				continue
			}
			o := evalAssert(a, ctx, sum)
			if o.Verdict == Fail {
				if d := baselineDeltas(o.Refs); d != "" {
					o.Message += " " + d
					if o.Diagnostic != nil {
						o.Diagnostic.Detail += " " + d
					}
				}
			}
			out = append(out, o)
		}
	}
	for _, r := range s.Regression {
		o := Outcome{Check: metrics.Check{Name: r.Key, Kind: KindRegression, Metric: r.Metric, Stat: r.Stat}}
		if m, ok := metrics.Lookup(r.Metric); ok {
			o.Unit = m.Unit
		}
		if baseSum == nil {
			o.Description = fmt.Sprintf("%s at most %s worse than the baseline", metrics.Title(r.Metric, r.Stat), compare.Percent(r.Fraction))
			out = append(out, skipped(o, base, r.Range))
			continue
		}
		out = append(out, evalRegression(s, r, sum, base))
	}
	return out
}

// skipped is a check that needs a baseline the run does not have.
func skipped(o Outcome, base *Baseline, rng hcl.Range) Outcome {
	o.Verdict = Skipped
	o.Message = "No baseline to compare with, so this check was skipped (baseline_optional = true)."
	if base != nil && base.Path != "" {
		o.Message = fmt.Sprintf("No baseline at %s, so this check was skipped (baseline_optional = true).", base.Path)
	}
	o.Diagnostic = &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Check skipped: " + o.Name, Detail: o.Message, Subject: rng.Ptr()}
	return o
}

// evalRegression judges one tolerance against the baseline. The check
// reads like an sla with a moving bound: "P99 TTFT <= 110 ms" (the
// baseline's 100 ms and 10%), the measured value, and the 95% interval of
// the candidate's value (the baseline plus the interval of the delta).
func evalRegression(s *scenario.Scenario, r scenario.RegressionRule, sum *metrics.Summary, b *Baseline) Outcome {
	bconf := b.Confidence
	d := compare.Judge(b.Summary, sum, r.Tolerance, compare.Options{MinSamples: int64(s.MinSamples), BaseRuns: b.Runs, NewRuns: b.NewRuns, Paired: b.Paired, Confidence: b.Confidence})
	o := Outcome{Check: metrics.Check{Name: r.Key, Kind: KindRegression, Metric: r.Metric, Stat: r.Stat, Unit: d.Unit,
		Samples: d.NewSamples, Verdict: d.Verdict, Message: d.Message}}
	tol := r.Fraction
	o.Tolerance = &tol
	op, sign := "<=", 1.0
	if d.Better == metrics.HigherIsBetter {
		op, sign = ">=", -1
	}
	o.Op = op
	allowed := compare.Allowed(r.Tolerance, d.Better)
	o.Description = fmt.Sprintf("%s %s the baseline %s", metrics.Title(r.Metric, r.Stat), op, allowed)
	if !d.Missing {
		b, v := d.Base, d.New
		o.Baseline, o.Value = &b, &v
		limit := d.Base + sign*d.Limit
		o.Threshold = &limit
		o.Description = fmt.Sprintf("%s %s %s (baseline %s %s)", metrics.Title(r.Metric, r.Stat), op,
			metrics.Format(r.Metric, r.Stat, limit), metrics.Format(r.Metric, r.Stat, d.Base), allowed)
		if d.HasInterval {
			lo, hi := d.Base+d.Lower, d.Base+d.Upper
			o.Lower, o.Upper = &lo, &hi
			if bconf > 0 && bconf != metrics.DefaultConfidence {
				o.Confidence = bconf
			}
		}
	}
	if o.Message == "" && o.Verdict != Pass {
		o.Message = fmt.Sprintf("%s: measured %s.", o.Description, metrics.Format(r.Metric, r.Stat, d.New))
	}
	o.Passed = o.Verdict == Pass
	switch o.Verdict {
	case Fail:
		o.Diagnostic = &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Regression against the baseline: " + r.Key, Detail: o.Message, Subject: r.Range.Ptr()}
	case Inconclusive:
		o.Diagnostic = &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Regression check inconclusive: " + r.Key, Detail: o.Message, Subject: r.Range.Ptr()}
	}
	return o
}

// baselineDeltas names, for every baseline.X a failed condition read beside
// metrics.X, both values and the change: "(metrics.ttft.p99 = 130 is
// +30.0% on baseline.ttft.p99 = 100)".
func baselineDeltas(refs []Ref) string {
	vals := map[string]*float64{}
	for _, r := range refs {
		vals[r.Ref] = r.Value
	}
	var parts []string
	for _, r := range refs {
		rest, ok := strings.CutPrefix(r.Ref, "baseline.")
		if !ok || r.Value == nil {
			continue
		}
		cur, ok := vals["metrics."+rest]
		if !ok || cur == nil {
			continue
		}
		b, v := *r.Value, *cur
		change := "the same as"
		if b != 0 && v != b {
			change = fmt.Sprintf("%+.1f%% on", 100*(v-b)/math.Abs(b))
		} else if v != b {
			change = "against"
		}
		parts = append(parts, fmt.Sprintf("metrics.%s = %s is %s baseline.%s = %s", rest, scenario.ValueString(cty.NumberFloatVal(v)), change, rest, scenario.ValueString(cty.NumberFloatVal(b))))
	}
	if len(parts) == 0 {
		return ""
	}
	return "(" + strings.Join(parts, "; ") + ")"
}

// EvalContextWith is EvalContext with the baseline's figures as
// baseline.*: the same shape as metrics, every figure null when base is
// nil.
func EvalContextWith(sum, base *metrics.Summary, rawServer ...string) *hcl.EvalContext {
	ctx := EvalContext(sum, rawServer...)
	value := func(string, string) (float64, bool) { return 0, false }
	if base != nil {
		value = base.Value
	}
	ctx.Variables["baseline"] = scenario.MetricsObject(value)
	return ctx
}
