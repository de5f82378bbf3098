package resultstest

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
)

const msec = time.Millisecond

// Request builds a successful request: ttft, then one event per gap.
func Request(id int64, intended, lag, queue, ttft time.Duration, gaps ...time.Duration) *metrics.Request {
	e2e := ttft
	for _, g := range gaps {
		e2e += g
	}
	return &metrics.Request{
		ID: id, DatasetIndex: int(id), RequestID: "req-" + string(rune('a'+id%26)),
		Intended: intended, Dispatched: intended + lag, Sent: intended + queue,
		TTFT: ttft, ITL: gaps, E2E: e2e, End: intended + queue + e2e,
		PromptTokens: 20 + int(id), PromptTokensSource: metrics.SourceUsage, DatasetPromptTokens: 18 + int(id),
		OutputTokens: len(gaps) + 1, OutputTokensSource: metrics.SourceUsage, OutputEvents: len(gaps) + 1,
		MaxTokens: 64, FinishReason: "stop",
	}
}

// SecretConfig is a resolved scenario whose target holds an API key that
// must never be written.
type SecretConfig struct {
	Name   string `json:"name"`
	Target struct {
		URL    string `json:"url"`
		APIKey string `json:"-"`
	} `json:"target"`
	Rate float64 `json:"rate"`
}

const Secret = "sk-live-THIS-MUST-NOT-LEAK-1234"

// Zero is the fixtures' time zero.
var Zero = time.Date(2026, 11, 29, 15, 4, 5, 0, time.UTC)

// Record feeds reqs to a recorder and a series recorder with the fixtures'
// time zero.
func Record(opts metrics.Options, reqs []*metrics.Request, conc func(i int) int) (*metrics.Recorder, *metrics.Series) {
	opts.Base = Zero
	opts.LateThreshold = 10 * msec
	rec := metrics.NewRecorder(opts)
	ser := metrics.NewSeriesRecorder(Zero, time.Second)
	for i, r := range reqs {
		rec.Add(r)
		ser.Add(r)
		if conc != nil {
			rec.ObserveConcurrency(conc(i))
			ser.Observe(r.Sent, conc(i), 0)
		}
	}
	return rec, ser.Series()
}

// OpenLoopRequests are the requests of OpenLoopRun.
func OpenLoopRequests() []*metrics.Request {
	return []*metrics.Request{
		func() *metrics.Request {
			r := Request(0, 0, 0, 0, 90*msec, 20*msec)
			r.Warmup = true
			return r
		}(),
		Request(1, 0, 200*time.Microsecond, 300*time.Microsecond, 180*msec, 20*msec, 21*msec, 19*msec, 20*msec),
		Request(2, 100*msec, 3*msec, 4*msec, 220*msec, 22*msec, 25*msec, 60*msec),
		Request(3, 200*msec, 100*time.Microsecond, 2*msec, 150*msec, 18*msec, 18*msec),
		func() *metrics.Request {
			r := Request(4, 300*msec, 0, msec, 400*msec, 30*msec, 35*msec, 30*msec, 31*msec, 29*msec)
			r.FinishReason = "length"
			return r
		}(),
		func() *metrics.Request {
			r := Request(5, 400*msec, 0, msec, 170*msec, 20*msec)
			r.OutputTokensSource = metrics.SourceEvents
			r.FinishReason = ""
			return r
		}(),
		{ID: 6, Intended: 500 * msec, Dispatched: 500 * msec, Sent: 501 * msec, End: 510 * msec, StatusCode: 503,
			Error: metrics.ErrHTTPStatus, ErrorMessage: "503 Service Unavailable: overloaded"},
		{ID: 7, Intended: 600 * msec, Dispatched: 600 * msec, Sent: 601 * msec, End: 1400 * msec, TTFT: 100 * msec,
			OutputEvents: 3, Error: metrics.ErrStall, ErrorMessage: "no bytes for 30s"},
	}
}

