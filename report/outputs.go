package report

import (
	"fmt"
	"strings"

	"github.com/llmload/llmload/metrics"
)

// outputLines are the console's sentences on what the answers said
// (defects, length against the dataset's answers, agreement with the
// baseline, expected answers), one each, for
// the HTML report and the Markdown summary: one wording everywhere.
func outputLines(s *metrics.Summary) []string {
	if s == nil {
		return nil
	}
	var b strings.Builder
	p := &printer{w: &b}
	writeOutputNotes(p, s)
	writeOutputLength(p, s)
	writeAgreement(p, s)
	writeExpected(p, s)
	var out []string
	for _, l := range strings.Split(b.String(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// htmlDivergence is one answer that differs from the baseline's, as the
// HTML report shows it (html/template escapes every text).
type htmlDivergence struct {
	Prompt                  string
	At                      int
	Before, Base, Candidate string
	Cut, BaseEnds, CandEnds bool
}

// divergences are the result's differing answers for the HTML report.
func divergences(s *metrics.Summary) []htmlDivergence {
	if s == nil || s.Agreement == nil {
		return nil
	}
	var out []htmlDivergence
	for _, d := range s.Agreement.Divergences {
		prompt := fmt.Sprint(d.Index)
		if d.Turn > 0 {
			prompt += fmt.Sprintf(" (turn %d)", d.Turn)
		}
		out = append(out, htmlDivergence{Prompt: prompt, At: d.At, Before: d.Before, Base: d.Base, Candidate: d.Candidate, Cut: d.Cut,
			BaseEnds: d.Base == "", CandEnds: d.Candidate == ""})
	}
	return out
}
