package results

import (
	"slices"
	"time"

	"github.com/llmload/llmload/metrics"
)

// What a sweep or capacity search varies (the scenario's names).
const (
	VaryUsers          = "users"
	VaryRate           = "rate"
	VaryMaxConcurrency = "max_concurrency"
)

// Modes of a Sweep.
const (
	ModeSweep    = "sweep"
	ModeCapacity = "capacity"
)

// Sweep is a run made of several steps at different loads: a sweep over
// given values, or the probes of a capacity search.
type Sweep struct {
	Mode string `json:"mode"` // ModeSweep or ModeCapacity
	Vary string `json:"vary"` // VaryUsers, VaryRate or VaryMaxConcurrency
	// KneeShare is the share of the initial slope under which the marginal
	// slope marks the knee.
	KneeShare float64 `json:"knee_share"`
	// Steps are in the order they ran (a search's probes are not sorted).
	Steps []Step `json:"steps"`
	// Knee and Capacity are computed once, by NewResult, from the steps.
	Knee     *Knee         `json:"knee"`
	Capacity *LoadCapacity `json:"capacity"`
	// Search is set for a capacity search.
	Search *Search `json:"search,omitempty"`
}

// Step is one step of a sweep or one probe of a search: a stage-like
// summary at one load.
type Step struct {
	Step     int              `json:"step"`     // from 1, in the order run
	Value    float64          `json:"value"`    // the load: users, req/s or max concurrency
	Duration float64          `json:"duration"` // seconds of dispatch
	Summary  *metrics.Summary `json:"summary"`
	// MeanUsers is the mean of the closed-loop users active while the step
	// dispatched (0 for an open loop).
	MeanUsers float64 `json:"mean_users,omitempty"`
	// Lengthened counts the times the probe was run again, longer, for its
	// checks to have enough samples.
	Lengthened int `json:"lengthened,omitempty"`
	// The scenario's sla checks on this step alone, as for a Stage.
	SLAChecked      bool     `json:"sla_checked"`
	SLAFailed       []string `json:"sla_failed,omitempty"`
	SLAInconclusive []string `json:"sla_inconclusive,omitempty"`
	Checks          []Check  `json:"checks,omitempty"`
	// Runs are the step's repeated runs (repeat = N, empty for one run):
	// the step's summary pools them and its checks judge the pooled
	// figures; each run is also judged on its own. RunsPassed counts the
	// runs that met every sla check alone, and Spread holds the runs'
	// values of the figures that decide the step (the main figures and
	// each sla check's).
	Runs       []StepRun `json:"runs,omitempty"`
	RunsPassed int       `json:"runs_passed,omitempty"`
	Spread     []Spread  `json:"spread,omitempty"`
}

// StepRun is one run of a repeated step.
type StepRun struct {
	Run      int     `json:"run"` // from 1
	Duration float64 `json:"duration"`
	// Passed says whether the run met every sla check on its own;
	// SLAFailed and SLAInconclusive name the checks that did not.
	Passed          bool     `json:"passed"`
	SLAFailed       []string `json:"sla_failed,omitempty"`
	SLAInconclusive []string `json:"sla_inconclusive,omitempty"`
	// Summary is the run's figures, without the time series.
	Summary *metrics.Summary `json:"summary"`
}

// SpreadOf returns the step's spread of figure key ("ttft_p99"), nil when
// the step has none.
func (s *Step) SpreadOf(key string) *Spread {
	for i := range s.Spread {
		if s.Spread[i].Key == key {
			return &s.Spread[i]
		}
	}
	return nil
}

// Passed reports whether the step ran and met every sla check: an
// inconclusive check (too few samples, say) shows nothing held.
func (s *Step) Passed() bool {
	return slaMet(s.SLAChecked, s.Summary, s.SLAFailed, s.SLAInconclusive)
}

// slaMet is a step's or stage's verdict from the one judge
// (metrics.Judge), over the sla checks it recorded as failed and
// inconclusive: they ran and the verdict is a pass; a failed or
// inconclusive check, or nothing completed, is not.
func slaMet(checked bool, sum *metrics.Summary, failed, inconclusive []string) bool {
	if !checked || sum == nil {
		return false
	}
	var checks []Check
	for _, n := range failed {
		checks = append(checks, Check{Name: n, Verdict: metrics.Fail})
	}
	for _, n := range inconclusive {
		checks = append(checks, Check{Name: n, Verdict: metrics.Inconclusive})
	}
	return metrics.Judge(metrics.Judging{Completed: sum.Completed, Checks: checks}).Verdict == metrics.Pass
}