// OpenLoopRun is a small open-loop run with failures, truncation, warmup,
// goodput, a schedule warning and one failed check.
func OpenLoopRun() *results.Run {
	reqs := OpenLoopRequests()
	slo := metrics.SLO{TTFT: 200 * msec, ITL: 50 * msec}
	rec, series := Record(metrics.Options{Goodput: slo, Scheduled: true}, reqs, func(i int) int { return min(i+1, 3) })
	s := rec.SummaryOver(1500 * msec)
	s.Series = series
	s.PeakOutputThroughput = series.PeakOutput()

	cfg := SecretConfig{Name: "chat-smoke", Rate: 10}
	cfg.Target.URL = "http://127.0.0.1:8000"
	cfg.Target.APIKey = Secret

	return &results.Run{
		Scenario: "chat-smoke", ToolVersion: "v0.0.0-test", RunID: "run-1", Fingerprint: "f1", TimeZero: Zero,
		StartedAt: time.Date(2026, 11, 29, 15, 4, 5, 0, time.UTC),
		EndedAt:   time.Date(2026, 11, 29, 15, 4, 7, 0, time.UTC),
		TargetURL: "http://127.0.0.1:8000", API: "openai-chat", Model: "llama-3-8b", Tokenizer: "llama3",
		Config:         cfg,
		Dataset:        map[string]any{"name": "sharegpt", "requests": 8, "mean_prompt_tokens": 23.5},
		MaxConcurrency: 3, RequestRate: 10, Burstiness: 1,
		Goodput: slo,
		Overall: s,
		Checks: []results.Check{
			{Name: "ttft_p99", Kind: "sla", Metric: "ttft", Stat: "p99", Op: "<=", Threshold: Num(500), Unit: "ms", Value: Num(399.99), Samples: 5, Verdict: results.Pass, Passed: true},
			{Name: "itl_p99", Kind: "sla", Description: "smooth streaming", Metric: "itl", Stat: "p99", Op: "<=", Threshold: Num(50), Unit: "ms", Value: Num(60), Samples: 13, Verdict: results.Fail,
				Message: "metrics.itl.p99 is 60.00, over 50"},
			{Name: "no_errors", Kind: "assert", Description: "metrics.error_rate == 0", Refs: []results.Ref{{Ref: "metrics.error_rate", Value: Num(0.2857)}}, Verdict: results.Fail,
				Message: "error rate must be zero\nwith metrics.error_rate as 0.2857"},
			{Name: "ttft_p50", Kind: "sla", Metric: "ttft", Stat: "p50", Op: "<=", Threshold: Num(150), Unit: "ms", Value: Num(120), Lower: Num(80), Upper: Num(190), Samples: 5, Verdict: results.Inconclusive,
				Message: "P50 TTFT <= 150 ms: measured 120 ms, but its 95% interval [80 ms, 190 ms] straddles the bound"},
			{Name: "error_rate", Kind: "sla", Metric: "error_rate", Op: "<=", Threshold: Num(0.01), Unit: "fraction", Value: Num(0.2857), Samples: 7, Default: true, Verdict: results.Fail,
				Message: "error rate <= 1%: measured 28.57%."},
		},
		Validity: &results.Validity{Valid: false, Rules: []results.Rule{
			{Name: "rate_shortfall", Description: "achieved dispatch rate under the schedule's own", Value: 0.02, Bound: 0.05, Unit: "fraction", Applies: true, Valid: true},
			{Name: "lag_p99", Description: "P99 dispatch lag", Value: 12.5, Bound: 10, Unit: "ms", Applies: true, Valid: false, Why: "over 7 dispatches"},
			{Name: "token_mismatch", Description: "requests whose server and client output token counts differ", Bound: 0.01, Unit: "fraction", Why: "no request counted by both"},
		}},
	}
}

func Num(v float64) *float64 { return &v }

// ClosedLoopRun is a two-stage closed-loop run with no goodput SLO whose
// second stage breaks an sla check.
func ClosedLoopRun() *results.Run {
	var stages []results.Stage
	all := ClosedLoopRequests()
	for i, users := range []int{1, 4} {
		rec, _ := Record(metrics.Options{}, all[i*4:i*4+4], nil)
		rec.ObserveConcurrency(users)
		st := results.Stage{Stage: i + 1, Users: users, Duration: 2, Summary: rec.SummaryOver(2 * time.Second), SLAChecked: true}
		if i == 1 { // the second stage breaks the scenario's TTFT sla
			st.SLAFailed = []string{"ttft_p99"}
		}
		stages = append(stages, st)
	}
	// A third stage the run ended before.
	empty, _ := Record(metrics.Options{}, nil, nil)
	stages = append(stages, results.Stage{Stage: 3, Users: 8, Summary: empty.SummaryOver(0)})
	overall, series := Record(metrics.Options{}, all, func(i int) int { return 1 + 3*(i/4) })
	s := overall.SummaryOver(4 * time.Second)
	s.Series = series
	s.PeakOutputThroughput = series.PeakOutput()
	return &results.Run{
		Scenario: "knee", ToolVersion: "v0.0.0-test", RunID: "run-2", Fingerprint: "f2", TimeZero: Zero,
		StartedAt: time.Date(2026, 11, 29, 16, 0, 0, 0, time.UTC),
		EndedAt:   time.Date(2026, 11, 29, 16, 0, 4, 0, time.UTC),
		TargetURL: "http://127.0.0.1:8000", API: "openai", Model: "qwen3",
		TokenizerApproximate: true,
		Overall:              s, Stages: stages,
	}
}

