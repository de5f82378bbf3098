package scenario

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/llmload/llmload/compare"
	"github.com/llmload/llmload/internal/secret"
)

// Resolved returns a JSON-ready view of the scenario as it will run, for
// result files: every default filled in, paths resolved, no hcl types, and
// no secrets (the API key is left out, credential-like header values and
// URL passwords are redacted, and sensitive variables' values are scrubbed
// wherever they were used). Durations are in nanoseconds, as
// time.Duration marshals; an "inf" rate is the string "inf".
func (s *Scenario) Resolved() any {
	view := s.resolved()
	b, err := json.Marshal(view)
	if err != nil {
		return view
	}
	// As each value appears inside a JSON string, too.
	return json.RawMessage(s.Scrub(string(b)))
}

// Scrub hides every sensitive variable's value in text, as Resolved does:
// for what a run derives from the configuration outside it (a tokenizer's
// path built from a sensitive variable, say).
func (s *Scenario) Scrub(text string) string {
	if s.secrets == nil {
		return text
	}
	sc := secret.New()
	for _, v := range s.secrets.Secrets() {
		q, _ := json.Marshal(v)
		sc.Add(v, string(q[1:len(q)-1]))
	}
	return sc.Scrub(text)
}

func (s *Scenario) resolved() any {
	type openLoop struct {
		Rate           any     `json:"rate"`
		Arrival        string  `json:"arrival"`
		Burstiness     float64 `json:"burstiness"`
		MaxConcurrency int     `json:"max_concurrency"`
	}
	type sla struct {
		SLA
		Description string `json:"description"`
	}
	out := struct {
		*Scenario
		Target *Target `json:"target"`
		// An A/B run's baseline arm (the candidate is Target).
		BaselineTarget *Target   `json:"baseline_target,omitempty"`
		Dataset        *Dataset  `json:"dataset"`
		OpenLoop       *openLoop `json:"open_loop,omitempty"`
		SLA            []sla     `json:"sla"`
		Asserts        []*Assert `json:"asserts"`
	}{Scenario: s, Dataset: s.Dataset, SLA: []sla{}, Asserts: s.Asserts}
	if out.Asserts == nil {
		out.Asserts = []*Assert{}
	}
	out.Target, out.BaselineTarget = redactedTarget(s.Target), redactedTarget(s.BaselineTarget)
	if o := s.OpenLoop; o != nil {
		var rate any = o.Rate
		if math.IsInf(o.Rate, 1) {
			rate = "inf"
		}
		out.OpenLoop = &openLoop{rate, o.Arrival, o.Burstiness, o.MaxConcurrency}
	}
	for _, x := range s.SLA {
		out.SLA = append(out.SLA, sla{x, x.Describe()})
	}
	return out
}

// redactedTarget is a copy of t without credentials (nil for nil).
func redactedTarget(src *Target) *Target {
	if src == nil {
		return nil
	}
	t := *src
	t.BaseURL = redactURL(t.BaseURL)
	if t.Headers != nil {
		t.Headers = map[string]string{}
		for k, v := range src.Headers {
			if secret.SensitiveHeader(k, src.SensitiveHeaders) {
				v = "<redacted>"
			}
			t.Headers[k] = v
		}
	}
	return &t
}

func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	return u.Redacted()
}

// SecretHeader reports header names whose values are likely credentials
// (authorization, key, token, secret, cookie, password, auth): result files
// and printed requests redact their values.
func SecretHeader(name string) bool { return secret.SensitiveHeader(name, nil) }

