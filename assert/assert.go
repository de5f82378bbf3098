package assert

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/scenario"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Outcome kinds.
const (
	KindSLA    = "sla"
	KindAssert = "assert"
)

// Verdicts of a check. An inconclusive check could not be judged: too few
// samples for its percentile, streams without per-token timing, no samples
// at all, or (with verdict = "strict") a confidence interval that
// straddles the bound.
const (
	Pass         = metrics.Pass
	Fail         = metrics.Fail
	Inconclusive = metrics.Inconclusive
)

// UntimedLimit is the fraction of responses without per-token timing
// (metrics.Summary.UntimedFraction) past which ITL, TPOT and user TPS
// checks are inconclusive.
const UntimedLimit = 0.5

// timingMetrics are the distributions that need per-token timing.
var timingMetrics = map[string]bool{"itl": true, "tpot": true, "user_tps": true}

// Outcome is the verdict of one check: the check as data (metrics.Check,
// what result files store) and, for a check that did not pass, its
// diagnostic.
type Outcome struct {
	metrics.Check
	// Diagnostic describes a failure with its source range (and, for an
	// assert, its expression and evaluation context), for
	// scenario.Config.WriteDiagnostics; nil when the check passed.
	Diagnostic *hcl.Diagnostic `json:"-"`
}

// Ref is one metric a condition refers to, and its value.
type Ref = metrics.CheckRef

// Passed reports whether every outcome passed.
func Passed(outcomes []Outcome) bool {
	for _, o := range outcomes {
		if !o.Passed {
			return false
		}
	}
	return true
}

// Tally counts the outcomes by verdict.
func Tally(outcomes []Outcome) (passed, failed, inconclusive int) {
	for _, o := range outcomes {
		switch o.Verdict {
		case Pass:
			passed++
		case Inconclusive:
			inconclusive++
		case Skipped:
			// no baseline, and the scenario allowed it
		default:
			failed++
		}
	}
	return passed, failed, inconclusive
}

// Evaluate checks the scenario's SLA bounds, then its asserts, in
// declaration order, against a run's summary. An sla check is inconclusive
// when its metric has no samples, when a percentile rests on fewer than its
// minimum samples (metrics.MinSamples, or the scenario's min_samples), when
// an ITL, TPOT or user TPS check meets mostly untimed streams, and with
// verdict = "strict" when the percentile's 95% interval straddles the
// bound. An assert is inconclusive when a metric it uses has no samples.
func Evaluate(s *scenario.Scenario, sum *metrics.Summary) []Outcome {
	if s.UsesBaseline() {
		return EvaluateWith(s, sum, nil)
	}
	var out []Outcome
	for _, sla := range s.SLA {
		out = append(out, evalSLA(s, sla, sum))
	}
	if len(s.Asserts) > 0 {
		var raw []string
		for _, a := range s.Asserts {
			raw = append(raw, scenario.RawServerRefs(a.Condition)...)
		}
		ctx := EvalContext(sum, raw...)
		for _, a := range s.Asserts {
			out = append(out, evalAssert(a, ctx, sum))
		}
	}
	return out
}

// serverNulls are the null references of a condition that read the server.
func serverNulls(nulls []string) []string {
	var out []string
	for _, n := range nulls {
		if strings.HasPrefix(n, "server") {
			out = append(out, n)
		}
	}
	return out
}

// noServerMessage says why a check on a server figure has no value: nothing
// was scraped at all, or the server did not export that figure.
// Such a check is inconclusive: the figure could not be measured.
func noServerMessage(sum *metrics.Summary, ref string) string {
	if sum.Server == nil || sum.Server.Scrapes == 0 {
		why := "no server metrics were scraped"
		if sum.Server != nil && sum.Server.LastError != "" {
			why += " (" + sum.Server.LastError + ")"
		}
		return why
	}
	return fmt.Sprintf("the server's metrics endpoint did not export %s", ref)
}

