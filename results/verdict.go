package results

import (
	"encoding/json"

	"github.com/llmload/llmload/metrics"
)

// Overall verdicts of a run, as CI outputs name them, beside Pass, Fail,
// Inconclusive and Skipped.
const (
	VerdictInvalid     = "invalid"     // the load generator did not do what the scenario said
	VerdictNoResult    = "no result"   // nothing completed
	VerdictInterrupted = "interrupted" // the run did not finish: it proves nothing either way
)

// Verdict is a result's overall verdict, from the one judge
// (metrics.Judge) over what the result records: interrupted, no result
// (nothing completed), invalid, fail (a check failed), inconclusive (one
// could not be judged, unless its scenario allowed it: then pass),
// skipped (every check was), or pass; a run abort_on stopped fails, as
// its exit code says.
func (r *Result) Verdict() string {
	j := metrics.Judging{Interrupted: r.Interrupted, Checks: r.Checks, AllowInconclusive: r.allowsInconclusive()}
	if r.Summary != nil {
		j.Completed = r.Summary.Completed
	}
	if r.Validity != nil && !r.Validity.Valid {
		for _, b := range r.Validity.Broken() {
			j.Broken = append(j.Broken, b.Name)
		}
	}
	switch v := metrics.Judge(j).Verdict; {
	case r.Aborted != "" && !r.Interrupted:
		// abort_on stopped the run: failed, as the run's exit says.
		return Fail
	case v == metrics.Invalid:
		if j.Completed == 0 {
			return VerdictNoResult
		}
		return VerdictInvalid
	default:
		return v
	}
}

// allowsInconclusive reads allow_inconclusive from the result's resolved
// scenario.
func (r *Result) allowsInconclusive() bool {
	var c struct {
		AllowInconclusive bool `json:"allow_inconclusive"`
	}
	_ = json.Unmarshal(r.Config, &c)
	return c.AllowInconclusive
}
