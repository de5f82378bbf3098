// Package assert evaluates a scenario's checks (its sla bounds and assert
// conditions) over the metrics of a finished run.
//
// Conditions were decoded and checked against the metric catalogue when
// the scenario loaded; here they are evaluated in a minimal context that
// holds only the `metrics` object and the condition functions, so that a
// failing one carries its expression and context and HCL's diagnostic
// writer shows the values involved ("with metrics.ttft.p99 as 612.3").
package assert

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
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

// Outcome is the verdict of one check, as data.
type Outcome struct {
	// Name is the sla key ("ttft_p99") or the assert block's name.
	Name string `json:"name"`
	Kind string `json:"kind"` // KindSLA or KindAssert
	// Description is the check in words ("P99 TTFT <= 500 ms") for an SLA,
	// the condition as written for an assert.
	Description string `json:"description"`
	// Metric, Stat, Op, Threshold and Unit say what an sla bounds; empty
	// for an assert.
	Metric    string   `json:"metric,omitempty"`
	Stat      string   `json:"stat,omitempty"`
	Op        string   `json:"op,omitempty"`
	Threshold *float64 `json:"threshold"`
	Unit      string   `json:"unit,omitempty"`
	// Value is the measured figure of an sla (nil when there is none) and
	// Samples the samples it rests on (requests for a run-wide figure).
	Value   *float64 `json:"value"`
	Samples int64    `json:"samples"`
	// Refs are the metrics an assert's condition refers to, with their
	// values (nil for no samples), in order of appearance.
	Refs   []Ref `json:"refs,omitempty"`
	Passed bool  `json:"passed"`
	// Message says why a check failed; "" when it passed.
	Message string `json:"message,omitempty"`
	// Diagnostic describes a failure with its source range (and, for an
	// assert, its expression and evaluation context), for
	// scenario.Config.WriteDiagnostics; nil when the check passed.
	Diagnostic *hcl.Diagnostic `json:"-"`
}

// Ref is one metric a condition refers to, and its value.
type Ref struct {
	Ref   string   `json:"ref"`
	Value *float64 `json:"value"`
}

// Passed reports whether every outcome passed.
func Passed(outcomes []Outcome) bool {
	for _, o := range outcomes {
		if !o.Passed {
			return false
		}
	}
	return true
}

// Evaluate checks the scenario's SLA bounds, then its asserts, in
// declaration order, against a run's summary. A latency metric without
// samples (Count 0) fails every check that needs it: there is nothing to
// show that it holds.
func Evaluate(s *scenario.Scenario, sum *metrics.Summary) []Outcome {
	var out []Outcome
	for _, sla := range s.SLA {
		out = append(out, evalSLA(sla, sum))
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
// TODO(verdicts): such a check is "inconclusive" once assert has that
// verdict (branch verdicts); until then it fails with this message.
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

func evalSLA(sla scenario.SLA, sum *metrics.Summary) Outcome {
	m, _ := metrics.Lookup(sla.Metric)
	bound := sla.Bound
	o := Outcome{
		Name:        sla.Key,
		Kind:        KindSLA,
		Description: sla.Describe(),
		Metric:      sla.Metric,
		Stat:        sla.Stat,
		Op:          sla.Op(),
		Threshold:   &bound,
		Unit:        m.Unit,
		Samples:     samples(sla, sum),
	}
	v, ok := sum.Value(sla.Metric, sla.Stat)
	switch {
	case !ok && m.Kind == metrics.Server:
		o.Message = fmt.Sprintf("%s: %s, so %q cannot be shown to hold.", metrics.Ref(sla.Metric, sla.Stat), noServerMessage(sum, sla.Metric), o.Description)
	case !ok:
		o.Message = fmt.Sprintf("%s has no samples, so %q cannot be shown to hold.", m.Title, o.Description)
	default:
		o.Value = &v
		o.Passed = v <= sla.Bound
		if !sla.Upper {
			o.Passed = v >= sla.Bound
		}
		if !o.Passed {
			o.Message = fmt.Sprintf("%s: measured %s.", o.Description, metrics.Format(sla.Metric, sla.Stat, v))
		}
	}
	if !o.Passed {
		o.Diagnostic = &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "SLA not met: " + sla.Key,
			Detail:   o.Message,
			Subject:  sla.Range.Ptr(),
		}
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
	o := Outcome{
		Name:        a.Name,
		Kind:        KindAssert,
		Description: a.Source,
		Refs:        refs,
	}
	fail := func(msg string, diag *hcl.Diagnostic) Outcome {
		o.Message = msg
		if measured != "" {
			o.Message += " (" + measured + ")"
		}
		o.Diagnostic = diag
		return o
	}
	diag := &hcl.Diagnostic{
		Severity:    hcl.DiagError,
		Subject:     a.Condition.Range().Ptr(),
		Expression:  a.Condition,
		EvalContext: ctx,
	}
	v, diags := a.Condition.Value(ctx)
	if diags.HasErrors() {
		if len(nulls) > 0 {
			diag.Summary = "Assertion could not be decided: " + a.Name
			diag.Detail = fmt.Sprintf("The condition uses %s, which has no samples in this run.", strings.Join(nulls, " and "))
			if server := serverNulls(nulls); len(server) > 0 {
				diag.Detail = fmt.Sprintf("The condition uses %s, which has no value: %s.", strings.Join(nulls, " and "), noServerMessage(sum, strings.Join(server, " and ")))
			}
			return fail(diag.Detail, diag)
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
		o.Passed = true
		return o
	}
	if server := serverNulls(nulls); len(server) > 0 {
		// null == 0 is false, not an error: a server figure that was not
		// scraped decides nothing.
		diag.Summary = "Assertion could not be decided: " + a.Name
		diag.Detail = fmt.Sprintf("The condition uses %s, which has no value: %s.", strings.Join(server, " and "), noServerMessage(sum, strings.Join(server, " and ")))
		return fail(diag.Detail, diag)
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
		name := traversalString(tr)
		if seen[name] {
			continue
		}
		seen[name] = true
		v, diags := tr.TraverseAbs(ctx)
		if diags.HasErrors() {
			continue
		}
		parts = append(parts, name+" = "+valueString(v))
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

func traversalString(tr hcl.Traversal) string {
	var b strings.Builder
	for _, step := range tr {
		switch s := step.(type) {
		case hcl.TraverseRoot:
			b.WriteString(s.Name)
		case hcl.TraverseAttr:
			b.WriteString("." + s.Name)
		case hcl.TraverseIndex:
			if s.Key.Type() == cty.String && s.Key.IsKnown() && !s.Key.IsNull() {
				b.WriteString("[" + strconv.Quote(s.Key.AsString()) + "]")
			} else {
				b.WriteString("[" + valueString(s.Key) + "]")
			}
		}
	}
	return b.String()
}

func valueString(v cty.Value) string {
	switch {
	case v.IsNull():
		return "null (no samples)"
	case !v.IsKnown():
		return "unknown"
	case v.Type() == cty.Number:
		// Six significant digits: enough to compare with a threshold,
		// short enough to read.
		f, _ := v.AsBigFloat().Float64()
		return strconv.FormatFloat(f, 'g', 6, 64)
	case v.Type().IsObjectType():
		return "an object"
	}
	return v.GoString()
}

// EvalContext returns the context conditions are evaluated in: the
// `metrics` object (metrics.<latency>.<stat> in milliseconds, with null
// for a latency without samples, and metrics.<scalar>) and
// scenario.ConditionFunctions. A `baseline` object of the same shape will
// sit beside `metrics` once runs can be compared.
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
