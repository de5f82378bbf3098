package results

// Overall verdicts of a run, as CI outputs name them.
const (
	VerdictInvalid  = "invalid"   // the load generator did not do what the scenario said
	VerdictNoResult = "no result" // nothing completed
)

// Verdict is a result's overall verdict: invalid, no result, fail (a check
// failed), inconclusive (one could not be judged), or pass. Skipped checks
// count for nothing.
func (r *Result) Verdict() string {
	switch {
	case r.Summary == nil || r.Summary.Completed == 0:
		return VerdictNoResult
	case r.Validity != nil && !r.Validity.Valid:
		return VerdictInvalid
	}
	v := Pass
	for _, c := range r.Checks {
		switch c.Verdict {
		case Fail:
			return Fail
		case Inconclusive:
			v = Inconclusive
		}
	}
	return v
}
