package results

import (
	"math"
	"time"

	"github.com/llmload/llmload/compare"
	"github.com/llmload/llmload/metrics"
)

// Repeats holds the runs of a scenario with repeat = N: the result's
// summary pools them (metrics.PoolSummaries), and each run keeps its own
// summary here, with the spread of the main figures over the runs.
type Repeats struct {
	// Count is the runs asked for; len(Runs) the runs made (fewer when
	// interrupted).
	Count    int         `json:"count"`
	Cooldown float64     `json:"cooldown_s"`
	Runs     []RepeatRun `json:"runs"`
	// Spread is, for each figure llmload compare shows, its values over
	// the runs, their median, range and coefficient of variation.
	Spread []Spread `json:"spread"`
	// Stopping is how a budget or stop_early limited the runs (nil:
	// neither was set).
	Stopping *Stopping `json:"stopping,omitempty"`
}

// RepeatRun is one run of a repeated scenario.
type RepeatRun struct {
	Run       int       `json:"run"` // from 1
	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at"`
	// TimeZero is the instant the run's own offsets count from; the
	// requests file's offsets count from the first run's.
	TimeZero time.Time `json:"time_zero"`
	// Valid is the run's own validity (the scenario's validity block on
	// its summary).
	Valid bool `json:"valid"`
	// Summary is the run's figures, with histograms and without the time
	// series (the result's pooled series holds every run's windows).
	Summary *metrics.Summary `json:"summary"`
}

// Spread is one figure over repeated runs (null statistics: a run lacks
// it).
type Spread struct {
	Key    string    `json:"key"` // "ttft_p99", "output_throughput"
	Metric string    `json:"metric"`
	Stat   string    `json:"stat,omitempty"`
	Unit   string    `json:"unit"`
	Values []float64 `json:"values"`
	Median *float64  `json:"median"`
	Min    *float64  `json:"min"`
	Max    *float64  `json:"max"`
	// CV is the coefficient of variation: the runs' sample standard
	// deviation over their mean (null when the mean is 0).
	CV *float64 `json:"cv"`
}

// Summaries returns the runs' summaries (nil for none).
func (r *Repeats) Summaries() []*metrics.Summary {
	if r == nil {
		return nil
	}
	out := make([]*metrics.Summary, 0, len(r.Runs))
	for _, run := range r.Runs {
		out = append(out, run.Summary)
	}
	return out
}

// AB is an interleaved A/B run: blocks of one schedule sent to each arm in
// turn. The result's summary is the candidate arm's (its blocks pooled);
// the baseline arm's pooled summary is here, and the result's Comparison
// compares the two.
type AB struct {
	// Interleave is the block length as written ("30s", "50 requests").
	Interleave string `json:"interleave"`
	// Blocks is the number of blocks each arm ran; First names the arm
	// that went first in each block (they alternate, so that an order
	// effect cancels).
	Blocks    int      `json:"blocks"`
	First     []string `json:"first"`
	Baseline  Arm      `json:"baseline"`
	Candidate Arm      `json:"candidate"`
	// Stopping is how a budget or stop_early limited the blocks (nil:
	// neither was set).
	Stopping *Stopping `json:"stopping,omitempty"`
}

// Arm is one side of an A/B run.
type Arm struct {
	Target        string `json:"target"`
	TargetURL     string `json:"target_url"`
	ServerVersion string `json:"server_version,omitempty"`
	// ServerConfig is what the arm's server said of its configuration.
	ServerConfig *ServerConfig `json:"server_config,omitempty"`
	// Summary is the arm's blocks pooled: set for the baseline arm (the
	// candidate's is the result's summary).
	Summary *metrics.Summary `json:"summary,omitempty"`
}

// Arm names in requests files and results.
const (
	ArmBaseline  = "baseline"
	ArmCandidate = "candidate"
)

func ptrOf(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// NewSpread fills a Spread from its statistics (NaN: null).
func NewSpread(key, metric, stat, unit string, values []float64, median, lo, hi, cv float64) Spread {
	return Spread{Key: key, Metric: metric, Stat: stat, Unit: unit, Values: values,
		Median: ptrOf(median), Min: ptrOf(lo), Max: ptrOf(hi), CV: ptrOf(cv)}
}

// How a run with a budget or stop_early ended (Stopping.Stopped).
const (
	StoppedDecided  = "decided"  // stop_early: the regression block was decided
	StoppedBudget   = "budget"   // another block or run would pass the budget
	StoppedSchedule = "schedule" // every scheduled block or run ran
	// StoppedCut: the run was interrupted (Ctrl-C), aborted or could not
	// go on; it is not a verdict of the gate.
	StoppedCut = "cut"
)

// Stopping is how an A/B run's blocks or a repeat's runs were limited by
// a budget and stopped early (budget, stop_early).
type Stopping struct {
	// Unit is "block" or "run"; Scheduled how many the schedule has,
	// Planned how many fit in the budget (estimated before the run), Ran
	// how many ran.
	Unit      string `json:"unit"`
	Scheduled int    `json:"scheduled"`
	Planned   int    `json:"planned"`
	Ran       int    `json:"ran"`
	// Stopped: StoppedDecided, StoppedBudget, StoppedSchedule or
	// StoppedCut.
	Stopped string `json:"stopped"`
	// Budget as written and in seconds of wall time.
	Budget        string  `json:"budget,omitempty"`
	BudgetSeconds float64 `json:"budget_s,omitempty"`
	// ElapsedSeconds is what the blocks or runs took; FullSeconds what
	// all the scheduled ones would have taken at the same pace. With a
	// GPU-time budget, the same in GPU minutes.
	ElapsedSeconds float64 `json:"elapsed_s"`
	FullSeconds    float64 `json:"full_s"`
	GPUMinutes     float64 `json:"gpu_minutes,omitempty"`
	FullGPUMinutes float64 `json:"full_gpu_minutes,omitempty"`
	// StopEarly: the regression block was re-judged after every block or
	// run (Looks) by Method, whose intervals hold Confidence over all the
	// looks; Verdict is the last look's.
	StopEarly  bool           `json:"stop_early"`
	Method     string         `json:"method,omitempty"`
	Confidence float64        `json:"confidence,omitempty"`
	Looks      []compare.Look `json:"looks,omitempty"`
	// BaselineRunID is the run a repeat's gate judged against (its
	// stored baseline): a later comparison with that run is the gate's.
	BaselineRunID string `json:"baseline_run_id,omitempty"`
	Verdict       string `json:"verdict,omitempty"`
	// MoreNeeded estimates, for each figure still inconclusive, how many
	// more blocks or runs would decide it if its observed effect held.
	MoreNeeded []MoreNeeded `json:"more_needed,omitempty"`
}

// StoppingOf is a repeat's Stopping (nil for no repeat, or none).
func (r *Repeats) StoppingOf() *Stopping {
	if r == nil {
		return nil
	}
	return r.Stopping
}

// LastConfidence is the confidence of a sequential gate's last look, the
// one its verdict is judged at (0, the default, without looks).
func (s *Stopping) LastConfidence() float64 {
	if s == nil || len(s.Looks) == 0 {
		return 0
	}
	return s.Looks[len(s.Looks)-1].Confidence
}

// MoreNeeded is one inconclusive figure's estimate.
type MoreNeeded struct {
	Key  string `json:"key"`
	More int    `json:"more"`
	// Undecidable: the delta sits on the tolerance.
	Undecidable bool `json:"undecidable,omitempty"`
}
