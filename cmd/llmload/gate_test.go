package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmload/llmload/assert"
	"github.com/llmload/llmload/executor"
	"github.com/llmload/llmload/executor/executortest"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/runner"
	"github.com/llmload/llmload/scenario"
)

// The SLA gate of testdata/gate.hcl, whose itl_p99 bound is a variable, on
// 200 streams of 12 tokens from a server with a 200 ms TTFT and a 20 ms
// ITL.
const (
	gateStreams  = 200
	gateTokens   = 12
	gateTTFT     = 200 * time.Millisecond
	gateITL      = 20 * time.Millisecond
	gateUnderITL = "15ms"  // a bound under the true ITL
	gateOverITL  = "250ms" // a bound well above it
)

// exitOf is the exit code of a result's overall verdict (results.Verdict),
// as a run maps its verdict to its exit.
var exitOf = map[string]int{
	metrics.Pass:               exitOK,
	metrics.Skipped:            exitOK,
	metrics.Fail:               exitCheckFailed,
	metrics.Inconclusive:       exitNoResult,
	results.VerdictInvalid:     exitNoResult,
	results.VerdictNoResult:    exitNoResult,
	results.VerdictInterrupted: exitInterrupted,
}

// TestSLAGate: an itl_p99 bound under the true ITL fails the run (exit 1),
// one well above it passes (exit 0), and streams whose tokens all came at
// once (a client that stamped them so, or a buffering proxy) make the check
// inconclusive (exit 3), not a pass of the bound under the true ITL.
//
// Those verdicts are judged from recorded ITLs, without a clock (as
// TestValidityExitCodes judges recorded schedules): the scenario is loaded
// as `run` loads it, with the bound as a -var, its checks are evaluated on
// the summary of 200 recorded streams whose every gap is 20 ms (or 0), and
// the judgement is mapped to the exit code. Over loopback the same
// verdicts are the machine's to decide: a busy machine stretches the tail
// past any bound, or delivers a stream's tokens in bursts, which makes the
// check inconclusive (exit 3; both seen beside busy loops). So the run end
// to end (TestSLAGateRun) checks what holds at any speed.
func TestSLAGate(t *testing.T) {
	gaps := func(gap time.Duration) []time.Duration { return slices.Repeat([]time.Duration{gap}, gateTokens-1) }
	tests := []struct {
		name    string
		bound   string
		gap     time.Duration // every recorded gap
		verdict string        // the itl_p99 check's
		code    int
	}{
		{"under the true ITL", gateUnderITL, gateITL, metrics.Fail, exitCheckFailed},
		{"above the true ITL", gateOverITL, gateITL, metrics.Pass, exitOK},
		{"tokens all at once", gateUnderITL, 0, metrics.Inconclusive, exitNoResult},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, diags := scenario.Load([]string{"testdata/gate.hcl"}, scenario.LoadOptions{
				Vars: []string{"base_url=http://127.0.0.1:1", "itl_p99=" + tt.bound},
			})
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			sc := cfg.Scenario("gate")
			rec := metrics.NewRecorder(metrics.Options{})
			for range gateStreams {
				g := gaps(tt.gap)
				rec.Add(&metrics.Request{
					TTFT: gateTTFT, ITL: g, E2E: gateTTFT + time.Duration(len(g))*tt.gap,
					OutputTokens: gateTokens, OutputEvents: gateTokens, MaxTokens: gateTokens, FinishReason: "length",
				})
			}
			sum := rec.Summary()
			outs := assert.Evaluate(sc, sum)
			var log bytes.Buffer
			code := exitCode(runner.Judge(&log, false, sum, outs, runner.ReportValidity(validityBounds(sc.Validity), sum), sc.AllowInconclusive))
			if code != tt.code {
				t.Errorf("itl_p99 = %s on gaps of %v: exit %d, want %d (%s)", tt.bound, tt.gap, code, tt.code, log.String())
			}
			var itl *assert.Outcome
			for i := range outs {
				if outs[i].Name == "itl_p99" {
					itl = &outs[i]
				}
			}
			if itl == nil || itl.Verdict != tt.verdict || itl.Samples != gateStreams*(gateTokens-1) {
				t.Errorf("itl_p99 check %+v: want %s on %d gaps", itl, tt.verdict, gateStreams*(gateTokens-1))
			}
		})
	}
}

