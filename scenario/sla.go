package scenario

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/llmload/llmload/metrics"
	"github.com/zclconf/go-cty/cty"
)

// SLA is one named bound from a scenario's sla block.
type SLA struct {
	// Key is the attribute as written: "ttft_p99", "error_rate",
	// "min_output_throughput".
	Key string `json:"key"`
	// Metric and Stat name the figure in the metric catalogue: "ttft" and
	// "p99" for a distribution; for a scalar Metric is its name
	// ("error_rate", "output_throughput") and Stat is "".
	Metric string `json:"metric"`
	Stat   string `json:"stat,omitempty"`
	// Bound is in the metric's unit: milliseconds for latencies, a
	// fraction for error_rate, req/s or tok/s for throughputs.
	Bound float64 `json:"bound"`
	// Upper is true when the measured value must be <= Bound, false when it
	// must be >= Bound.
	Upper bool `json:"upper"`
	// Default marks a check the scenario did not write: the default error
	// budget (error_rate <= DefaultErrorRate).
	Default bool      `json:"default,omitempty"`
	Range   hcl.Range `json:"-"`
}

// addDefaultChecks adds the default error budget when no sla bounds the
// error rate, and the default bound on defective outputs when no sla
// bounds it and the target does not ask to ignore EOS.
func addDefaultChecks(s *Scenario) {
	addErrorBudget(s)
	if !hasSLA(s, "output_defect_rate") && (s.Target == nil || !s.Target.IgnoreEOS) {
		s.SLA = append(s.SLA, SLA{Key: "output_defect_rate", Metric: "output_defect_rate", Bound: DefaultOutputDefectRate, Upper: true, Default: true, Range: s.DeclRange})
	}
}

// addErrorBudget adds the default error budget when no sla bounds the
// error rate. A result's stored checks get only this default back: the
// others it had were stored with it.
func addErrorBudget(s *Scenario) {
	if !hasSLA(s, "error_rate") {
		s.SLA = append(s.SLA, SLA{Key: "error_rate", Metric: "error_rate", Bound: DefaultErrorRate, Upper: true, Default: true, Range: s.DeclRange})
	}
}

func hasSLA(s *Scenario, metric string) bool {
	for _, x := range s.SLA {
		if x.Metric == metric {
			return true
		}
	}
	return false
}

// DefaultPrefixAgreement is the least prefix_agreement a run whose answers
// were paired with a baseline's (an A/B run, or a stored baseline that
// kept its answers) must have by default, with deterministic sampling.
// Engines are not batch-invariant, so two runs of one engine may diverge
// late in an answer; another model, or a broken one, differs from the
// first tokens. Measured: two llama-servers of one model agreed on 16 of
// 16 answers (1.0), the simulator always does; a model of another seed
// reached 0.004.
const DefaultPrefixAgreement = 0.25

// AgreementCheckName names the default agreement check.
const AgreementCheckName = "answers agree (default)"

// AddAgreementCheck adds the default agreement check to s, unless one of
// its asserts reads an agreement figure already: the run paired its
// answers with a baseline's, with deterministic sampling, and kept texts
// of both to score. An A/B run of two different models on purpose opts
// out by an assert of its own (metrics.prefix_agreement >= 0).
func AddAgreementCheck(s *Scenario) {
	for _, r := range s.Regression {
		if slices.Contains(metrics.AgreementFigures, r.Metric) {
			return
		}
	}
	for _, a := range s.Asserts {
		for _, f := range metrics.AgreementFigures {
			if strings.Contains(a.Source, f) || a.Name == AgreementCheckName {
				return
			}
		}
	}
	src := fmt.Sprintf("metrics.prefix_agreement >= %g", DefaultPrefixAgreement)
	// Placed at the scenario's block, so that a failure points there.
	expr, diags := hclsyntax.ParseExpression([]byte(src), s.DeclRange.Filename, s.DeclRange.Start)
	if diags.HasErrors() {
		panic(diags) // a constant expression
	}
	s.Asserts = append(s.Asserts, &Assert{Name: AgreementCheckName, Condition: expr, Source: src, DeclRange: s.DeclRange,
		ErrorMessage: "The answers differ from the baseline's early on, far beyond what batching changes in one engine: another model, or a broken one."})
}

// slaStats are the statistics an sla key may bound (min and stddev make
// poor service levels and are left to asserts).
var slaStats = []string{"mean", "p50", "p90", "p95", "p99", "p999", "max"}

// slaKey is what one sla attribute name means.
type slaKey struct {
	metric, stat string
	upper        bool
	duration     bool // the bound is written as a duration ("500ms")
}