// PerUnit is the step's output throughput per unit of load: per user for a
// users sweep (per active user when the mean is known), per concurrent
// request otherwise (the max_concurrency value, or for a rate the mean
// requests in flight by Little's law).
func (s *Step) PerUnit(vary string) float64 {
	if s.Summary == nil {
		return 0
	}
	switch vary {
	case VaryUsers:
		return perUnit(s.Summary.OutputThroughput, cmpOr(s.MeanUsers, s.Value))
	case VaryMaxConcurrency:
		return perUnit(s.Summary.OutputThroughput, s.Value)
	}
	return perUnit(s.Summary.OutputThroughput, MeanConcurrency(s.Summary))
}

func cmpOr(a, b float64) float64 {
	if a > 0 {
		return a
	}
	return b
}

func perUnit(v, n float64) float64 {
	if n <= 0 {
		return 0
	}
	return v / n
}

// MeanConcurrency is the mean number of requests in flight over a
// summary's span by Little's law: the sum of the completed requests'
// end-to-end latencies over the span.
func MeanConcurrency(s *metrics.Summary) float64 {
	if s == nil || s.Duration <= 0 {
		return 0
	}
	return s.E2EL.Sum / 1000 / s.Duration
}

// Knee is where output throughput stops rising with load: the last load
// before the marginal slope (output tok/s per added unit of load) falls
// under Share of the initial slope (output tok/s per unit at the first
// load, from the origin).
type Knee struct {
	Value        float64 `json:"value"`
	Step         int     `json:"step"`          // the step at Value
	InitialSlope float64 `json:"initial_slope"` // tok/s per unit of load
	Slope        float64 `json:"slope"`         // the marginal slope just past the knee
	Share        float64 `json:"share"`
}

// LoadCapacity is the highest load at which every sla check held, and the
// step that shows it.
type LoadCapacity struct {
	Value float64 `json:"value"`
	Step  int     `json:"step"`
	// With repeat = N, the step's runs: how many ran, how many met every
	// sla check on their own, and the runs' spread of each checked
	// figure (the step's verdict judges the pooled runs).
	Runs       int      `json:"runs,omitempty"`
	RunsPassed int      `json:"runs_passed,omitempty"`
	Spread     []Spread `json:"spread,omitempty"`
}

// Search is how a capacity search ended.
type Search struct {
	Min       float64 `json:"min"`
	Max       float64 `json:"max"`
	Precision float64 `json:"precision"` // fraction of the capacity
	// LastPass and FirstFail are the step numbers of the highest passing
	// and the lowest failing probe (0 when there is none); the capacity
	// lies in [Low, High).
	LastPass  int     `json:"last_pass"`
	FirstFail int     `json:"first_fail"`
	Low       float64 `json:"low"`
	High      float64 `json:"high"`
	// Width is High - Low, RelWidth the same over Low: the uncertainty of
	// the capacity the bracket leaves. Both are null when the bracket is
	// open (every probe passed up to Max, or Min failed).
	Width    *float64 `json:"width"`
	RelWidth *float64 `json:"rel_width"`
	// Outcome says why the search stopped: "converged", "max_passed",
	// "min_failed", "max_probes" or "interrupted".
	Outcome string `json:"outcome"`
}

// Search outcomes.
const (
	SearchConverged   = "converged"
	SearchMaxPassed   = "max_passed"
	SearchMinFailed   = "min_failed"
	SearchMaxProbes   = "max_probes"
	SearchInterrupted = "interrupted"
)

// point is one (load, throughput) pair.
type point struct {
	step       int
	load, tput float64
}

// sortedPoints returns the steps that ran as points sorted by load, one per
// load (the last probe at a load wins).
func sortedPoints(steps []Step) []point {
	byLoad := map[float64]point{}
	for _, s := range steps {
		if s.Summary == nil || s.Summary.Completed == 0 {
			continue
		}
		byLoad[s.Value] = point{s.Step, s.Value, s.Summary.OutputThroughput}
	}
	pts := make([]point, 0, len(byLoad))
	for _, p := range byLoad {
		pts = append(pts, p)
	}
	slices.SortFunc(pts, func(a, b point) int {
		switch {
		case a.load < b.load:
			return -1
		case a.load > b.load:
			return 1
		}
		return 0
	})
	return pts
}

// KneeOf finds the knee of the steps' output throughput against load: the
// initial slope is the throughput per unit at the lowest load (the line
// from the origin); the knee is the load before the first segment whose
// slope is under share of it. Nil when the throughput never flattens that
// much, or with fewer than two loads.
func KneeOf(steps []Step, share float64) *Knee {
	pts := sortedPoints(steps)
	if len(pts) < 2 || pts[0].load <= 0 || pts[0].tput <= 0 {
		return nil
	}
	s0 := pts[0].tput / pts[0].load
	for i := 1; i < len(pts); i++ {
		slope := (pts[i].tput - pts[i-1].tput) / (pts[i].load - pts[i-1].load)
		if slope < share*s0 {
			return &Knee{Value: pts[i-1].load, Step: pts[i-1].step, InitialSlope: s0, Slope: slope, Share: share}
		}
	}
	return nil
}

