package metrics

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestJudge: the verdicts of the one judge, in their order of precedence.
func TestJudge(t *testing.T) {
	c := func(vs ...string) []Check {
		var out []Check
		for _, v := range vs {
			out = append(out, Check{Verdict: v, Passed: v == Pass})
		}
		return out
	}
	tests := []struct {
		name string
		in   Judging
		want Judgement
	}{
		{"every check passed", Judging{Completed: 10, Checks: c(Pass, Pass)}, Judgement{Verdict: Pass}},
		{"no check at all", Judging{Completed: 10}, Judgement{Verdict: Pass}},
		{"a check failed", Judging{Completed: 10, Checks: c(Pass, Fail)}, Judgement{Verdict: Fail, Failed: 1}},
		{"fail outranks inconclusive", Judging{Completed: 10, Checks: c(Inconclusive, Fail)}, Judgement{Verdict: Fail, Failed: 1, Inconclusive: 1}},
		{"inconclusive", Judging{Completed: 10, Checks: c(Pass, Inconclusive)},
			Judgement{Verdict: Inconclusive, Inconclusive: 1, Reason: "1 check inconclusive: no valid verdict (allow_inconclusive = true accepts them)"}},
		{"inconclusive allowed", Judging{Completed: 10, Checks: c(Inconclusive, Inconclusive), AllowInconclusive: true},
			Judgement{Verdict: Pass, Inconclusive: 2, Reason: "2 checks inconclusive, accepted by allow_inconclusive"}},
		{"skipped and passed", Judging{Completed: 10, Checks: c(Skipped, Pass)}, Judgement{Verdict: Pass, Skipped: 1}},
		{"every check skipped", Judging{Completed: 10, Checks: c(Skipped, Skipped)}, Judgement{Verdict: Skipped, Skipped: 2, Reason: "every check was skipped"}},
		{"invalid outranks a failed check", Judging{Completed: 10, Broken: []string{"lag_p99 12 ms over its bound of 10 ms"}, Checks: c(Fail)},
			Judgement{Verdict: Invalid, Failed: 1, Reason: "invalid run (lag_p99 12 ms over its bound of 10 ms): the load was not what the scenario said, so its checks prove nothing"}},
		{"nothing completed", Judging{Checks: c(Pass)}, Judgement{Verdict: Invalid, Reason: "no request completed: no valid result"}},
		{"no requests of its own (a comparison)", Judging{Completed: -1, Checks: c(Pass)}, Judgement{Verdict: Pass}},
		{"interrupted outranks everything", Judging{Interrupted: true, Broken: []string{"x"}, Checks: c(Fail)},
			Judgement{Verdict: Interrupted, Failed: 1, Reason: "interrupted; partial results above"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Judge(tt.in)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
