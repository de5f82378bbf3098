package scenario

// Decoding the checks: the sla, validity, regression and assert blocks, and
// an assert condition's references checked against the metric catalogue.

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/llmload/llmload/compare"
	"github.com/llmload/llmload/metrics"
)

// decodeRegression reads a regression block: figure = "tolerance", the
// same rules as llmload compare's -max-regression.
func (l *loader) decodeRegression(d dec, s *Scenario, b *hcl.Block) {
	attrs, diags := b.Body.JustAttributes()
	l.diags = append(l.diags, diags...)
	for _, attr := range sortedAttrs(attrs) {
		if attr.Name == "require_same_server_config" {
			l.decodeRequireSame(d, s, attrs, attr)
			continue
		}
		var v string
		if d.str(attrs, attr.Name, &v) == nil {
			continue
		}
		t, err := compare.ParseTolerance(attr.Name, v)
		if err != nil {
			l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid regression tolerance", Detail: err.Error() + ".", Subject: attr.Range.Ptr()})
			continue
		}
		s.Regression = append(s.Regression, RegressionRule{Tolerance: t, Range: attr.Range})
	}
	if len(attrs) == 0 && !diags.HasErrors() {
		l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Empty regression block",
			Detail: "A regression block sets at least one tolerance, such as ttft_p99 = \"10%\".", Subject: b.DefRange.Ptr()})
	}
}

// decodeRequireSame reads require_same_server_config: the server settings
// (keys of the result's server_config: engine, version, model, revision,
// max_model_len, or an engine setting such as max_num_seqs) that must be
// equal on the baseline's server and the candidate's for a comparison.
func (l *loader) decodeRequireSame(d dec, s *Scenario, attrs hcl.Attributes, attr *hcl.Attribute) {
	var keys []string
	d.stringList(attrs, attr.Name, &keys)
	for _, k := range keys {
		if strings.TrimSpace(k) == "" || k != strings.TrimSpace(k) || strings.ContainsAny(k, ",= ") {
			d.invalid(attr, "require_same_server_config lists server settings by name, such as [\"max_num_seqs\", \"model\"]; %q is not a name.", k)
			return
		}
		if slices.Contains(s.RequireSameServerConfig, k) {
			d.invalid(attr, "require_same_server_config lists %q twice.", k)
			return
		}
		s.RequireSameServerConfig = append(s.RequireSameServerConfig, k)
	}
}

func (l *loader) decodeSLA(d dec, s *Scenario, b *hcl.Block) {
	c, diags := metricContent(b.Body, slaSchema)
	l.diags = append(l.diags, diags...)
	for _, attr := range sortedAttrs(c.Attributes) {
		sla := SLA{Key: attr.Name, Range: attr.Range}
		k := slaKeyTable[attr.Name]
		sla.Metric, sla.Stat, sla.Upper = k.metric, k.stat, k.upper
		if k.duration {
			var dur time.Duration
			if d.duration(c.Attributes, attr.Name, &dur, true) == nil {
				continue
			}
			sla.Bound = float64(dur) / float64(time.Millisecond)
		} else {
			a := d.float(c.Attributes, attr.Name, &sla.Bound)
			if a == nil {
				continue
			}
			if m, _ := metrics.Lookup(sla.Metric); m.Unit == "fraction" && (sla.Bound < 0 || sla.Bound > 1) {
				d.invalid(a, "%s is a fraction from 0 to 1 (0.01 is 1%%), not %g.", attr.Name, sla.Bound)
				continue
			}
			if sla.Bound < 0 {
				d.invalid(a, "%s may not be negative.", attr.Name)
				continue
			}
			if (sla.Metric == "request_goodput" || sla.Metric == "token_goodput") && s.Goodput.IsZero() {
				d.invalid(a, "%s needs a goodput block saying which requests are good.", attr.Name)
				continue
			}
		}
		s.SLA = append(s.SLA, sla)
	}
}

// metricContent is body's content by a schema of metric names, as
// Body.Content gives it, except that an unsupported argument's "Did you
// mean" comes from metrics.Suggest: ttft_p96 suggests ttft_p95, the nearest
// percentile, where hcl's rule (the first name within two edits) says
// ttft_p50.
func metricContent(body hcl.Body, schema *hcl.BodySchema) (*hcl.BodyContent, hcl.Diagnostics) {
	c, remain, diags := body.PartialContent(schema)
	// What the schema lacks: its blocks as Content reports them, its
	// arguments below.
	_, rest := remain.Content(&hcl.BodySchema{})
	for _, d := range rest {
		if d.Summary != "Unsupported argument" {
			diags = append(diags, d)
		}
	}
	var unset []string
	for _, a := range schema.Attributes {
		if _, set := c.Attributes[a.Name]; !set {
			unset = append(unset, a.Name)
		}
	}
	extra, _ := remain.JustAttributes()
	for _, a := range sortedAttrs(extra) {
		detail := fmt.Sprintf("An argument named %q is not expected here.", a.Name)
		if s := metrics.Suggest(a.Name, unset); s != "" {
			detail += fmt.Sprintf(" Did you mean %q?", s)
		}
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unsupported argument", Detail: detail, Subject: a.NameRange.Ptr()})
	}
	return c, diags
}

