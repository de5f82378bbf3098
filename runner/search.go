package runner

import (
	"math"

	"github.com/llmload/llmload/results"
)

// Searcher steers a capacity search: exponential probing from min
// (doubling) until a probe fails or max passes, then bisection between the
// highest pass and the lowest fail until their gap is within the precision
// (or, for whole loads, one unit). It is a pure state machine: the caller
// runs each probe Next asks for and Records its verdict.
type Searcher struct {
	min, max, precision float64
	integral            bool
	maxProbes           int

	probes      int
	pass, fail  float64 // highest pass, lowest fail; valid when has*
	hasPass     bool
	hasFail     bool
	passStep    int
	failStep    int
	outcome     string
	interrupted bool
}

// NewSearcher returns a search over [min, max]; integral loads (users,
// max_concurrency) are probed at whole values; maxProbes 0 is no bound.
func NewSearcher(min, max, precision float64, integral bool, maxProbes int) *Searcher {
	return &Searcher{min: min, max: max, precision: precision, integral: integral, maxProbes: maxProbes}
}

// Next returns the next load to probe, or false when the search is over.
func (s *Searcher) Next() (float64, bool) {
	if s.outcome != "" {
		return 0, false
	}
	if s.maxProbes > 0 && s.probes >= s.maxProbes {
		s.outcome = results.SearchMaxProbes
		return 0, false
	}
	switch {
	case !s.hasPass && !s.hasFail:
		return s.min, true
	case !s.hasPass:
		s.outcome = results.SearchMinFailed
		return 0, false
	case !s.hasFail:
		if s.pass >= s.max {
			s.outcome = results.SearchMaxPassed
			return 0, false
		}
		return s.round(min(s.pass*2, s.max)), true
	}
	gap := s.fail - s.pass
	if gap <= s.precision*s.pass || (s.integral && gap <= 1) {
		s.outcome = results.SearchConverged
		return 0, false
	}
	mid := s.round((s.pass + s.fail) / 2)
	if mid <= s.pass || mid >= s.fail {
		s.outcome = results.SearchConverged
		return 0, false
	}
	return mid, true
}

func (s *Searcher) round(v float64) float64 {
	if s.integral {
		return math.Floor(v)
	}
	return v
}

// Record notes the verdict of the probe at load v, run as step number
// step.
func (s *Searcher) Record(v float64, step int, passed bool) {
	s.probes++
	switch {
	case passed && (!s.hasPass || v > s.pass):
		s.pass, s.hasPass, s.passStep = v, true, step
	case !passed && (!s.hasFail || v < s.fail):
		s.fail, s.hasFail, s.failStep = v, true, step
	}
}

// Interrupt ends the search early.
func (s *Searcher) Interrupt() {
	if s.outcome == "" {
		s.outcome = results.SearchInterrupted
	}
}

// Result describes the search's bracket.
func (s *Searcher) Result() *results.Search {
	r := &results.Search{Min: s.min, Max: s.max, Precision: s.precision, Outcome: s.outcome,
		LastPass: s.passStep, FirstFail: s.failStep}
	if s.hasPass {
		r.Low = s.pass
	}
	if s.hasFail {
		r.High = s.fail
	}
	if s.hasPass && s.hasFail {
		w := s.fail - s.pass
		rel := w / s.pass
		r.Width, r.RelWidth = &w, &rel
	}
	return r
}