// CheckFiles checks that the files the configuration names (dataset and
// tokenizer paths, CA files) exist and are readable regular files. Load
// does not, so that a configuration can be checked without its data; the
// validate, plan and run commands call both.
//
// With no scenario it checks every target and dataset; given scenarios, it
// checks only the targets and datasets they use, so that running one
// scenario does not need another's data. A diagnostic says what the file
// is and, when a variable set the path, that variable's description (which
// is where an example says how to get the file).
func (c *Config) CheckFiles(scenarios ...*Scenario) hcl.Diagnostics {
	targets, datasets := c.Targets, c.Datasets
	if len(scenarios) > 0 {
		targets, datasets = nil, nil
		for _, s := range scenarios {
			for _, t := range []*Target{s.Target, s.BaselineTarget} {
				if t != nil && !slices.Contains(targets, t) {
					targets = append(targets, t)
				}
			}
			if s.Dataset != nil && !slices.Contains(datasets, s.Dataset) {
				datasets = append(datasets, s.Dataset)
			}
		}
	}
	var refs []fileRef
	for _, t := range targets {
		refs = append(refs, t.files...)
	}
	for _, d := range datasets {
		refs = append(refs, d.files...)
	}
	sort.SliceStable(refs, func(i, j int) bool {
		a, b := refs[i].expr.Range(), refs[j].expr.Range()
		return a.Filename < b.Filename || a.Filename == b.Filename && a.Start.Byte < b.Start.Byte
	})
	var diags hcl.Diagnostics
	for _, r := range refs {
		if err := checkReadable(r.path); err != nil {
			detail := fmt.Sprintf("%s.", err)
			if r.what != "" {
				detail = fmt.Sprintf("This is %s: %s.", r.what, err)
			}
			for _, v := range c.pathVariables(r.expr) {
				detail += fmt.Sprintf(" The path comes from var.%s (set by %s)", v.Name, v.Source)
				if v.Description != "" {
					detail += ": " + strings.TrimSpace(v.Description)
				}
				if !strings.HasSuffix(detail, ".") {
					detail += "."
				}
			}
			rng := r.expr.Range()
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Unreadable file",
				Detail:   detail,
				Subject:  &rng,
			})
		}
	}
	return diags
}

// pathVariables returns the declared variables an expression refers to.
func (c *Config) pathVariables(expr hcl.Expression) []*Variable {
	var out []*Variable
	for _, tr := range expr.Variables() {
		if tr.RootName() != "var" || len(tr) < 2 {
			continue
		}
		name := attrName(tr[1])
		for _, v := range c.Variables {
			if v.Name == name && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

func checkReadable(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	return nil
}

// ChecksFromResolved rebuilds a scenario's checks from the resolved view
// that result files hold (Resolved's "sla" and "asserts"), so that checks
// can be evaluated again on merged results without the scenario files. The
// conditions are parsed from their source text; name says where they came
// from in diagnostics.
func ChecksFromResolved(name string, raw []byte) (*Scenario, hcl.Diagnostics) {
	var v struct {
		Name    string `json:"name"`
		SLA     []SLA  `json:"sla"`
		Asserts []struct {
			Name         string `json:"name"`
			Condition    string `json:"condition"`
			ErrorMessage string `json:"error_message"`
		} `json:"asserts"`
		Verdict           string           `json:"verdict"`
		MinSamples        int              `json:"min_samples"`
		AllowInconclusive bool             `json:"allow_inconclusive"`
		Validity          Validity         `json:"validity"`
		Baseline          string           `json:"baseline"`
		BaselineOptional  bool             `json:"baseline_optional"`
		Regression        []RegressionRule `json:"regression"`
		RequireSame       []string         `json:"require_same_server_config"`
	}
	// A result written before these settings existed judges by the
	// defaults.
	v.Verdict, v.Validity = VerdictPoint, DefaultValidity
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Unreadable checks", Detail: fmt.Sprintf("%s: the result's config holds no readable checks: %v.", name, err)}}
	}
	s := &Scenario{Name: v.Name, SLA: v.SLA, Verdict: v.Verdict, MinSamples: v.MinSamples, AllowInconclusive: v.AllowInconclusive, Validity: v.Validity,
		Baseline: v.Baseline, BaselineOptional: v.BaselineOptional, Regression: v.Regression, RequireSameServerConfig: v.RequireSame}
	var diags hcl.Diagnostics
	if s.Verdict != VerdictPoint && s.Verdict != VerdictStrict {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown verdict", Detail: fmt.Sprintf("%s: verdict %q is not one this version of llmload knows.", name, s.Verdict)})
	}
	addErrorBudget(s)
	for i := range s.SLA {
		if _, ok := slaKeyTable[s.SLA[i].Key]; !ok {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown sla check", Detail: fmt.Sprintf("%s: sla %q is not a check this version of llmload knows.", name, s.SLA[i].Key)})
		}
	}
	for _, r := range v.Regression {
		if _, _, err := compare.ParseKey(r.Key); err != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown regression tolerance", Detail: fmt.Sprintf("%s: %v.", name, err)})
		}
	}
	for _, a := range v.Asserts {
		expr, d := hclsyntax.ParseExpression([]byte(a.Condition), name, hcl.InitialPos)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		diags = append(diags, CheckCondition(expr)...)
		s.Asserts = append(s.Asserts, &Assert{Name: a.Name, Condition: expr, Source: a.Condition, ErrorMessage: a.ErrorMessage})
	}
	return s, diags
}
