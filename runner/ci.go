package runner

// What the compare command and CI outputs decide: the tolerances a
// comparison is judged by, the status of a comparison of two result
// files, and the annotations of failed checks.

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/llmload/llmload/assert"
	"github.com/llmload/llmload/compare"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/scenario"
)

// DefaultTolerances is the tolerances a comparison is judged by when
// neither the command line nor the baseline's scenario names any, as
// -max-regression would spell them.
func DefaultTolerances() string {
	var s []string
	for _, t := range compare.DefaultTolerances {
		s = append(s, t.String())
	}
	return strings.Join(s, ",")
}

// TolerancesFor chooses the tolerances a comparison with the baseline
// result base (read from basePath) is judged by: spec's (-max-regression)
// when given, else the baseline scenario's regression block, else the
// defaults.
func TolerancesFor(spec, basePath string, base *results.Result) ([]compare.Tolerance, error) {
	if spec != "" {
		t, err := compare.ParseTolerances(spec)
		if err != nil {
			return nil, fmt.Errorf("-max-regression: %w", err)
		}
		if len(t) == 0 {
			return nil, fmt.Errorf("-max-regression names no tolerance")
		}
		return t, nil
	}
	if len(base.Config) > 0 {
		if sc, diags := scenario.ChecksFromResolved(basePath, base.Config); !diags.HasErrors() && len(sc.Regression) > 0 {
			return sc.Tolerances(), nil
		}
	}
	return compare.DefaultTolerances, nil
}

// CompareStatus is the status of comparison c of two result files: no
// result when either run has none of its own (the judge's verdict of it is
// invalid, no result or interrupted: it proves nothing) or when the
// evidence cannot decide, else the comparison's verdict. It says why on
// log.
//
// With force, an interrupted side is compared with a warning: its figures
// are partial, but they are what was measured (an invalid side or one
// with no result is never judged).
func CompareStatus(log io.Writer, c *results.Comparison, base, cand *results.Result, force bool) Status {
	for i, r := range []*results.Result{base, cand} {
		switch v := r.Verdict(); v {
		case results.VerdictInterrupted:
			if force {
				fmt.Fprintf(log, "llmload compare: WARNING: the %s run was interrupted (it did not finish); compared anyway (-force)\n", []string{"baseline", "candidate"}[i])
				continue
			}
			fmt.Fprintf(log, "llmload compare: the %s run was interrupted (it did not finish): no verdict (-force compares it anyway)\n", []string{"baseline", "candidate"}[i])
			return StatusNoResult
		case results.VerdictInvalid, results.VerdictNoResult:
			why := map[string]string{
				results.VerdictInvalid:  "is invalid (the load generator did not do what its scenario said)",
				results.VerdictNoResult: "completed no request",
			}[v]
			fmt.Fprintf(log, "llmload compare: the %s run %s: no verdict\n", []string{"baseline", "candidate"}[i], why)
			return StatusNoResult
		}
	}
	if c.Verdict == compare.Inconclusive {
		fmt.Fprintln(log, "llmload compare: inconclusive: the evidence cannot tell whether a tolerance is crossed (longer runs, or repeats, would)")
	}
	return StatusOf(c.Verdict)
}

// Annotation is a failed check at its place in the scenario file, for a
// CI system's annotations.
type Annotation struct {
	File           string // slash-separated
	Line           int
	Title, Message string
}

// Annotations are the run's failed checks at their line of the scenario
// file.
func (r *Run) Annotations() []Annotation {
	s := r.Scenario
	var out []Annotation
	for _, o := range r.Outcomes {
		if o.Verdict != assert.Fail {
			continue
		}
		file, line := s.File, s.DeclRange.Start.Line
		if o.Diagnostic != nil && o.Diagnostic.Subject != nil {
			file, line = o.Diagnostic.Subject.Filename, o.Diagnostic.Subject.Start.Line
		}
		msg := o.Message
		if msg == "" && o.Diagnostic != nil {
			msg = o.Diagnostic.Detail
		}
		out = append(out, Annotation{File: filepath.ToSlash(file), Line: line, Title: fmt.Sprintf("llmload %s: %s %s", s.Name, o.Kind, o.Name), Message: msg})
	}
	return out
}
