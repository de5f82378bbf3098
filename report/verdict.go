package report

import "github.com/llmload/llmload/results"

// look is how every output renders a verdict: the console's and the
// tables' word, the HTML class that colours it, and the Markdown badge.
// One table, so that skipped and inconclusive never read as FAIL and an
// interrupted run never reads as a pass anywhere.
type look struct{ Label, Class, Badge string }

var looks = map[string]look{
	results.Pass:               {"PASS", "pass", "✅ pass"},
	results.Fail:               {"FAIL", "fail", "❌ FAIL"},
	results.Inconclusive:       {"INCONCLUSIVE", "incl", "⚠️ inconclusive"},
	results.Skipped:            {"SKIPPED", "skip", "⏭️ skipped"},
	results.VerdictInvalid:     {"INVALID", "fail", "⛔ invalid"},
	results.VerdictNoResult:    {"NO RESULT", "fail", "⛔ no result"},
	results.VerdictInterrupted: {"INTERRUPTED", "incl", "⏹️ interrupted"},
}

// lookOf is a verdict's look; an unknown verdict renders as itself, never
// as a pass.
func lookOf(verdict string) look {
	if l, ok := looks[verdict]; ok {
		return l
	}
	return look{Label: verdict, Class: "incl", Badge: verdict}
}

// checkVerdict is a check's verdict: its own when recorded, else (a
// result written before checks carried one) from Passed.
func checkVerdict(c results.Check) string {
	switch {
	case c.Verdict != "":
		return c.Verdict
	case c.Passed:
		return results.Pass
	}
	return results.Fail
}

// verdictLabel is a check's verdict as the tables show it.
func verdictLabel(c results.Check) string { return lookOf(checkVerdict(c)).Label }
