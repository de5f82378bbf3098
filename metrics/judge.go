package metrics

import (
	"fmt"
	"strings"
)

// Run verdicts beside the check verdicts (Pass, Fail, Inconclusive,
// Skipped): a run that was Interrupted proves nothing either way, and an
// Invalid one (nothing completed, or the load generator broke a validity
// rule) has no checks worth reading.
const (
	Invalid     = "invalid"
	Interrupted = "interrupted"
)

// Judging is what a run's verdict is decided from: how it ended, whether
// anything completed, its validity, and its checks' verdicts.
type Judging struct {
	Interrupted bool
	// Completed counts the requests that completed; 0 makes the run
	// invalid (there is no result to judge). A negative count skips the
	// rule (a comparison of two results has no requests of its own).
	Completed int
	// Broken names the validity rules the run broke, each with its figure
	// and bound ("lag_p99 12.000 ms over its bound of 10.000 ms").
	Broken []string
	// Checks are the checks' verdicts.
	Checks []Check
	// AllowInconclusive lets a run whose checks are otherwise passed pass
	// with inconclusive checks (allow_inconclusive = true).
	AllowInconclusive bool
}

// Judgement is a run's verdict and, for every verdict but a clean pass,
// why in one sentence.
type Judgement struct {
	Verdict string
	Reason  string
	// Failed, Inconclusive and Skipped count the checks of each verdict.
	Failed, Inconclusive, Skipped int
}

// Judge is the one judge of a run, a merge, a sweep's step and a
// comparison: interrupted before anything else, then invalid (nothing
// completed, or a validity rule broken), then fail (a check failed), then
// inconclusive (a check could not be decided, unless allowed), then skipped
// (every check was skipped), else pass. Every output renders its verdict
// and the command's exit code is a mapping of it.
func Judge(j Judging) Judgement {
	var out Judgement
	for _, c := range j.Checks {
		switch c.Verdict {
		case Pass:
		case Inconclusive:
			out.Inconclusive++
		case Skipped:
			out.Skipped++
		default:
			out.Failed++
		}
	}
	switch {
	case j.Interrupted:
		out.Verdict, out.Reason = Interrupted, "interrupted; partial results above"
	case j.Completed == 0:
		out.Verdict, out.Reason = Invalid, "no request completed: no valid result"
	case len(j.Broken) > 0:
		out.Verdict = Invalid
		out.Reason = fmt.Sprintf("invalid run (%s): the load was not what the scenario said, so its checks prove nothing", strings.Join(j.Broken, "; "))
	case out.Failed > 0:
		out.Verdict = Fail
	case out.Inconclusive > 0 && !j.AllowInconclusive:
		out.Verdict = Inconclusive
		out.Reason = fmt.Sprintf("%s inconclusive: no valid verdict (allow_inconclusive = true accepts them)", checks(out.Inconclusive))
	case out.Inconclusive > 0:
		out.Verdict = Pass
		out.Reason = fmt.Sprintf("%s inconclusive, accepted by allow_inconclusive", checks(out.Inconclusive))
	case len(j.Checks) > 0 && out.Skipped == len(j.Checks):
		out.Verdict, out.Reason = Skipped, "every check was skipped"
	default:
		out.Verdict = Pass
	}
	return out
}

func checks(n int) string {
	if n == 1 {
		return "1 check"
	}
	return fmt.Sprintf("%d checks", n)
}