func (l *loader) decodeValidity(d dec, s *Scenario, b *hcl.Block) {
	c, diags := b.Body.Content(validitySchema)
	l.diags = append(l.diags, diags...)
	v := &s.Validity
	for _, f := range []struct {
		name string
		dst  *float64
	}{{"max_rate_shortfall", &v.MaxRateShortfall}, {"max_client_cpu", &v.MaxClientCPU}, {"max_token_mismatch", &v.MaxTokenMismatch},
		{"max_other_model", &v.MaxOtherModel}, {"max_over_max_tokens", &v.MaxOverMaxTokens}} {
		if a := d.float(c.Attributes, f.name, f.dst); a != nil && (*f.dst < 0 || *f.dst > 1) {
			d.invalid(a, "%s is a fraction from 0 to 1 (0.05 is 5%%), not %g.", f.name, *f.dst)
		}
	}
	d.duration(c.Attributes, "max_lag_p99", &v.MaxLagP99, true)
	d.duration(c.Attributes, "max_client_overhead", &v.MaxClientOverhead, true)
}

func (l *loader) decodeAssert(d dec, s *Scenario, b *hcl.Block) {
	name := b.Labels[0]
	for _, a := range s.Asserts {
		if a.Name == name {
			l.duplicate(b, a.DeclRange)
			return
		}
	}
	a := &Assert{Name: name, DeclRange: b.DefRange}
	s.Asserts = append(s.Asserts, a)
	c, diags := b.Body.Content(assertSchema)
	l.diags = append(l.diags, diags...)
	d.str(c.Attributes, "error_message", &a.ErrorMessage)
	if attr, ok := c.Attributes["condition"]; ok {
		a.Condition = attr.Expr
		if f := l.cfg.Files[attr.Expr.Range().Filename]; f != nil {
			a.Source = string(attr.Expr.Range().SliceBytes(f.Bytes))
		}
		l.diags = append(l.diags, CheckCondition(attr.Expr)...)
		if s.Target != nil {
			for _, raw := range RawServerRefs(attr.Expr) {
				if !slices.Contains(s.Target.ScrapeMetrics, raw) {
					l.diags = append(l.diags, &hcl.Diagnostic{
						Severity: hcl.DiagError,
						Summary:  "Unknown server metric",
						Detail:   fmt.Sprintf("server[%q] is not a known server figure; to read an engine metric of that name, list it in target %q's scrape_metrics.", raw, s.Target.Name),
						Subject:  attr.Expr.Range().Ptr(),
					})
				}
			}
		}
		if s.Goodput.IsZero() {
			for _, tr := range attr.Expr.Variables() {
				if len(tr) >= 2 && tr.RootName() == "metrics" {
					if name, ok := stepName(tr[1]); ok && name == "request_goodput" {
						l.diags = append(l.diags, &hcl.Diagnostic{
							Severity: hcl.DiagError,
							Summary:  "Goodput without a goodput block",
							Detail:   "metrics.request_goodput counts the requests that met the scenario's goodput objectives; add a goodput block saying which requests are good.",
							Subject:  tr.SourceRange().Ptr(),
						})
					}
				}
			}
		}
	}
}

// CheckCondition validates an assert condition before any load is sent:
// it may refer only to metrics in the catalogue and call only
// ConditionFunctions, and it must be a bool expression.
func CheckCondition(expr hcl.Expression) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, tr := range expr.Variables() {
		if d := checkMetricRef(tr); d != nil {
			diags = append(diags, d)
		}
	}
	if diags.HasErrors() {
		return diags
	}
	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{"metrics": metricsPlaceholder, "baseline": metricsPlaceholder, "server": ServerObject(nil, RawServerRefs(expr))},
		Functions: ConditionFunctions(),
	}
	v, more := expr.Value(ctx)
	diags = append(diags, more...)
	if !more.HasErrors() && v.Type() != cty.Bool && v.Type() != cty.DynamicPseudoType {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid condition",
			Detail:   fmt.Sprintf("A condition must be true or false, such as metrics.ttft.p99 <= 500; this one is a %s.", v.Type().FriendlyName()),
			Subject:  expr.Range().Ptr(),
		})
	}
	return diags
}

// metricsPlaceholder has the catalogue's shape with unknown values.
var metricsPlaceholder = MetricsObject(nil)

