package runner

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/scenario"
)

func TestSummaryRow(t *testing.T) {
	result := func(edit func(r *results.Result)) *results.Result {
		r := &results.Result{}
		r.Summary = &metrics.Summary{Completed: 10}
		r.Checks = []results.Check{{Name: "ttft_p99", Verdict: results.Pass}}
		edit(r)
		return r
	}
	check := func(name, verdict string) results.Check { return results.Check{Name: name, Verdict: verdict} }
	tests := []struct {
		name        string
		res         *results.Result
		exit        int
		wantVerdict string
		wantReason  string
	}{
		{"pass", result(func(r *results.Result) {}), 0, results.Pass, "1 check passed"},
		{"fail", result(func(r *results.Result) {
			r.Checks = append(r.Checks, check("a", results.Fail), check("b", results.Fail))
		}), 1,
			results.Fail, "failed: a, b"},
		{"many failed", result(func(r *results.Result) {
			r.Checks = []results.Check{check("a", results.Fail), check("b", results.Fail), check("c", results.Fail), check("d", results.Fail)}
		}), 1, results.Fail, "failed: a, b, c and 1 more"},
		{"aborted", result(func(r *results.Result) {
			r.Aborted = "abort_on: 60% of 20 requests failed"
			r.Checks = append(r.Checks, check("abort_on", results.Fail))
		}), 1, results.Fail, "aborted: abort_on: 60% of 20 requests failed"},
		{"inconclusive", result(func(r *results.Result) { r.Checks = append(r.Checks, check("ttft_p999", results.Inconclusive)) }), 3,
			results.Inconclusive, "inconclusive: ttft_p999"},
		{"interrupted", result(func(r *results.Result) { r.Interrupted = true }), 130, results.VerdictInterrupted, "interrupted: partial results"},
		{"nothing completed", result(func(r *results.Result) { r.Summary.Completed = 0 }), 3, results.VerdictNoResult, "no request completed"},
		{"invalid", result(func(r *results.Result) {
			r.Validity = &results.Validity{Rules: []results.Rule{{Name: "lag_p99", Applies: true}}}
		}), 3, results.VerdictInvalid, "invalid run: lag_p99"},
		{"refused before any load", nil, 2, "not run", "invalid input (see the messages above)"},
		{"interrupted before a result", nil, 130, results.VerdictInterrupted, "interrupted before any result"},
		{"no result", nil, 3, results.VerdictNoResult, "no result (see the messages above)"},
		{"never reached", nil, NotRun, "not run", "the run was interrupted before it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row := SummaryRow("s", tt.res, tt.exit)
			if row.Verdict != tt.wantVerdict || row.Reason != tt.wantReason || row.Exit != tt.exit {
				t.Errorf("row %q %q exit %d, want %q %q exit %d", row.Verdict, row.Reason, row.Exit, tt.wantVerdict, tt.wantReason, tt.exit)
			}
		})
	}
}

// TestWriteSummary: one line per scenario of the file, those after an
// interruption as not run, figures from the catalogue.
func TestWriteSummary(t *testing.T) {
	done := &results.Result{}
	done.Summary = &metrics.Summary{Completed: 12, Failed: 1, RequestThroughput: 3.25}
	scenarios := []*scenario.Scenario{{Name: "first"}, {Name: "second"}, {Name: "third"}}
	rows := []ScenarioRow{SummaryRow("first", done, 0), SummaryRow("second", nil, 130)}
	var b bytes.Buffer
	if err := WriteSummary(&b, scenarios, rows); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`(?m)^== summary of 3 scenarios ==$`,
		`(?m)^first +pass +0 +12 +1 +3\.25 +0 +- +- +0 checks passed$`,
		`(?m)^second +interrupted +130 +- +- +- +- +- +- +interrupted before any result$`,
		`(?m)^third +not run +- +- +- +- +- +- +- +the run was interrupted before it$`,
	} {
		if !regexp.MustCompile(want).MatchString(b.String()) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}
