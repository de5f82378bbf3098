package scenario

// Decoding what a scenario writes: its report options (percentiles) and its
// result files.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// decodeReportOptions reads what the scenario asks of its result: vLLM's
// percentile choices, the result file's name and the per-request arrays.
func (l *loader) decodeReportOptions(d dec, a hcl.Attributes, s *Scenario) {
	decodePercentiles(d, a, s)
	decodePercentileMetrics(d, a, s)
	if attr := d.str(a, "result_filename", &s.ResultFilename); attr != nil {
		n := s.ResultFilename
		switch {
		case n == "" || n == "." || n == ".." || n == ".json" || strings.ContainsAny(n, "/\\\x00"):
			d.invalid(attr, "result_filename is a file name (no directory: llmload run -out DIR chooses it), such as \"vllm-10qps.json\"; got %q.", n)
			s.ResultFilename = ""
		case strings.HasSuffix(n, ".requests.jsonl"):
			d.invalid(attr, "result_filename %q would be taken for a requests file; name the result file, such as \"run.json\".", n)
			s.ResultFilename = ""
		default:
			s.resultRange = attr.Expr.Range().Ptr()
		}
	}
	d.boolean(a, "save_detailed", &s.SaveDetailed)
}

// decodePercentiles reads vLLM's --metric-percentiles.
func decodePercentiles(d dec, a hcl.Attributes, s *Scenario) {
	v, attr, ok := d.value(a, "percentiles", cty.List(cty.Number))
	if !ok {
		return
	}
	var ps []float64
	for _, e := range v.AsValueSlice() {
		if e.IsNull() {
			continue
		}
		p, _ := e.AsBigFloat().Float64()
		if p < 0 || p > 100 {
			d.invalid(attr, "a percentile is from 0 to 100, not %g.", p)
			return
		}
		ps = append(ps, p)
	}
	if len(ps) == 0 {
		d.invalid(attr, "percentiles lists at least one percentile, such as [50, 90, 99].")
		return
	}
	s.Percentiles = ps
}

// decodePercentileMetrics reads vLLM's --percentile-metrics.
func decodePercentileMetrics(d dec, a hcl.Attributes, s *Scenario) {
	v, attr, ok := d.value(a, "percentile_metrics", cty.List(cty.String))
	if !ok {
		return
	}
	var ms []string
	for _, e := range v.AsValueSlice() {
		if e.IsNull() {
			continue
		}
		m := e.AsString()
		if !slices.Contains(DefaultPercentileMetrics, m) {
			d.invalid(attr, "%s", choiceDetail("a percentile metric", m, DefaultPercentileMetrics))
			return
		}
		ms = append(ms, m)
	}
	if len(ms) == 0 {
		d.invalid(attr, `percentile_metrics lists at least one of "ttft", "tpot", "itl" and "e2el".`)
		return
	}
	s.PercentileMetrics = ms
}

// checkResultFiles reports scenarios that would write the same result file
// into one output directory.
func (l *loader) checkResultFiles() {
	first := map[string]*Scenario{}
	for _, s := range l.cfg.Scenarios {
		name := resultFile(s)
		o, dup := first[name]
		if !dup {
			first[name] = s
			continue
		}
		subject := s.DeclRange.Ptr()
		if s.resultRange != nil {
			subject = s.resultRange
		} else if o.resultRange != nil {
			subject = o.resultRange
		}
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Duplicate result file",
			Detail:   fmt.Sprintf("Scenarios %q and %q would both write %s into the output directory; give one of them another result_filename.", o.Name, s.Name, name),
			Subject:  subject,
		})
	}
}

// resultFile is the name of a scenario's result file.
func resultFile(s *Scenario) string {
	if s.ResultFilename != "" {
		return s.ResultFilename
	}
	return s.Name + ".json"
}

// ResultFile is the name of the scenario's result file in the output
// directory: result_filename, else <name>.json.
func (s *Scenario) ResultFile() string { return resultFile(s) }

// RequestsFile is the name of the scenario's requests file: the result
// file's name without ".json", then ".requests.jsonl".
func (s *Scenario) RequestsFile() string {
	return strings.TrimSuffix(resultFile(s), ".json") + ".requests.jsonl"
}