// slaKeyTable maps every valid sla attribute name to its metric, built
// from the catalogue: a distribution that should be low gives
// <name>_<stat> (an upper bound, a duration when in ms), one that should be
// high min_<name>_<stat>; a scalar that should be low gives <name>, one
// that should be high min_<name>. min_goodput stays as the short name of
// min_request_goodput.
var slaKeyTable, slaKeyNames = func() (map[string]slaKey, []string) {
	table := map[string]slaKey{}
	var names []string
	add := func(name string, k slaKey) {
		table[name] = k
		names = append(names, name)
	}
	for _, m := range metrics.Catalogue {
		switch {
		case m.RunLevel:
			// A figure of the whole run: sla checks also judge each stage
			// and step, where it does not exist.
		case m.Kind == metrics.Distribution && m.Better == metrics.LowerIsBetter:
			for _, s := range slaStats {
				add(m.Name+"_"+s, slaKey{m.Name, s, true, m.Unit == "ms"})
			}
		case m.Kind == metrics.Distribution && m.Better == metrics.HigherIsBetter:
			for _, s := range slaStats {
				add("min_"+m.Name+"_"+s, slaKey{m.Name, s, false, m.Unit == "ms"})
			}
		case m.Kind == metrics.Scalar && m.Better == metrics.LowerIsBetter:
			add(m.Name, slaKey{m.Name, "", true, false})
		case m.Kind == metrics.Scalar && m.Better == metrics.HigherIsBetter:
			add("min_"+m.Name, slaKey{m.Name, "", false, false})
		case m.Kind == metrics.Server && m.Better != metrics.Neither:
			// server_kv_cache_usage_max, min_server_prefix_cache_hit_rate_mean
			prefix := "server_"
			if m.Better == metrics.HigherIsBetter {
				prefix = "min_server_"
			}
			short := strings.TrimPrefix(m.Name, metrics.ServerPrefix)
			for _, s := range metrics.ServerStats(m.Series) {
				if m.Series == metrics.SeriesHistogram && s == "delta" {
					continue // a number of observations is no service level
				}
				add(prefix+short+"_"+s, slaKey{m.Name, s, m.Better == metrics.LowerIsBetter, m.Unit == "ms"})
			}
		}
	}
	add("min_goodput", slaKey{"request_goodput", "", false, false})
	return table, names
}()

// slaKeys lists every valid sla attribute name.
func slaKeys() []string { return slaKeyNames }

// Op is the comparison the check makes: "<=" or ">=".
func (s SLA) Op() string {
	if s.Upper {
		return "<="
	}
	return ">="
}

// Describe renders the check in words: "P99 TTFT <= 500 ms",
// "error rate <= 1%", "output throughput >= 2500 tok/s".
func (s SLA) Describe() string {
	return fmt.Sprintf("%s %s %s", metrics.Title(s.Metric, s.Stat), s.Op(), metrics.Format(s.Metric, s.Stat, s.Bound))
}

// MetricsObject builds the `metrics` object conditions read, with the
// catalogue's shape: metrics.<distribution>.<stat>, metrics.<scalar> and
// metrics.errors.<kind>. value gives each figure; a false ok makes it null
// (a statistic of no samples). With value nil every figure is unknown: the
// placeholder that conditions are type-checked against before a run.
func MetricsObject(value func(name, stat string) (float64, bool)) cty.Value {
	num := func(name, stat string) cty.Value {
		if value == nil {
			return cty.UnknownVal(cty.Number)
		}
		v, ok := value(name, stat)
		if !ok {
			return cty.NullVal(cty.Number)
		}
		return cty.NumberFloatVal(v)
	}
	attrs := map[string]cty.Value{}
	for _, m := range metrics.Catalogue {
		switch m.Kind {
		case metrics.Server:
			continue // the server object's
		case metrics.Distribution:
			stats := map[string]cty.Value{}
			for _, s := range metrics.Stats {
				stats[s] = num(m.Name, s)
			}
			attrs[m.Name] = cty.ObjectVal(stats)
		case metrics.Scalar:
			attrs[m.Name] = num(m.Name, "")
		case metrics.Counts:
			keys := map[string]cty.Value{}
			for _, k := range m.CountKeys() {
				keys[k] = num(m.Name, k)
			}
			attrs[m.Name] = cty.ObjectVal(keys)
		}
	}
	return cty.ObjectVal(attrs)
}

// ServerObject builds the `server` object conditions read:
// server.<figure>.<stat> for every server figure of the catalogue, and
// server["<metric>"].<stat> for each raw engine metric named in raw. value
// gives each figure (by its catalogue name, "server.kv_cache_usage", or
// "server.<metric>"); a false ok makes it null (not scraped). With value
// nil every figure is unknown, as before a run.
func ServerObject(value func(name, stat string) (float64, bool), raw []string) cty.Value {
	num := func(name, stat string) cty.Value {
		if value == nil {
			return cty.UnknownVal(cty.Number)
		}
		v, ok := value(name, stat)
		if !ok {
			return cty.NullVal(cty.Number)
		}
		return cty.NumberFloatVal(v)
	}
	attrs := map[string]cty.Value{}
	add := func(name string, stats []string) {
		obj := map[string]cty.Value{}
		for _, s := range stats {
			obj[s] = num(metrics.ServerPrefix+name, s)
		}
		attrs[name] = cty.ObjectVal(obj)
	}
	for _, m := range metrics.ServerFigures() {
		add(strings.TrimPrefix(m.Name, metrics.ServerPrefix), metrics.ServerStats(m.Series))
	}
	for _, r := range raw {
		if _, dup := attrs[r]; !dup {
			add(r, metrics.ServerStatNames)
		}
	}
	return cty.ObjectVal(attrs)
}
