package compare

// Sequential gates: a verdict re-judged after every block of an A/B run
// (or every repeated run) that may stop the run once it is decided, with
// the overall error rate kept at the stated level despite the repeated
// looks. Each look spends a share of the error rate by Lan and DeMets'
// Pocock-type spending function (alpha*ln(1+(e-1)t) by information
// fraction t), and its intervals have that share as their miss rate:
// by Bonferroni's inequality, the chance that any look's interval misses
// the true delta is at most the sum, the stated 1 - confidence, however
// the looks are correlated and whatever the intervals' degrees of
// freedom. A verdict read off such an interval (fail: all of it beyond
// the tolerance; pass: all of it within) is then wrong no more often than
// a fixed-length comparison's.
//
// Exact group-sequential boundaries (Armitage, McPherson and Rowe's
// recursive integration) would be a little less strict, but they assume
// a known variance: with the t intervals of a few blocks they were
// measured to exceed the stated false-alarm rate (3.1% for 2.5%, 20,000
// simulated gates), and the bound by the sum holds exactly.

import (
	"fmt"
	"math"

	"github.com/llmload/llmload/metrics"
)

// Spent is the share of the error rate alpha the Pocock-type spending
// function has spent by information fraction t (0..1): nearly even
// shares, so that a large effect stops a run early.
func Spent(alpha, t float64) float64 {
	switch {
	case t <= 0:
		return 0
	case t >= 1:
		return alpha
	}
	return alpha * math.Log(1+(math.E-1)*t)
}

// Look is one look of a sequential gate.
type Look struct {
	// At is how many blocks (or runs) the look rests on; Fraction is At
	// over the planned most.
	At       int     `json:"at"`
	Fraction float64 `json:"information_fraction"`
	// Alpha is the share of the error rate the look spends, and
	// Confidence (1 - Alpha) the confidence of its intervals.
	Alpha      float64 `json:"alpha"`
	Confidence float64 `json:"confidence"`
	// Final: the look spent what remained (the schedule or the budget
	// ended).
	Final bool `json:"final,omitempty"`
	// Verdict is the gate's verdict at this look; Decided is true when
	// it stops the run (a fail, or every gated figure decided).
	Verdict string `json:"verdict"`
	Decided bool   `json:"decided"`
}

// Sequential is a gate re-judged after every block or run.
type Sequential struct {
	// Confidence is the overall confidence: every look's interval holds
	// the truth at once with at least this chance.
	Confidence float64
	// Planned is the most blocks or runs the run may take (the
	// schedule's, within the budget); MinAt the first that is looked at
	// (an interval over blocks needs two).
	Planned, MinAt int
	// Looks so far.
	Looks []Look
}

// NewSequential plans a gate of at most planned blocks or runs.
func NewSequential(confidence float64, planned int) *Sequential {
	if confidence <= 0 || confidence >= 1 {
		confidence = 0.95
	}
	return &Sequential{Confidence: confidence, Planned: max(planned, 2), MinAt: 2}
}

// Next makes the look at `at` blocks and keeps it (a look counts once it
// is made, whatever it decides): its nominal confidence is for the
// intervals of compare.Options. final says no block follows (the
// schedule or the budget ends): the look spends what remains. It returns
// false below MinAt (no look).
func (s *Sequential) Next(at int, final bool) (Look, bool) {
	if at < s.MinAt {
		return Look{}, false
	}
	// A last look short of the plan (the budget ended it) is at its own
	// fraction and spends what remains. A look that is not the last never
	// reaches fraction 1, even past the plan (a wall-time budget's plan is
	// an estimate): at/(at+1) keeps a share of the error rate for the
	// looks that follow.
	t := min(float64(at)/float64(s.Planned), float64(at)/float64(at+1))
	alpha := 1 - s.Confidence
	spent := 0.0
	if n := len(s.Looks); n > 0 {
		spent = Spent(alpha, s.Looks[n-1].Fraction)
	}
	now := Spent(alpha, t)
	if final {
		now = alpha
	}
	a := max(now-spent, 0)
	l := Look{At: at, Fraction: t, Alpha: a, Confidence: 1 - a, Final: final}
	s.Looks = append(s.Looks, l)
	return l, true
}

// Record keeps the verdict of the last look (Next made it).
func (s *Sequential) Record(verdict string, decided bool) {
	if len(s.Looks) > 0 {
		l := &s.Looks[len(s.Looks)-1]
		l.Verdict, l.Decided = verdict, decided
	}
}

// Decided says whether a look's deltas stop the run: a figure failed (the
// verdict cannot become a pass), or every judged figure passed.
func Decided(ds []Delta) bool {
	judged, open := false, false
	for _, d := range ds {
		switch d.Verdict {
		case Fail:
			return true
		case Inconclusive:
			open = true
		case Pass:
			judged = true
		}
	}
	return judged && !open
}

// MoreNeeded estimates, for an inconclusive figure judged over n blocks
// or runs, how many more would decide it if the observed effect held: the
// n' at which the interval's half-width (the quantile times the per-block
// spread over sqrt(n')) no longer reaches the tolerance. ok is false when
// the figure is not inconclusive or its interval is not over paired
// blocks (over runs, a repeat's against a stored baseline, the baseline's
// runs stay as they are, and their spread alone may keep the interval
// wide whatever the candidate adds: no estimate), and inf when the delta
// sits on the tolerance.
func MoreNeeded(d Delta, n int, confidence float64) (more int, inf, ok bool) {
	if d.Verdict != Inconclusive || !d.HasInterval || d.Method != MethodBlocks || n < 2 {
		return 0, false, false
	}
	half := (d.Upper - d.Lower) / 2
	// The per-block spread, from the interval (a t quantile at n-1
	// degrees of freedom), and the normal quantile a decision at the
	// same confidence would need with many blocks.
	sd := half / tQuantile(confidence, float64(n-1)) * math.Sqrt(float64(n))
	z := math.Sqrt2 * math.Erfinv(confidence)
	// The gap between the delta in the figure's worse direction and the
	// tolerance, which the interval must clear on one side.
	sign := 1.0
	if d.Better == metrics.HigherIsBetter {
		sign = -1
	}
	gap := math.Abs(sign*d.Delta - d.Limit)
	if d.Better == metrics.Neither || gap == 0 || math.IsNaN(sd) || math.IsInf(sd, 0) {
		return 0, true, true
	}
	need := math.Ceil(math.Pow(z*sd/gap, 2))
	if math.IsNaN(need) || need > 1e6 {
		return 0, true, true
	}
	return max(int(need)-n, 1), false, true
}

// FormatConfidence renders a confidence with the digits that tell it
// apart from 100%, rounded down so that it never claims more than it
// holds: 0.95 -> "95%", 0.9852 -> "98.5%", 0.9987 -> "99.8%".
func FormatConfidence(c float64) string {
	pct := 100 * c
	for digits := 0; digits < 9; digits++ {
		scale := math.Pow(10, float64(digits))
		f := math.Floor(pct*scale+1e-9) / scale
		if f < 100 && (digits > 0 || math.Abs(f-pct) < 1e-9) {
			return fmt.Sprintf("%.*f%%", digits, f)
		}
	}
	return fmt.Sprintf("%g%%", pct)
}