func evalSLA(s *scenario.Scenario, sla scenario.SLA, sum *metrics.Summary) Outcome {
	m, _ := metrics.Lookup(sla.Metric)
	bound := sla.Bound
	o := Outcome{Check: metrics.Check{
		Name:        sla.Key,
		Kind:        KindSLA,
		Description: sla.Describe(),
		Metric:      sla.Metric,
		Stat:        sla.Stat,
		Op:          sla.Op(),
		Threshold:   &bound,
		Unit:        m.Unit,
		Samples:     samples(sla, sum),
		Default:     sla.Default,
	}}
	meets := func(v float64) bool {
		if sla.Upper {
			return v <= sla.Bound
		}
		return v >= sla.Bound
	}
	v, ok := sum.Value(sla.Metric, sla.Stat)
	if !ok {
		o.Verdict = Inconclusive
		o.Message = fmt.Sprintf("%s has no samples, so %q can be neither shown to hold nor to break.", m.Title, o.Description)
		if m.Kind == metrics.Server {
			o.Message = fmt.Sprintf("%s: %s, so %q can be neither shown to hold nor to break.", metrics.Ref(sla.Metric, sla.Stat), noServerMessage(sum, sla.Metric), o.Description)
		}
		return withDiagnostic(o, sla)
	}
	o.Value = &v
	o.Verdict = Fail
	if meets(v) {
		o.Verdict = Pass
	}
	pct, isPct := metrics.StatPercentile(sla.Stat)
	if l := sum.LatencyOf(sla.Metric); isPct && l != nil {
		if lo, hi, err := l.PercentileInterval(pct, metrics.DefaultConfidence); err == nil {
			o.Lower, o.Upper = &lo, &hi
		}
	}
	need := int64(s.MinSamples)
	if isPct && need == 0 {
		need = metrics.MinSamples(pct)
	}
	switch {
	case timingMetrics[sla.Metric] && sum.TokenStreams > 0 && sum.UntimedFraction() > UntimedLimit:
		o.Verdict = Inconclusive
		o.Message = fmt.Sprintf("%d of %d streams (%.0f%%) carried no per-token timing (buffered, all tokens in one event, or events that came in bursts), so %s measures the delivery, not the server.",
			sum.BufferedStreams+sum.CoalescedStreams, sum.TokenStreams, 100*sum.UntimedFraction(), m.Title)
	case isPct && o.Samples < need:
		o.Verdict = Inconclusive
		o.Message = fmt.Sprintf("%s rests on %d samples; a %s check needs at least %d (set min_samples to change it).",
			metrics.Title(sla.Metric, sla.Stat), o.Samples, metrics.StatTitle(sla.Stat), need)
		if s.MinSamples == 0 {
			o.Message = fmt.Sprintf("%s rests on %d samples; a %s check needs at least %d, so that %d lie beyond the percentile (set min_samples to change it).",
				metrics.Title(sla.Metric, sla.Stat), o.Samples, metrics.StatTitle(sla.Stat), need, metrics.TailSamples)
		}
	case s.Verdict == scenario.VerdictStrict && o.Lower != nil:
		lo, hi := *o.Lower, *o.Upper
		// An end past the sample (too few samples, with min_samples set
		// low) is open: nothing is known beyond it.
		if low, high := metrics.IntervalBounded(o.Samples, pct/100, metrics.DefaultConfidence); !low || !high {
			if !low {
				lo = math.Inf(-1)
			}
			if !high {
				hi = math.Inf(1)
			}
		}
		interval := fmt.Sprintf("[%s, %s]", metrics.Format(sla.Metric, sla.Stat, lo), metrics.Format(sla.Metric, sla.Stat, hi))
		switch {
		case meets(lo) && meets(hi):
			o.Verdict = Pass
		case !meets(lo) && !meets(hi):
			o.Verdict = Fail
			o.Message = fmt.Sprintf("%s: measured %s, and its whole 95%% interval %s breaks the bound.", o.Description, metrics.Format(sla.Metric, sla.Stat, v), interval)
		default:
			o.Verdict = Inconclusive
			o.Message = fmt.Sprintf("%s: measured %s, but its 95%% interval %s straddles the bound (verdict = \"strict\").", o.Description, metrics.Format(sla.Metric, sla.Stat, v), interval)
		}
	case o.Verdict == Fail:
		o.Message = fmt.Sprintf("%s: measured %s.", o.Description, metrics.Format(sla.Metric, sla.Stat, v))
	}
	return withDiagnostic(o, sla)
}

