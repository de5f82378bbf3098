// Package report renders a finished run: the console summary (vLLM's block
// first, then ours), the <scenario>.json result file with vLLM's keys and
// units, and the per-request <scenario>.requests.jsonl. It imports only
// metrics: every figure it prints was computed before it is called.
package report

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/llmload/llmload/metrics"
)

// Check is the outcome of one sla or assert check, as rendered.
type Check struct {
	Name        string `json:"name"`
	Kind        string `json:"kind"` // "sla" or "assert"
	Description string `json:"description,omitempty"`
	Threshold   string `json:"threshold"` // e.g. "< 500 ms"
	Measured    string `json:"measured"`  // e.g. "412.30 ms"
	Passed      bool   `json:"passed"`
	Message     string `json:"message,omitempty"` // why it failed
}

// Stage is one closed-loop stage's figures.
type Stage struct {
	Index    int              `json:"index"` // from 0; printed from 1
	Users    int              `json:"users"`
	Duration float64          `json:"duration"` // seconds
	Summary  *metrics.Summary `json:"summary"`
	// SLAFailed names the scenario's sla checks that this stage alone
	// breaks; SLAChecked says whether they were evaluated at all (a
	// scenario without sla checks has nothing to evaluate).
	SLAChecked bool     `json:"sla_checked"`
	SLAFailed  []string `json:"sla_failed,omitempty"`
}

// Schedule is how well the client kept to its dispatch schedule.
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

// ScheduleOf computes the schedule figures of the measured (non-warmup)
// requests. A dispatch is late when it left more than late after its
// intended time. Rates are (n-1) over the span from the first to the last
// dispatch (or intended send). The warning is set when any dispatch was
// late, or when an open-loop run achieved less than 95% of its own
// schedule's rate.
func ScheduleOf(configuredRate float64, requests []*metrics.Request, lag metrics.Latency, late time.Duration) Schedule {
	s := Schedule{
		ConfiguredRate: configuredRate,
		LateThreshold:  float64(late) / float64(time.Millisecond),
		LagP50:         lag.P50, LagP99: lag.P99, LagMax: lag.Max,
	}
	var dispatched, intended []time.Duration
	for _, r := range requests {
		if r.Warmup {
			continue
		}
		dispatched = append(dispatched, r.Dispatched)
		intended = append(intended, r.Intended)
		if r.Lag() > late {
			s.LateDispatches++
		}
	}
	s.AchievedRate = spanRate(dispatched)
	s.ScheduledRate = spanRate(intended)
	finite := configuredRate > 0 && !math.IsInf(configuredRate, 1)
	switch {
	case s.LateDispatches > 0:
		s.Warning = fmt.Sprintf("the client could not keep to the schedule: %d of %d dispatches left more than %v late, so the offered load was lower than configured; latencies from the intended send time show the effect",
			s.LateDispatches, len(dispatched), late)
	case finite && s.ScheduledRate > 0 && s.AchievedRate < 0.95*s.ScheduledRate:
		s.Warning = fmt.Sprintf("the achieved request rate (%.2f req/s) is under 95%% of the schedule's (%.2f req/s)", s.AchievedRate, s.ScheduledRate)
	}
	return s
}

// spanRate is (n-1) events over the span from the first to the last; 0
// when there is no span.
func spanRate(at []time.Duration) float64 {
	if len(at) < 2 {
		return 0
	}
	sort.Slice(at, func(i, j int) bool { return at[i] < at[j] })
	span := at[len(at)-1] - at[0]
	if span <= 0 {
		return 0 // everything at once: no rate to speak of (and JSON has no Inf)
	}
	return float64(len(at)-1) / span.Seconds()
}

// Run is everything a finished scenario run reports.
type Run struct {
	Scenario    string
	ToolVersion string
	StartedAt   time.Time
	EndedAt     time.Time

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

	Overall  *metrics.Summary
	Stages   []Stage
	Schedule Schedule

	Checks      []Check
	Interrupted bool

	Requests []*metrics.Request // measured and warmup, for <scenario>.requests.jsonl
}

// successful returns the successful non-warmup requests.
func (r *Run) successful() []*metrics.Request {
	var out []*metrics.Request
	for _, req := range r.Requests {
		if !req.Warmup && req.OK() {
			out = append(out, req)
		}
	}
	return out
}

// peakOutputPerSecond is vLLM's "peak output token throughput": the most
// output-carrying events in one whole-second bucket counted from the first
// successful request's send time. Each event counts as one token, as in
// vLLM.
func peakOutputPerSecond(reqs []*metrics.Request) float64 {
	if len(reqs) == 0 {
		return 0
	}
	start := reqs[0].Sent
	for _, r := range reqs {
		start = min(start, r.Sent)
	}
	buckets := map[int64]int{}
	best := 0
	for _, r := range reqs {
		t := r.Sent + r.TTFT
		for i := 0; ; i++ {
			b := int64((t - start) / time.Second)
			buckets[b]++
			best = max(best, buckets[b])
			if i == len(r.ITL) {
				break
			}
			t += r.ITL[i]
		}
	}
	return float64(best)
}
