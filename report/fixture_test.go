package report

import (
	"flag"
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
		TTFT: ttft, ITL: gaps, E2E: e2e,
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

// openLoopRun is a small open-loop run with failures, truncation, warmup,
// goodput, a schedule warning and one failed check.
func openLoopRun() *Run {
	reqs := []*metrics.Request{
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
		{ID: 6, Intended: 500 * msec, Dispatched: 500 * msec, Sent: 501 * msec, StatusCode: 503,
			Error: metrics.ErrHTTPStatus, ErrorMessage: "503 Service Unavailable: overloaded"},
		{ID: 7, Intended: 600 * msec, Dispatched: 600 * msec, Sent: 601 * msec, TTFT: 100 * msec,
			OutputEvents: 3, Error: metrics.ErrStall, ErrorMessage: "no bytes for 30s"},
	}
	slo := metrics.SLO{TTFT: 200 * msec, ITL: 50 * msec}
	rec := metrics.NewRecorder(metrics.Options{Goodput: slo})
	for i, r := range reqs {
		rec.Add(r)
		rec.ObserveConcurrency(min(i+1, 3))
	}
	s := rec.Summary(1500 * msec)

	cfg := secretConfig{Name: "chat-smoke", Rate: 10}
	cfg.Target.URL = "http://127.0.0.1:8000"
	cfg.Target.APIKey = secret

	return &Run{
		Scenario: "chat-smoke", ToolVersion: "v0.0.0-test",
		StartedAt: time.Date(2026, 11, 29, 15, 4, 5, 0, time.UTC),
		EndedAt:   time.Date(2026, 11, 29, 15, 4, 7, 0, time.UTC),
		TargetURL: "http://127.0.0.1:8000", API: "openai-chat", Model: "llama-3-8b", Tokenizer: "llama3",
		Config:         cfg,
		Dataset:        map[string]any{"name": "sharegpt", "requests": 8, "mean_prompt_tokens": 23.5},
		MaxConcurrency: 3, RequestRate: 10, Burstiness: 1,
		Goodput:  slo,
		Overall:  s,
		Schedule: ScheduleOf(10, reqs, s.Lag, 10*time.Millisecond),
		Checks: []Check{
			{Name: "ttft_p99", Kind: "sla", Threshold: "< 500 ms", Measured: "399.99 ms", Passed: true},
			{Name: "itl_p99", Kind: "sla", Description: "smooth streaming", Threshold: "< 50 ms", Measured: "60.00 ms",
				Message: "metrics.itl.p99 is 60.00, over 50"},
			{Name: "no_errors", Kind: "assert", Threshold: "error_rate == 0", Measured: "0.2857", Message: "error rate must be zero\nwith metrics.error_rate as 0.2857"},
		},
		Requests: reqs,
	}
}

// closedLoopRun is a two-stage closed-loop run with no goodput SLO whose
// second stage breaks an sla check.
func closedLoopRun() *Run {
	overall := metrics.NewRecorder(metrics.Options{})
	var stages []Stage
	var all []*metrics.Request
	for i, users := range []int{1, 4} {
		rec := metrics.NewRecorder(metrics.Options{})
		for j := range 4 {
			id := int64(i*10 + j)
			start := time.Duration(i)*2*time.Second + time.Duration(j)*300*msec
			ttft := time.Duration(100+i*150+j*10) * msec
			r := request(id, start, 50*time.Microsecond, 0, ttft, 20*msec, time.Duration(20+i*15)*msec)
			r.Stage = i
			rec.Add(r)
			overall.Add(r)
			all = append(all, r)
		}
		rec.ObserveConcurrency(users)
		overall.ObserveConcurrency(users)
		st := Stage{Index: i, Users: users, Duration: 2, Summary: rec.Summary(2 * time.Second), SLAChecked: true}
		if i == 1 { // the second stage breaks the scenario's TTFT sla
			st.SLAFailed = []string{"ttft_p99"}
		}
		stages = append(stages, st)
	}
	// A third stage the run ended before.
	stages = append(stages, Stage{Index: 2, Users: 8, Summary: metrics.NewRecorder(metrics.Options{}).Summary(0)})
	s := overall.Summary(4 * time.Second)
	return &Run{
		Scenario: "knee", ToolVersion: "v0.0.0-test",
		StartedAt: time.Date(2026, 11, 29, 16, 0, 0, 0, time.UTC),
		EndedAt:   time.Date(2026, 11, 29, 16, 0, 4, 0, time.UTC),
		TargetURL: "http://127.0.0.1:8000", API: "openai", Model: "qwen3",
		TokenizerApproximate: true,
		Overall:              s, Stages: stages,
		Schedule: ScheduleOf(0, all, s.Lag, 10*time.Millisecond),
		Requests: all,
	}
}

// emptyRun is a run in which every request failed, at rate inf.
func emptyRun() *Run {
	rec := metrics.NewRecorder(metrics.Options{})
	reqs := []*metrics.Request{
		{ID: 1, Error: metrics.ErrConnect, ErrorMessage: "dial tcp 127.0.0.1:9: connection refused"},
		{ID: 2, Error: metrics.ErrConnect, ErrorMessage: "dial tcp 127.0.0.1:9: connection refused"},
	}
	for _, r := range reqs {
		rec.Add(r)
	}
	s := rec.Summary(10 * msec)
	return &Run{
		Scenario: "down", ToolVersion: "v0.0.0-test",
		StartedAt: time.Date(2026, 11, 29, 16, 30, 0, 0, time.UTC),
		EndedAt:   time.Date(2026, 11, 29, 16, 30, 0, 10_000_000, time.UTC),
		TargetURL: "http://127.0.0.1:9", API: "openai", Model: "m",
		RequestRate: math.Inf(1), Burstiness: 1,
		Overall:     s,
		Schedule:    ScheduleOf(math.Inf(1), reqs, s.Lag, 10*time.Millisecond),
		Interrupted: true,
		Requests:    reqs,
	}
}

var runs = []struct {
	name string
	run  func() *Run
}{
	{"open_loop", openLoopRun},
	{"closed_loop", closedLoopRun},
	{"all_failed", emptyRun},
}