// CapacityOfSteps returns the highest load whose step met every sla check,
// nil when none did (or none was checked).
func CapacityOfSteps(steps []Step) *LoadCapacity {
	var best *LoadCapacity
	for _, s := range steps {
		if s.Passed() && (best == nil || s.Value > best.Value) {
			best = &LoadCapacity{Value: s.Value, Step: s.Step}
		}
	}
	return best
}

// Finish computes the knee and the capacity of a sweep once, and sets the
// capacity on the whole-run summary so that metrics.capacity reads it.
func (sw *Sweep) Finish(overall *metrics.Summary) {
	share := sw.KneeShare
	if !(share > 0) {
		share = 0.1
	}
	sw.Knee = KneeOf(sw.Steps, share)
	sw.Capacity = CapacityOfSteps(sw.Steps)
	if c := sw.Capacity; c != nil {
		for _, st := range sw.Steps {
			if st.Step != c.Step || len(st.Runs) == 0 {
				continue
			}
			c.Runs, c.RunsPassed = len(st.Runs), st.RunsPassed
			for _, ck := range st.Checks {
				if sp := st.SpreadOf(spreadKey(ck.Metric, ck.Stat)); sp != nil && ck.Metric != "" {
					c.Spread = append(c.Spread, *sp)
				}
			}
		}
	}
	if overall != nil && sw.Capacity != nil {
		v := sw.Capacity.Value
		overall.Capacity = &v
	}
}

// ConfiguredRate is the request rate a sweep or search over the rate was
// configured to offer over the whole run (overall is the run's summary):
// each step's rate for as long as its schedule ran, over the run's span
// from its first intended dispatch to its last, in which the pauses
// between steps offer none. It is what the run's scheduled rate, computed
// over the same span, would be without the chance of a seeded draw. 0 when
// the sweep varies something else, or nothing was dispatched.
func (sw *Sweep) ConfiguredRate(overall *metrics.Summary) float64 {
	if sw == nil || sw.Vary != VaryRate || overall == nil {
		return 0
	}
	run := overall.LastIntended.Sub(overall.FirstIntended)
	if run <= 0 {
		return 0
	}
	offered := 0.0 // requests the steps' rates offer over their spans
	for i := range sw.Steps {
		offered += sw.Steps[i].Value * sw.Steps[i].intendedSpan().Seconds()
	}
	return offered / run.Seconds()
}

// intendedSpan is how long the step's schedule ran: from its first
// intended dispatch to its last, summed over its runs when it was
// repeated (the pauses between them offer nothing).
func (s *Step) intendedSpan() time.Duration {
	span := func(sum *metrics.Summary) time.Duration {
		if sum == nil || sum.Dispatches < 2 {
			return 0
		}
		return sum.LastIntended.Sub(sum.FirstIntended)
	}
	if len(s.Runs) == 0 {
		return span(s.Summary)
	}
	var d time.Duration
	for _, r := range s.Runs {
		d += span(r.Summary)
	}
	return d
}

// spreadKey is a figure's key in a Spread: "ttft_p99", "error_rate".
func spreadKey(metric, stat string) string {
	if stat == "" {
		return metric
	}
	return metric + "_" + stat
}

// LoadView is a result's load steps: its sweep or capacity search, or, for
// a closed loop of stages (the saturation run, ramping users to find the
// knee), its stages as steps of a users sweep, with the knee found as a
// sweep's is and the capacity the stages' (the most users meeting every
// sla check). Nil when there is no load to set figures against. The
// result is not changed.
func LoadView(r *Result) *Sweep {
	if sw := r.Sweep; sw != nil && len(sw.Steps) > 0 {
		return sw
	}
	users := map[int]bool{}
	for _, st := range r.Stages {
		if st.Summary != nil && st.Summary.Completed > 0 {
			users[st.Users] = true
		}
	}
	if len(users) < 2 {
		return nil
	}
	sw := &Sweep{Mode: ModeSweep, Vary: VaryUsers, KneeShare: DefaultKneeShare}
	for _, st := range r.Stages {
		sw.Steps = append(sw.Steps, Step{Step: st.Stage, Value: float64(st.Users), Duration: st.Duration, Summary: st.Summary,
			MeanUsers: st.MeanUsers, SLAChecked: st.SLAChecked, SLAFailed: st.SLAFailed, SLAInconclusive: st.SLAInconclusive, Checks: st.Checks})
	}
	sw.Knee = KneeOf(sw.Steps, sw.KneeShare)
	if c := r.Capacity; c != nil {
		sw.Capacity = &LoadCapacity{Value: float64(c.Users), Step: c.Stage}
	}
	return sw
}

// DefaultKneeShare is the knee's share of the initial slope for stages, as
// a sweep's default (scenario.DefaultKneeShare).
const DefaultKneeShare = 0.1
