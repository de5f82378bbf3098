package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/llmload/llmload/assert"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/runner"
	"github.com/llmload/llmload/scenario"
)

// testValidity is the validity bounds this package's end-to-end tests judge
// runs by. The bounds that measure the machine running llmload rather than
// what a test is about (the P99 dispatch lag, the achieved rate, the
// client's CPU, TTFT outside the simulator's engine) are lifted where the scenario kept the shipped default, so
// that a test of faults, capacity, merging, sweeps or reports is not turned
// into "invalid" (exit 3) by a busy machine; bounds a scenario sets itself,
// and the token-count bound, stay as written. The shipped defaults do not
// change: TestValidityExitCodes and TestInvalidRun judge by them.
func testValidity(v scenario.Validity) scenario.Validity {
	d := scenario.DefaultValidity
	if v.MaxLagP99 == d.MaxLagP99 {
		v.MaxLagP99 = time.Hour
	}
	if v.MaxRateShortfall == d.MaxRateShortfall {
		v.MaxRateShortfall = 1
	}
	if v.MaxClientCPU == d.MaxClientCPU {
		v.MaxClientCPU = 1
	}
	if v.MaxClientOverhead == d.MaxClientOverhead {
		v.MaxClientOverhead = time.Hour
	}
	return v
}

// shippedValidity makes the rest of the test judge validity by the
// scenario's own bounds, as llmload does.
func shippedValidity(t *testing.T) {
	t.Helper()
	old := validityBounds
	validityBounds = func(v scenario.Validity) scenario.Validity { return v }
	t.Cleanup(func() { validityBounds = old })
}

// TestValidityExitCodes judges recorded schedules by the shipped bounds
// and maps them to exit codes as a run does: a valid run exits by its
// checks, a run that broke a bound exits 3 and says which, whatever its
// checks say. No clock is read: each request's intended and actual
// dispatch offsets are given.
func TestValidityExitCodes(t *testing.T) {
	shippedValidity(t)
	const n, every = 400, 10 * time.Millisecond
	tests := []struct {
		name    string
		lag     time.Duration // every dispatch's lag
		late    int           // of them, every late-th is 80 ms late (0: none)
		cpu     float64
		checkOK bool
		code    int
		reason  string
	}{
		{"valid, checks pass", time.Millisecond, 0, 0.2, true, exitOK, ""},
		{"valid, a check failed", time.Millisecond, 0, 0.2, false, exitCheckFailed, ""},
		{"2 of 400 late: the interval rule keeps it valid", time.Millisecond, 200, 0.2, true, exitOK, ""},
		{"12 of 400 late", time.Millisecond, 33, 0.2, true, exitNoResult, "invalid run (lag_p99 80."},
		{"every dispatch 12 ms late", 12 * time.Millisecond, 0, 0.2, true, exitNoResult, "invalid run (lag_p99 12."},
		{"invalid outranks a failed check", 12 * time.Millisecond, 0, 0.2, false, exitNoResult, "invalid run (lag_p99 12."},
		{"client CPU saturated", time.Millisecond, 0, 0.95, true, exitNoResult, "invalid run (client_cpu 95.00% over its bound of 90.00%)"},
	}
	s := &scenario.Scenario{Validity: scenario.DefaultValidity}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := metrics.NewRecorder(metrics.Options{Scheduled: true})
			for i := range n {
				intended := time.Duration(i) * every
				lag := tt.lag
				if tt.late > 0 && i%tt.late == tt.late-1 {
					lag = 80 * time.Millisecond
				}
				rec.Add(&metrics.Request{Intended: intended, Dispatched: intended + lag, Sent: intended + lag, TTFT: time.Millisecond,
					E2E: 2 * time.Millisecond, End: intended + lag + 2*time.Millisecond, OutputTokens: 1, OutputEvents: 1})
			}
			sum := rec.Summary()
			sum.ClientCPU = tt.cpu
			check := metrics.Check{Name: "ttft_p99", Passed: tt.checkOK, Verdict: assert.Fail}
			if tt.checkOK {
				check.Verdict = assert.Pass
			}
			outs := []assert.Outcome{{Check: check}}
			var stderr bytes.Buffer
			code := exitCode(runner.Judge(&stderr, false, sum, outs, runner.ReportValidity(validityBounds(s.Validity), sum), false))
			if code != tt.code {
				t.Errorf("exit %d, want %d (%s)", code, tt.code, stderr.String())
			}
			if tt.reason != "" && !strings.Contains(stderr.String(), tt.reason) {
				t.Errorf("stderr %q does not say %q", stderr.String(), tt.reason)
			}
			if tt.reason == "" && strings.Contains(stderr.String(), "invalid") {
				t.Errorf("a valid run says %q", stderr.String())
			}
		})
	}
}