// withDiagnostic sets Passed and, for a check that did not pass, the
// diagnostic pointing at its sla line (a warning when inconclusive).
func withDiagnostic(o Outcome, sla scenario.SLA) Outcome {
	o.Passed = o.Verdict == Pass
	switch o.Verdict {
	case Fail:
		o.Diagnostic = &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "SLA not met: " + sla.Key, Detail: o.Message, Subject: sla.Range.Ptr()}
	case Inconclusive:
		o.Diagnostic = &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "SLA inconclusive: " + sla.Key, Detail: o.Message, Subject: sla.Range.Ptr()}
	}
	if sla.Default && o.Diagnostic != nil {
		o.Diagnostic.Detail += " (The default error budget: set error_rate in the sla block to change it.)"
	}
	return o
}

// samples is how many samples the figure an sla bounds rests on: a
// distribution's count, else the requests that completed or failed.
func samples(sla scenario.SLA, sum *metrics.Summary) int64 {
	if l := sum.LatencyOf(sla.Metric); l != nil {
		return l.Count
	}
	if strings.HasPrefix(sla.Metric, metrics.ServerPrefix) {
		if sum.Server == nil {
			return 0
		}
		return int64(sum.Server.Figures[strings.TrimPrefix(sla.Metric, metrics.ServerPrefix)].Samples)
	}
	return int64(sum.Completed + sum.Failed)
}

func evalAssert(a *scenario.Assert, ctx *hcl.EvalContext, sum *metrics.Summary) Outcome {
	refs, measured, nulls := involved(a.Condition, ctx)
	o := Outcome{Check: metrics.Check{
		Name:        a.Name,
		Kind:        KindAssert,
		Description: a.Source,
		Refs:        refs,
	}}
	fail := func(msg string, diag *hcl.Diagnostic) Outcome {
		o.Verdict = Fail
		o.Message = msg
		if measured != "" {
			o.Message += " (" + measured + ")"
		}
		o.Diagnostic = diag
		return o
	}
	// undecided: the condition reads a figure that has no value, so it
	// can be neither shown to hold nor to break.
	undecided := func(diag *hcl.Diagnostic) Outcome {
		diag.Severity = hcl.DiagWarning
		o := fail(diag.Detail, diag)
		o.Verdict = Inconclusive
		return o
	}
	diag := &hcl.Diagnostic{
		Severity:    hcl.DiagError,
		Subject:     a.Condition.Range().Ptr(),
		Expression:  a.Condition,
		EvalContext: ctx,
	}
	if div := zeroDivisor(a.Condition, ctx); div != nil {
		// x / 0 is infinite in HCL, and "ttft <= budget / 0" would pass.
		diag.Summary = "Assertion could not be decided: " + a.Name
		diag.Detail = fmt.Sprintf("The condition divides by %s, which is 0 in this run.", hclRangeText(div))
		diag.Subject = div.Range().Ptr()
		return undecided(diag)
	}
	v, diags := a.Condition.Value(ctx)
	if diags.HasErrors() {
		if len(nulls) > 0 {
			diag.Summary = "Assertion could not be decided: " + a.Name
			diag.Detail = fmt.Sprintf("The condition uses %s, which has no samples in this run.", strings.Join(nulls, " and "))
			if server := serverNulls(nulls); len(server) > 0 {
				diag.Detail = fmt.Sprintf("The condition uses %s, which has no value: %s.", strings.Join(nulls, " and "), noServerMessage(sum, strings.Join(server, " and ")))
			}
			return undecided(diag)
		}
		for _, d := range diags {
			if d.Severity == hcl.DiagError {
				return fail(fmt.Sprintf("The condition could not be evaluated: %s: %s", d.Summary, d.Detail), d)
			}
		}
	}
	switch {
	case !v.IsKnown():
		diag.Summary, diag.Detail = "Assertion could not be decided: "+a.Name, "The condition's result is unknown."
		return fail(diag.Detail, diag)
	case v.IsNull():
		diag.Summary, diag.Detail = "Assertion could not be decided: "+a.Name, "The condition's result is null."
		return fail(diag.Detail, diag)
	}
	b, err := convert.Convert(v, cty.Bool)
	if err != nil {
		diag.Summary, diag.Detail = "Invalid condition", "The condition must be true or false: "+err.Error()+"."
		return fail(diag.Detail, diag)
	}
	if b.True() {
		o.Passed, o.Verdict = true, Pass
		return o
	}
	if server := serverNulls(nulls); len(server) > 0 {
		// null == 0 is false, not an error: a server figure that was not
		// scraped decides nothing.
		diag.Summary = "Assertion could not be decided: " + a.Name
		diag.Detail = fmt.Sprintf("The condition uses %s, which has no value: %s.", strings.Join(server, " and "), noServerMessage(sum, strings.Join(server, " and ")))
		return undecided(diag)
	}
	msg := a.ErrorMessage
	if msg == "" {
		msg = fmt.Sprintf("Assertion %q failed.", a.Name)
	}
	diag.Summary, diag.Detail = "Assertion failed: "+a.Name, msg
	return fail(msg, diag)
}