// checkMetricRef checks one reference of a condition against the catalogue.
func checkMetricRef(tr hcl.Traversal) *hcl.Diagnostic {
	bad := func(rng hcl.Range, summary, detail string) *hcl.Diagnostic {
		return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: rng.Ptr()}
	}
	if tr.RootName() == "server" {
		return checkServerRef(tr)
	}
	root := tr.RootName()
	if root != "metrics" && root != "baseline" {
		return bad(tr.SourceRange(), "Invalid reference in condition",
			fmt.Sprintf("A condition can refer only to the run's metrics (metrics.<name>), the baseline run's (baseline.<name>) and the server's (server.<name>), not to %q.", tr.RootName()))
	}
	if len(tr) < 2 {
		return nil // the whole object; evaluation checks its use
	}
	name, ok := stepName(tr[1])
	if !ok {
		return nil
	}
	m, known := metrics.Lookup(name)
	if !known {
		all := metrics.Names()
		detail := fmt.Sprintf("There is no metric named %q.", name)
		if s := metrics.Suggest(name, all); s != "" {
			detail += fmt.Sprintf(" Did you mean %s.%s?", root, s)
		}
		detail += " docs/metrics.md lists every metric."
		return bad(tr[1].SourceRange(), "Unknown metric", detail)
	}
	if len(tr) < 3 {
		return nil
	}
	stat, ok := stepName(tr[2])
	if !ok {
		return nil
	}
	var keys []string
	switch m.Kind {
	case metrics.Scalar:
		return bad(tr[2].SourceRange(), "Unknown metric",
			fmt.Sprintf("%s.%s is a number (%s); it has no %q.", root, name, m.Unit, stat))
	case metrics.Distribution:
		keys = metrics.Stats
	case metrics.Counts:
		keys = m.CountKeys()
	}
	if !slices.Contains(keys, stat) {
		detail := fmt.Sprintf("%s.%s has no %q.", root, name, stat)
		if s := metrics.Suggest(stat, keys); s != "" {
			detail += fmt.Sprintf(" Did you mean %s.%s.%s?", root, name, s)
		}
		detail += " It has " + quoteList(keys) + "."
		return bad(tr[2].SourceRange(), "Unknown metric", detail)
	}
	return nil
}

// serverNames are the short names of the catalogue's server figures.
func serverNames() []string {
	var out []string
	for _, m := range metrics.ServerFigures() {
		out = append(out, strings.TrimPrefix(m.Name, metrics.ServerPrefix))
	}
	return out
}

// checkServerRef checks a server.<name>.<stat> reference. A name that is
// not a known figure, nor close to one, is a raw engine metric (it must be
// listed in the target's scrape_metrics; decodeAssert checks that).
func checkServerRef(tr hcl.Traversal) *hcl.Diagnostic {
	bad := func(rng hcl.Range, detail string) *hcl.Diagnostic {
		return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown server metric", Detail: detail, Subject: rng.Ptr()}
	}
	if len(tr) < 2 {
		return nil
	}
	name, ok := stepName(tr[1])
	if !ok {
		return nil
	}
	stats := metrics.ServerStatNames
	if m, known := metrics.Lookup(metrics.ServerPrefix + name); known && m.Kind == metrics.Server {
		stats = metrics.ServerStats(m.Series)
	} else if s := metrics.Suggest(name, serverNames()); s != "" && !strings.Contains(name, ":") {
		return bad(tr[1].SourceRange(), fmt.Sprintf("There is no server figure named %q. Did you mean server.%s? docs/metrics.md lists every server figure; an engine metric of another name is read as server[\"<name>\"] once the target lists it in scrape_metrics.", name, s))
	}
	if len(tr) < 3 {
		return nil
	}
	stat, ok := stepName(tr[2])
	if !ok || slices.Contains(stats, stat) {
		return nil
	}
	detail := fmt.Sprintf("server.%s has no %q.", name, stat)
	if s := metrics.Suggest(stat, stats); s != "" {
		detail += fmt.Sprintf(" Did you mean server.%s.%s?", name, s)
	}
	return bad(tr[2].SourceRange(), detail+" It has "+quoteList(stats)+".")
}

// RawServerRefs lists the server metrics a condition names that are not
// catalogue figures: raw engine metrics from scrape_metrics.
func RawServerRefs(expr hcl.Expression) []string {
	var out []string
	for _, tr := range expr.Variables() {
		if tr.RootName() != "server" || len(tr) < 2 {
			continue
		}
		name, ok := stepName(tr[1])
		if !ok {
			continue
		}
		if m, known := metrics.Lookup(metrics.ServerPrefix + name); known && m.Kind == metrics.Server {
			continue
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// stepName returns the name an attribute or string-index step selects.
func stepName(step hcl.Traverser) (string, bool) {
	switch s := step.(type) {
	case hcl.TraverseAttr:
		return s.Name, true
	case hcl.TraverseIndex:
		if s.Key.Type() == cty.String && s.Key.IsKnown() && !s.Key.IsNull() {
			return s.Key.AsString(), true
		}
	}
	return "", false
}
