package report

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/llmload/llmload/metrics"
)

var update = flag.Bool("update", false, "rewrite golden files")

const msec = time.Millisecond

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// request builds a successful request: ttft, then one event per gap.
func request(id int64, intended, lag, queue, ttft time.Duration, gaps ...time.Duration) *metrics.Request {
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

// secretConfig is a resolved scenario whose target holds an API key that
// must never be written.
type secretConfig struct {
	Name   string `json:"name"`
	Target struct {
		URL    string `json:"url"`
		APIKey string `json:"-"`
	} `json:"target"`
	Rate float64 `json:"rate"`
}

const secret = "sk-live-THIS-MUST-NOT-LEAK-1234"

// zero is the fixtures' time zero.
var zero = time.Date(2026, 11, 29, 15, 4, 5, 0, time.UTC)

// record feeds reqs to a recorder and a series recorder with the fixtures'
// time zero.
func record(opts metrics.Options, reqs []*metrics.Request, conc func(i int) int) (*metrics.Recorder, *metrics.Series) {
	opts.Base = zero
	opts.LateThreshold = 10 * msec
	rec := metrics.NewRecorder(opts)
	ser := metrics.NewSeriesRecorder(zero, time.Second)
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

// openLoopRequests are the requests of openLoopRun.
func openLoopRequests() []*metrics.Request {
	return []*metrics.Request{
		func() *metrics.Request {
			r := request(0, 0, 0, 0, 90*msec, 20*msec)
			r.Warmup = true
			return r
		}(),
		request(1, 0, 200*time.Microsecond, 300*time.Microsecond, 180*msec, 20*msec, 21*msec, 19*msec, 20*msec),
		request(2, 100*msec, 3*msec, 4*msec, 220*msec, 22*msec, 25*msec, 60*msec),
		request(3, 200*msec, 100*time.Microsecond, 2*msec, 150*msec, 18*msec, 18*msec),
		func() *metrics.Request {
			r := request(4, 300*msec, 0, msec, 400*msec, 30*msec, 35*msec, 30*msec, 31*msec, 29*msec)
			r.FinishReason = "length"
			return r
		}(),
		func() *metrics.Request {
			r := request(5, 400*msec, 0, msec, 170*msec, 20*msec)
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

// openLoopRun is a small open-loop run with failures, truncation, warmup,
// goodput, a schedule warning and one failed check.
func openLoopRun() *Run {
	reqs := openLoopRequests()
	slo := metrics.SLO{TTFT: 200 * msec, ITL: 50 * msec}
	rec, series := record(metrics.Options{Goodput: slo, Scheduled: true}, reqs, func(i int) int { return min(i+1, 3) })
	s := rec.SummaryOver(1500 * msec)
	s.Series = series
	s.PeakOutputThroughput = series.PeakOutput()

	cfg := secretConfig{Name: "chat-smoke", Rate: 10}
	cfg.Target.URL = "http://127.0.0.1:8000"
	cfg.Target.APIKey = secret

	return &Run{
		Scenario: "chat-smoke", ToolVersion: "v0.0.0-test", RunID: "run-1", Fingerprint: "f1", TimeZero: zero,
		StartedAt: time.Date(2026, 11, 29, 15, 4, 5, 0, time.UTC),
		EndedAt:   time.Date(2026, 11, 29, 15, 4, 7, 0, time.UTC),
		TargetURL: "http://127.0.0.1:8000", API: "openai-chat", Model: "llama-3-8b", Tokenizer: "llama3",
		Config:         cfg,
		Dataset:        map[string]any{"name": "sharegpt", "requests": 8, "mean_prompt_tokens": 23.5},
		MaxConcurrency: 3, RequestRate: 10, Burstiness: 1,
		Goodput: slo,
		Overall: s,
		Checks: []Check{
			{Name: "ttft_p99", Kind: "sla", Metric: "ttft", Stat: "p99", Op: "<=", Threshold: num(500), Unit: "ms", Value: num(399.99), Samples: 5, Verdict: Pass, Passed: true},
			{Name: "itl_p99", Kind: "sla", Description: "smooth streaming", Metric: "itl", Stat: "p99", Op: "<=", Threshold: num(50), Unit: "ms", Value: num(60), Samples: 13, Verdict: Fail,
				Message: "metrics.itl.p99 is 60.00, over 50"},
			{Name: "no_errors", Kind: "assert", Description: "metrics.error_rate == 0", Refs: []Ref{{Ref: "metrics.error_rate", Value: num(0.2857)}}, Verdict: Fail,
				Message: "error rate must be zero\nwith metrics.error_rate as 0.2857"},
			{Name: "ttft_p50", Kind: "sla", Metric: "ttft", Stat: "p50", Op: "<=", Threshold: num(150), Unit: "ms", Value: num(120), Lower: num(80), Upper: num(190), Samples: 5, Verdict: Inconclusive,
				Message: "P50 TTFT <= 150 ms: measured 120 ms, but its 95% interval [80 ms, 190 ms] straddles the bound"},
			{Name: "error_rate", Kind: "sla", Metric: "error_rate", Op: "<=", Threshold: num(0.01), Unit: "fraction", Value: num(0.2857), Samples: 7, Default: true, Verdict: Fail,
				Message: "error rate <= 1%: measured 28.57%."},
		},
		Validity: &Validity{Valid: false, Rules: []Rule{
			{Name: "rate_shortfall", Description: "achieved dispatch rate under the schedule's own", Value: 0.02, Bound: 0.05, Unit: "fraction", Applies: true, Valid: true},
			{Name: "lag_p99", Description: "P99 dispatch lag", Value: 12.5, Bound: 10, Unit: "ms", Applies: true, Valid: false, Why: "over 7 dispatches"},
			{Name: "token_mismatch", Description: "requests whose server and client output token counts differ", Bound: 0.01, Unit: "fraction", Why: "no request counted by both"},
		}},
	}
}

func num(v float64) *float64 { return &v }

// closedLoopRun is a two-stage closed-loop run with no goodput SLO whose
// second stage breaks an sla check.
func closedLoopRun() *Run {
	var stages []Stage
	all := closedLoopRequests()
	for i, users := range []int{1, 4} {
		rec, _ := record(metrics.Options{}, all[i*4:i*4+4], nil)
		rec.ObserveConcurrency(users)
		st := Stage{Stage: i + 1, Users: users, Duration: 2, Summary: rec.SummaryOver(2 * time.Second), SLAChecked: true}
		if i == 1 { // the second stage breaks the scenario's TTFT sla
			st.SLAFailed = []string{"ttft_p99"}
		}
		stages = append(stages, st)
	}
	// A third stage the run ended before.
	empty, _ := record(metrics.Options{}, nil, nil)
	stages = append(stages, Stage{Stage: 3, Users: 8, Summary: empty.SummaryOver(0)})
	overall, series := record(metrics.Options{}, all, func(i int) int { return 1 + 3*(i/4) })
	s := overall.SummaryOver(4 * time.Second)
	s.Series = series
	s.PeakOutputThroughput = series.PeakOutput()
	return &Run{
		Scenario: "knee", ToolVersion: "v0.0.0-test", RunID: "run-2", Fingerprint: "f2", TimeZero: zero,
		StartedAt: time.Date(2026, 11, 29, 16, 0, 0, 0, time.UTC),
		EndedAt:   time.Date(2026, 11, 29, 16, 0, 4, 0, time.UTC),
		TargetURL: "http://127.0.0.1:8000", API: "openai", Model: "qwen3",
		TokenizerApproximate: true,
		Overall:              s, Stages: stages,
	}
}

// closedLoopRequests are the requests of closedLoopRun: four in each of
// two stages.
func closedLoopRequests() []*metrics.Request {
	var all []*metrics.Request
	for i := range 2 {
		for j := range 4 {
			id := int64(i*10 + j)
			start := time.Duration(i)*2*time.Second + time.Duration(j)*300*msec
			ttft := time.Duration(100+i*150+j*10) * msec
			r := request(id, start, 50*time.Microsecond, 0, ttft, 20*msec, time.Duration(20+i*15)*msec)
			r.Stage = i
			all = append(all, r)
		}
	}
	return all
}

// emptyRequests are the requests of emptyRun.
func emptyRequests() []*metrics.Request {
	return []*metrics.Request{
		{ID: 1, End: msec, Error: metrics.ErrConnect, ErrorMessage: "dial tcp 127.0.0.1:9: connection refused"},
		{ID: 2, End: msec, Error: metrics.ErrConnect, ErrorMessage: "dial tcp 127.0.0.1:9: connection refused"},
	}
}

// emptyRun is a run in which every request failed, at rate inf.
func emptyRun() *Run {
	rec, series := record(metrics.Options{}, emptyRequests(), nil)
	s := rec.SummaryOver(10 * msec)
	s.Series = series
	return &Run{
		Scenario: "down", ToolVersion: "v0.0.0-test", RunID: "run-3", Fingerprint: "f3", TimeZero: zero,
		StartedAt: time.Date(2026, 11, 29, 16, 30, 0, 0, time.UTC),
		EndedAt:   time.Date(2026, 11, 29, 16, 30, 0, 10_000_000, time.UTC),
		TargetURL: "http://127.0.0.1:9", API: "openai", Model: "m",
		RequestRate: math.Inf(1), Burstiness: 1,
		Overall:     s,
		Interrupted: true,
	}
}

// simKnobsRequests are openLoopRequests with generated texts.
func simKnobsRequests() []*metrics.Request {
	reqs := openLoopRequests()
	for i, r := range reqs {
		if r.OK() {
			r.GeneratedText = fmt.Sprintf("reply %d \u00e9", i)
		}
	}
	return reqs
}

// simKnobsRun is openLoopRun on the simulator with the approximate
// tokenizer, percentiles chosen for TTFT and E2EL only (75 and 99.99 are
// not among the keys always written), and vLLM's per-request arrays,
// collected from the requests in completion order (here reversed).
func simKnobsRun() *Run {
	r := openLoopRun()
	r.Scenario, r.RunID, r.Fingerprint = "sim-knobs", "run-4", "f4"
	r.TargetURL = "sim://tiny"
	r.Simulator = map[string]any{"profile": "tiny"}
	r.TokenizerApproximate = true
	r.Percentiles = []float64{50, 75, 99.99}
	r.PercentileMetrics = []string{"ttft", "e2el"}
	c := NewDetailedCollector()
	reqs := simKnobsRequests()
	for i := len(reqs) - 1; i >= 0; i-- {
		c.Result(reqs[i])
	}
	r.Detailed = c.Detailed()
	return r
}

var runs = []struct {
	name     string
	run      func() *Run
	requests func() []*metrics.Request
}{
	{"open_loop", openLoopRun, openLoopRequests},
	{"closed_loop", closedLoopRun, closedLoopRequests},
	{"all_failed", emptyRun, emptyRequests},
	{"sim_knobs", simKnobsRun, simKnobsRequests},
}

// result builds a run's result file content.
func result(t *testing.T, r *Run) *Result {
	t.Helper()
	res, err := NewResult(r)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
