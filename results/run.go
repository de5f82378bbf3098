package results

import (
	"fmt"
	"math"
	"time"

	"github.com/llmload/llmload/metrics"
)

// Verdicts of a check (metrics.Check).
const (
	Pass         = metrics.Pass
	Fail         = metrics.Fail
	Inconclusive = metrics.Inconclusive
	Skipped      = metrics.Skipped
)

// Check is the outcome of one check, as the result file stores it.
type Check = metrics.Check

// Ref is one metric reference of an assert condition and its value.
type Ref = metrics.CheckRef

// Validity says whether the load generator did what the scenario said; an
// invalid run gives no verdict (exit 3).
type Validity struct {
	Valid bool   `json:"valid"`
	Rules []Rule `json:"rules"`
}

// Rule is one validity rule of a run (metrics.Rule).
type Rule = metrics.Rule

// Broken lists the rules that apply and were broken.
func (v *Validity) Broken() []Rule {
	var out []Rule
	for _, r := range v.Rules {
		if r.Applies && !r.Valid {
			out = append(out, r)
		}
	}
	return out
}

// Stage is one closed-loop stage's figures.
type Stage struct {
	Stage    int              `json:"stage"` // from 1, as the console and the requests file number them
	Users    int              `json:"users"`
	Duration float64          `json:"duration"` // seconds
	Summary  *metrics.Summary `json:"summary"`
	// MeanUsers is the mean of the users active while the stage dispatched
	// (a ramp's users are not its target).
	MeanUsers float64 `json:"mean_users,omitempty"`
	// Checks are the scenario's sla checks evaluated on this stage alone;
	// SLAChecked says whether there were any (and the stage ran).
	SLAChecked bool     `json:"sla_checked"`
	SLAFailed  []string `json:"sla_failed,omitempty"`
	// SLAInconclusive names the checks that could not be judged on the
	// stage alone (too few samples, mostly).
	SLAInconclusive []string `json:"sla_inconclusive,omitempty"`
	Checks          []Check  `json:"checks,omitempty"`
}

// Capacity names the stage with the most users that met every sla check on
// its own (each one passed, none failed or inconclusive): the knee of a
// closed loop's stages.
type Capacity struct {
	Stage int `json:"stage"`
	Users int `json:"users"`
}

// capacityOf returns the stage with the most users meeting every sla
// check, nil when no stage was checked or none met them.
func CapacityOf(stages []Stage) *Capacity {
	var best *Capacity
	for _, st := range stages {
		if !slaMet(st.SLAChecked, st.Summary, st.SLAFailed, st.SLAInconclusive) {
			continue
		}
		if best == nil || st.Users > best.Users {
			best = &Capacity{Stage: st.Stage, Users: st.Users}
		}
	}
	return best
}

// Schedule is how well the client kept to its dispatch schedule, from the
// summary's figures.
type Schedule struct {
	ConfiguredRate float64 `json:"configured_rate"` // req/s; +Inf for "inf"; 0 for closed loop
	AchievedRate   float64 `json:"achieved_rate"`   // req/s of dispatches
	// ScheduledRate is the rate of the drawn schedule itself (a seeded
	// Poisson sample differs from the configured rate by chance); the
	// achieved rate is judged against it.
	ScheduledRate  float64 `json:"scheduled_rate"`
	LateThreshold  float64 `json:"late_threshold_ms"`
	LateDispatches int     `json:"late_dispatches"` // dispatches later than LateThreshold
	LagP50         float64 `json:"lag_p50_ms"`
	LagP99         float64 `json:"lag_p99_ms"`
	LagMax         float64 `json:"lag_max_ms"`
	Warning        string  `json:"warning,omitempty"` // set when the client could not keep up
}

// ScheduleOf reads the schedule figures of a summary. Lateness is judged
// only against a real schedule (an open loop at a finite rate): at rate inf
// or in a closed loop there is no intended time to be late against. The
// warning is set when a dispatch was late, or when an open loop at a
// finite rate achieved less than 95% of its own schedule's rate.
func ScheduleOf(configuredRate float64, s *metrics.Summary) Schedule {
	sch := Schedule{
		ConfiguredRate: configuredRate,
		AchievedRate:   s.AchievedRate,
		ScheduledRate:  s.ScheduledRate,
		LateThreshold:  s.LateThreshold,
		LateDispatches: s.LateDispatches,
		LagP50:         s.Lag.P50, LagP99: s.Lag.P99, LagMax: s.Lag.Max,
	}
	finite := configuredRate > 0 && !math.IsInf(configuredRate, 1)
	switch {
	case sch.LateDispatches > 0:
		sch.Warning = fmt.Sprintf("the client could not keep to the schedule: %d of %d dispatches left more than %g ms late, so the offered load was lower than configured; latencies from the intended send time show the effect",
			sch.LateDispatches, s.Dispatches, sch.LateThreshold)
	case finite && sch.ScheduledRate > 0 && sch.AchievedRate < 0.95*sch.ScheduledRate:
		sch.Warning = fmt.Sprintf("the achieved request rate (%.2f req/s) is under 95%% of the schedule's (%.2f req/s)", sch.AchievedRate, sch.ScheduledRate)
	}
	return sch
}