// involved lists every metric the condition refers to with its value, as
// data and as text, and separately those that are null (no samples).
func involved(expr hcl.Expression, ctx *hcl.EvalContext) (refs []Ref, values string, nulls []string) {
	var parts []string
	seen := map[string]bool{}
	for _, tr := range expr.Variables() {
		name := scenario.TraversalString(tr)
		if seen[name] {
			continue
		}
		seen[name] = true
		v, diags := tr.TraverseAbs(ctx)
		if diags.HasErrors() {
			continue
		}
		parts = append(parts, name+" = "+scenario.ValueString(v))
		ref := Ref{Ref: name}
		if v.IsKnown() && !v.IsNull() && v.Type() == cty.Number {
			f, _ := v.AsBigFloat().Float64()
			ref.Value = &f
		}
		refs = append(refs, ref)
		if v.IsNull() {
			nulls = append(nulls, name)
		}
	}
	return refs, strings.Join(parts, ", "), nulls
}

// EvalContext returns the context conditions are evaluated in: the
// `metrics` object (metrics.<latency>.<stat> in milliseconds, with null
// for a latency without samples, and metrics.<scalar>) and
// scenario.ConditionFunctions. EvalContextWith adds the `baseline` object.
func EvalContext(sum *metrics.Summary, rawServer ...string) *hcl.EvalContext {
	raw := slices.Clone(rawServer)
	if sum.Server != nil {
		for name := range sum.Server.Figures {
			if _, known := metrics.Lookup(metrics.ServerPrefix + name); !known && !slices.Contains(raw, name) {
				raw = append(raw, name)
			}
		}
	}
	return &hcl.EvalContext{
		Variables: map[string]cty.Value{
			"metrics": metricsObject(sum),
			"server":  scenario.ServerObject(sum.Value, raw),
		},
		Functions: scenario.ConditionFunctions(),
	}
}

// metricsObject turns a summary into the catalogue's object.
func metricsObject(sum *metrics.Summary) cty.Value {
	return scenario.MetricsObject(sum.Value)
}

// zeroDivisor is the divisor of a division or modulo in expr that is 0
// under ctx (nil when none is).
func zeroDivisor(expr hcl.Expression, ctx *hcl.EvalContext) hcl.Expression {
	se, ok := expr.(hclsyntax.Expression)
	if !ok {
		return nil
	}
	var found hcl.Expression
	_ = hclsyntax.VisitAll(se, func(n hclsyntax.Node) hcl.Diagnostics {
		op, ok := n.(*hclsyntax.BinaryOpExpr)
		if found != nil || !ok || (op.Op != hclsyntax.OpDivide && op.Op != hclsyntax.OpModulo) {
			return nil
		}
		v, diags := op.RHS.Value(ctx)
		if diags.HasErrors() || !v.IsKnown() || v.IsNull() || v.Type() != cty.Number {
			return nil
		}
		if v.AsBigFloat().Sign() == 0 {
			found = op.RHS
		}
		return nil
	})
	return found
}

// hclRangeText is an expression's source text, as its range shows it.
func hclRangeText(e hcl.Expression) string {
	r := e.Range()
	b, err := os.ReadFile(r.Filename)
	if err != nil || r.End.Byte > len(b) || r.Start.Byte > r.End.Byte {
		return "an expression"
	}
	return string(b[r.Start.Byte:r.End.Byte])
}