// TestSLAGateRun runs the whole command against the fake server, which
// holds the load's requests until all 200 have arrived, so that they stream
// together whatever the machine's speed (the run cannot end otherwise).
// How the machine times their tokens is its own business (see
// TestSLAGate); what holds at any speed is checked: every request
// completed; the itl_p99 check bounds the -var's figure over every gap;
// its verdict follows from the measured ITL and the bound, or is
// inconclusive only for streams that carried no per-token timing; and the
// exit code is the verdict the result file records.
func TestSLAGateRun(t *testing.T) {
	for _, bound := range []string{gateUnderITL, gateOverITL} {
		t.Run(bound, func(t *testing.T) {
			srv := executortest.NewUnstarted(executortest.Config{TTFT: gateTTFT, ITL: gateITL, Tokens: gateTokens})
			holdUntil(srv, gateStreams)
			srv.Start()
			defer srv.Close()
			out := t.TempDir()
			code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out,
				"-var", "base_url="+srv.URL, "-var", "itl_p99="+bound, "testdata/gate.hcl")
			res, err := results.ReadResult(filepath.Join(out, "gate.json"))
			if err != nil {
				t.Fatalf("exit %d, no result: %v\nstdout:\n%s\nstderr:\n%s", code, err, stdout, stderr)
			}
			verdict := res.Verdict()
			if want, ok := exitOf[verdict]; !ok || code != want {
				t.Errorf("exit %d, but the result's verdict is %q (exit %d)\nstderr:\n%s", code, verdict, want, stderr)
			}
			if res.Summary == nil || res.Summary.Completed != gateStreams || res.Summary.Failed != 0 {
				t.Fatalf("the result holds %+v, want %d completed requests", res.Summary, gateStreams)
			}
			c := checkNamed(t, res, "itl_p99")
			bms := float64(mustDuration(t, bound)) / float64(time.Millisecond)
			if c.Threshold == nil || *c.Threshold != bms || c.Samples != gateStreams*(gateTokens-1) {
				t.Errorf("itl_p99 check %+v: want a threshold of %v ms over %d gaps", c, bms, gateStreams*(gateTokens-1))
			}
			switch c.Verdict {
			case metrics.Pass, metrics.Fail:
				if c.Value == nil || (*c.Value <= bms) != (c.Verdict == metrics.Pass) {
					t.Errorf("itl_p99 measured %v against %v ms, verdict %s", c.Value, bms, c.Verdict)
				}
			case metrics.Inconclusive:
				if f := res.Summary.UntimedFraction(); f <= assert.UntimedLimit {
					t.Errorf("itl_p99 inconclusive with %.0f%% of streams untimed: want it only for a machine that delivered the tokens in bursts", 100*f)
				}
			default:
				t.Errorf("itl_p99 verdict %q", c.Verdict)
			}
			t.Logf("itl_p99 = %s: %s, measured %v ms; %.0f%% of streams untimed; exit %d",
				bound, c.Verdict, deref(c.Value), 100*res.Summary.UntimedFraction(), code)
		})
	}
}

// holdUntil makes srv hold each request of the load (not the preflight
// probe, nor other paths) until n have arrived. Set it before srv starts.
func holdUntil(srv *executortest.Server, n int) {
	var mu sync.Mutex
	arrived := 0
	all := make(chan struct{})
	next := srv.Config.Handler
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(raw))
		if strings.HasSuffix(r.URL.Path, "/completions") && !bytes.Contains(raw, []byte(executor.ProbeMark)) {
			mu.Lock()
			if arrived++; arrived == n {
				close(all)
			}
			mu.Unlock()
			select {
			case <-all:
			case <-r.Context().Done():
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func mustDuration(t *testing.T, s string) time.Duration {
	t.Helper()
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func deref(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}