// Run is everything a finished scenario run reports; NewResult turns it
// into the result file's content, which every renderer reads.
type Run struct {
	Scenario    string
	ToolVersion string
	ToolCommit  string
	// RunID identifies this run (shards and repeats of one run will share
	// it); Fingerprint identifies its configuration: the resolved
	// scenario, the sampled dataset and the tool version.
	RunID       string
	Fingerprint string
	StartedAt   time.Time
	EndedAt     time.Time
	// TimeZero is the wall-clock time of the run's time zero, the instant
	// every offset in the requests file counts from.
	TimeZero time.Time

	TargetURL, API, Model string // never the API key
	// Tokenizer names the tokenizer used for token counts ("" for none).
	Tokenizer string

	Config  any // the resolved scenario, JSON-able
	Dataset any // dataset statistics, JSON-able
	// Simulator holds the built-in simulator's own statistics (steps,
	// scheduler jitter, faults injected) when the target was sim://; nil
	// otherwise.
	Simulator any

	TokenizerApproximate bool

	MaxConcurrency int     // 0 = none (vLLM writes null)
	RequestRate    float64 // req/s; +Inf for "inf" (vLLM writes "inf"); 0 for closed loop
	Burstiness     float64
	// Goodput is the SLO request goodput was measured against; when it is
	// empty no goodput figure is printed and request_goodput is null, as in
	// vLLM.
	Goodput metrics.SLO

	Overall *metrics.Summary
	Stages  []Stage
	// Sweep holds the steps of a sweep or capacity search (its knee and
	// capacity are computed by NewResult, which also sets
	// Overall.Capacity).
	Sweep *Sweep

	Checks []Check
	// Validity is the run's validity; nil when not judged.
	Validity    *Validity
	Interrupted bool
	// Aborted says why abort_on stopped the run early ("" when it did not).
	Aborted string
	// Sampled says the requests sampled (temperature above 0 and no
	// seed): the same prompt need not get the same answer, so answers are
	// not held against a baseline's (agreement is not judged).
	Sampled bool

	// Percentiles and PercentileMetrics choose the vLLM block's rows and
	// the pNN_<metric>_ms keys added to the ones always written (nil:
	// DefaultPercentiles, DefaultPercentileMetrics).
	Percentiles       []float64
	PercentileMetrics []string
	// Detailed holds vLLM's per-request arrays (save_detailed); nil
	// leaves them out of the result.
	Detailed *Detailed

	// Parts lists the results a merged result was made of.
	Parts []Part

	// Shard is this result's shard of a split run (nil when unsplit); Sync
	// how it lined up with the other shards (nil without a common start).
	Shard *Shard
	Sync  *Sync
	// ShardCount and MissingShards describe a merge of shards: how many the
	// run had and which of them were not merged (a partial result).
	ShardCount    int
	MissingShards []int

	// Workload identifies what the run sent without its target;
	// ServerVersion is what the target said of its version; Comparison is
	// the run against its baseline (nil without one).
	Workload      *Workload
	ServerVersion string
	// ServerConfig is what the target said of its configuration.
	ServerConfig *ServerConfig
	Comparison   *Comparison

	// Repeat holds a repeated run's runs (Overall pools them); AB an
	// interleaved A/B run's arms (Overall is the candidate's).
	Repeat *Repeats
	AB     *AB
}

// The vLLM block's rows when a run does not choose them: P99 of TTFT, TPOT,
// ITL and E2EL.
var (
	DefaultPercentiles       = []float64{99}
	DefaultPercentileMetrics = metrics.VLLMPercentileMetrics()
)

// Part is one result file of a merged result: for shards, what shows a
// slow or skewed pod (its achieved rate, schedule lag, late start, clock
// offsets and errors).
type Part struct {
	RunID          string                    `json:"run_id"`
	Shard          *Shard                    `json:"shard,omitempty"`
	StartedAt      time.Time                 `json:"started_at"`
	TimeZero       time.Time                 `json:"time_zero,omitzero"`
	Completed      int                       `json:"completed"`
	Failed         int                       `json:"failed"`
	Errors         map[metrics.ErrorKind]int `json:"errors,omitempty"`
	Dispatches     int                       `json:"dispatches"`
	AchievedRate   float64                   `json:"achieved_rate"`
	LagP50         float64                   `json:"lag_p50_ms"`
	LagP99         float64                   `json:"lag_p99_ms"`
	LagMax         float64                   `json:"lag_max_ms"`
	LateDispatches int                       `json:"late_dispatches"`
	// StartLateMs is how long after the common start the shard began.
	StartLateMs float64 `json:"start_late_ms"`
	// The target's clock and shard 0's minus this shard's, and their
	// uncertainties (null when not measured).
	ClockOffsetMs       *float64 `json:"clock_offset_ms"`
	ClockUncertaintyMs  *float64 `json:"clock_uncertainty_ms"`
	LeaderOffsetMs      *float64 `json:"leader_offset_ms"`
	LeaderUncertaintyMs *float64 `json:"leader_uncertainty_ms"`
}

// PartOf summarises one unmerged result for a merged result's parts.
func PartOf(r *Result) Part {
	s := r.Summary
	pt := Part{
		RunID: r.RunID, Shard: r.Shard, StartedAt: r.StartedAt, TimeZero: r.TimeZero,
		Completed: s.Completed, Failed: s.Failed, Dispatches: s.Dispatches,
		AchievedRate: s.AchievedRate, LagP50: s.Lag.P50, LagP99: s.Lag.P99, LagMax: s.Lag.Max,
		LateDispatches: s.LateDispatches,
	}
	for k, n := range s.Errors {
		if n > 0 {
			if pt.Errors == nil {
				pt.Errors = map[metrics.ErrorKind]int{}
			}
			pt.Errors[k] = n
		}
	}
	if sy := r.Sync; sy != nil {
		pt.StartLateMs = sy.StartLateMs
		if c := sy.TargetClock; c != nil && c.Error == "" {
			pt.ClockOffsetMs, pt.ClockUncertaintyMs = &c.OffsetMs, &c.UncertaintyMs
		}
		if c := sy.LeaderClock; c != nil && c.Error == "" {
			pt.LeaderOffsetMs, pt.LeaderUncertaintyMs = &c.OffsetMs, &c.UncertaintyMs
		}
	}
	return pt
}