// ClosedLoopRequests are the requests of ClosedLoopRun: four in each of
// two stages.
func ClosedLoopRequests() []*metrics.Request {
	var all []*metrics.Request
	for i := range 2 {
		for j := range 4 {
			id := int64(i*10 + j)
			start := time.Duration(i)*2*time.Second + time.Duration(j)*300*msec
			ttft := time.Duration(100+i*150+j*10) * msec
			r := Request(id, start, 50*time.Microsecond, 0, ttft, 20*msec, time.Duration(20+i*15)*msec)
			r.Stage = i
			all = append(all, r)
		}
	}
	return all
}

// EmptyRequests are the requests of EmptyRun.
func EmptyRequests() []*metrics.Request {
	return []*metrics.Request{
		{ID: 1, End: msec, Error: metrics.ErrConnect, ErrorMessage: "dial tcp 127.0.0.1:9: connection refused"},
		{ID: 2, End: msec, Error: metrics.ErrConnect, ErrorMessage: "dial tcp 127.0.0.1:9: connection refused"},
	}
}

// EmptyRun is a run in which every request failed, at rate inf.
func EmptyRun() *results.Run {
	rec, series := Record(metrics.Options{}, EmptyRequests(), nil)
	s := rec.SummaryOver(10 * msec)
	s.Series = series
	return &results.Run{
		Scenario: "down", ToolVersion: "v0.0.0-test", RunID: "run-3", Fingerprint: "f3", TimeZero: Zero,
		StartedAt: time.Date(2026, 11, 29, 16, 30, 0, 0, time.UTC),
		EndedAt:   time.Date(2026, 11, 29, 16, 30, 0, 10_000_000, time.UTC),
		TargetURL: "http://127.0.0.1:9", API: "openai", Model: "m",
		RequestRate: math.Inf(1), Burstiness: 1,
		Overall:     s,
		Interrupted: true,
	}
}

// SimKnobsRequests are OpenLoopRequests with generated texts.
func SimKnobsRequests() []*metrics.Request {
	reqs := OpenLoopRequests()
	for i, r := range reqs {
		if r.OK() {
			r.GeneratedText = fmt.Sprintf("reply %d \u00e9", i)
		}
	}
	return reqs
}

// SimKnobsRun is OpenLoopRun on the simulator with the approximate
// tokenizer, percentiles chosen for TTFT and E2EL only (75 and 99.99 are
// not among the keys always written), and vLLM's per-request arrays,
// collected from the requests in completion order (here reversed).
func SimKnobsRun() *results.Run {
	r := OpenLoopRun()
	r.Scenario, r.RunID, r.Fingerprint = "sim-knobs", "run-4", "f4"
	r.TargetURL = "sim://tiny"
	r.Simulator = map[string]any{"profile": "tiny"}
	r.TokenizerApproximate = true
	r.Percentiles = []float64{50, 75, 99.99}
	r.PercentileMetrics = []string{"ttft", "e2el"}
	c := results.NewDetailedCollector()
	reqs := SimKnobsRequests()
	for i := len(reqs) - 1; i >= 0; i-- {
		c.Result(reqs[i])
	}
	r.Detailed = c.Detailed()
	return r
}

// Runs are the fixtures whose result files and console reports have
// golden files: each run with its requests.
var Runs = []struct {
	Name     string
	Run      func() *results.Run
	Requests func() []*metrics.Request
}{
	{"open_loop", OpenLoopRun, OpenLoopRequests},
	{"closed_loop", ClosedLoopRun, ClosedLoopRequests},
	{"all_failed", EmptyRun, EmptyRequests},
	{"sim_knobs", SimKnobsRun, SimKnobsRequests},
}

// Result builds a run's result file content.
func Result(t testing.TB, r *results.Run) *results.Result {
	t.Helper()
	res, err := results.NewResult(r)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Shard is shard i of n of run id, made of the open-loop fixture.
func Shard(t testing.TB, id string, i, n int) *results.Result {
	r := OpenLoopRun()
	r.RunID = id
	r.Shard = &results.Shard{Index: i, Count: n}
	r.Sync = &results.Sync{StartAt: Zero, StartLateMs: float64(i),
		TargetClock: &results.ClockOffset{OffsetMs: 3, UncertaintyMs: 250, RTTMs: 0.5, Probes: 6, Resolution: "1s"}}
	return Result(t, r)
}
