package executor

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/executor/executortest"
	"github.com/llmload/llmload/metrics"
)

// Each fault of the fault server ends in its own, diagnosable result: the
// failure kind, what was received before it, and (for answers that are not
// a stream) the start of the body.
func TestClientFaultModes(t *testing.T) {
	const key = "sk-fault-0123456789abcdef"
	for _, tc := range []struct {
		name      string
		cfg       executortest.Config
		target    func(*Target)
		ignoreEOS bool
		check     func(t *testing.T, r *metrics.Request)
	}{
		{name: "truncated: no finish_reason, no [DONE]", cfg: executortest.Config{Mode: executortest.ModeTruncated, ModeAfter: 3},
			check: func(t *testing.T, r *metrics.Request) {
				want(t, "error", r.Error, metrics.ErrTruncatedStream)
				want(t, "output events", r.OutputEvents, 3)
				if r.BytesReceived == 0 || !strings.Contains(r.ErrorMessage, "without a finish_reason or [DONE]") {
					t.Errorf("bytes %d, message %q: want the bytes received and why", r.BytesReceived, r.ErrorMessage)
				}
			}},
		{name: "a finish_reason without [DONE] is complete", cfg: executortest.Config{NoDone: true},
			check: func(t *testing.T, r *metrics.Request) { want(t, "error", r.Error, metrics.ErrNone) }},
		{name: "stall", cfg: executortest.Config{Mode: executortest.ModeStall, ModeAfter: 2},
			target: func(t *Target) { t.StallTimeout = 50 * time.Millisecond },
			check: func(t *testing.T, r *metrics.Request) {
				want(t, "error", r.Error, metrics.ErrStall)
				want(t, "output events", r.OutputEvents, 2)
			}},
		{name: "reset", cfg: executortest.Config{Mode: executortest.ModeReset, ModeAfter: 2},
			check: func(t *testing.T, r *metrics.Request) {
				want(t, "error", r.Error, metrics.ErrStream)
				want(t, "output events", r.OutputEvents, 2)
			}},
		{name: "200 with a JSON body", cfg: executortest.Config{Mode: executortest.ModeNotSSE},
			check: func(t *testing.T, r *metrics.Request) {
				want(t, "error", r.Error, metrics.ErrNotSSE)
				want(t, "status", r.StatusCode, 200)
				if !strings.Contains(r.ErrorMessage, `"text":"not streamed"`) || !strings.Contains(r.ErrorMessage, "application/json") {
					t.Errorf("message %q: want the content type and the body", r.ErrorMessage)
				}
			}},
		{name: "200 with an HTML page", cfg: executortest.Config{Status: 200, Body: "<html><body>Gateway login</body></html>"},
			check: func(t *testing.T, r *metrics.Request) {
				want(t, "error", r.Error, metrics.ErrNotSSE)
				if !strings.Contains(r.ErrorMessage, "Gateway login") {
					t.Errorf("message %q: want the body", r.ErrorMessage)
				}
			}},
		{name: "401 echoing the request", cfg: executortest.Config{Mode: executortest.ModeAuthEcho},
			target: func(t *Target) {
				t.APIKey = key
				t.Headers = map[string]string{"X-Auth": "xauth-value-4242", "X-Tenant-Pass": "tenant-pass-777", "X-Plain": "plain-value"}
				t.SensitiveHeaders = []string{"x-tenant-pass"}
			},
			check: func(t *testing.T, r *metrics.Request) {
				want(t, "error", r.Error, metrics.ErrHTTPStatus)
				want(t, "status", r.StatusCode, 401)
				for _, s := range []string{key, "xauth-value-4242", "tenant-pass-777"} {
					if strings.Contains(r.ErrorMessage, s) {
						t.Errorf("message %q leaks %q", r.ErrorMessage, s)
					}
				}
				if !strings.Contains(r.ErrorMessage, "plain-value") || !strings.Contains(r.ErrorMessage, "[REDACTED]") {
					t.Errorf("message %q: want the body, secrets redacted", r.ErrorMessage)
				}
			}},
		{name: "429", cfg: executortest.Config{Mode: executortest.ModeRateLimited},
			check: func(t *testing.T, r *metrics.Request) {
				want(t, "error", r.Error, metrics.ErrRateLimited)
				want(t, "retry-after", r.RetryAfter, "2")
				if !strings.Contains(r.ErrorMessage, "rate limit exceeded") {
					t.Errorf("message %q: want the body", r.ErrorMessage)
				}
			}},
		{name: "buffered", cfg: executortest.Config{Mode: executortest.ModeBuffered, TTFT: 10 * time.Millisecond, ITL: 20 * time.Millisecond},
			check: func(t *testing.T, r *metrics.Request) {
				want(t, "error", r.Error, metrics.ErrNone)
				want(t, "output events", r.OutputEvents, 5)
				for _, gap := range r.ITL {
					if gap >= 10*time.Millisecond {
						t.Errorf("ITL %v: a buffered stream's events arrive together, not %v apart", r.ITL, 20*time.Millisecond)
						break
					}
				}
			}},
		{name: "one event", cfg: executortest.Config{Mode: executortest.ModeOneEvent},
			check: func(t *testing.T, r *metrics.Request) {
				want(t, "error", r.Error, metrics.ErrNone)
				want(t, "output events", r.OutputEvents, 1)
				want(t, "output tokens", r.OutputTokens, 5)
			}},
		{name: "short output with ignore_eos", cfg: executortest.Config{Tokens: 3}, ignoreEOS: true,
			check: func(t *testing.T, r *metrics.Request) {
				want(t, "error", r.Error, metrics.ErrNone)
				want(t, "short output", r.ShortOutput, true)
			}},
		{name: "short output without ignore_eos is normal", cfg: executortest.Config{Tokens: 3},
			check: func(t *testing.T, r *metrics.Request) { want(t, "short output", r.ShortOutput, false) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := executortest.New(tc.cfg)
			defer srv.Close()
			target := Target{BaseURL: srv.URL, Model: "m", StallTimeout: 5 * time.Second, Timeout: 10 * time.Second}
			if tc.target != nil {
				tc.target(&target)
			}
			target.IgnoreEOS = target.IgnoreEOS || tc.ignoreEOS // the target's setting alone asks for it
			r := sendOne(t, target, dataset.Request{Prompt: "hi", PromptLen: 7, OutputLen: 5}, nil)
			tc.check(t, r)
		})
	}
}

func want[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// An error body is scrubbed before it is cut: a key that straddles the
// cut leaves no part of itself behind, and the first KiB is kept.
func TestErrorBodyRedactedBeforeCut(t *testing.T) {
	const key = "sk-straddle-0123456789abcdefghij"
	for _, at := range []int{190, 200, 1010, 1020} {
		body := strings.Repeat("x", at) + key + strings.Repeat("y", 3000)
		srv := executortest.New(executortest.Config{Status: 500, Body: body})
		r := sendOne(t, Target{BaseURL: srv.URL, Model: "m", APIKey: key}, dataset.Request{Prompt: "hi", OutputLen: 2}, nil)
		srv.Close()
		for i := 6; i <= len(key); i++ {
			if strings.Contains(r.ErrorMessage, key[:i]) {
				t.Fatalf("key at %d: message leaks %q", at, key[:i])
			}
		}
		if len(r.ErrorMessage) < 1000 || len(r.ErrorMessage) > MaxMessage+3 {
			t.Errorf("key at %d: message of %d bytes, want the first KiB", at, len(r.ErrorMessage))
		}
		if r.BytesReceived == 0 {
			t.Errorf("key at %d: no bytes received recorded", at)
		}
	}
}

// A server that crashes mid-run: every request after the crash fails, and
// each failure is recorded with its end time.
func TestRunServerCrash(t *testing.T) {
	srv := executortest.New(executortest.Config{Mode: executortest.ModeCrash, ModeAfter: 5, ITL: time.Millisecond})
	defer srv.Close()
	out := mustRun(t, t.Context(), Plan{
		Target:   Target{BaseURL: srv.URL, Model: "m", Timeout: 5 * time.Second},
		Requests: requests(20, 4),
		// No backoff (the zero value): this test is about what is recorded.
		Closed:      &ClosedLoop{Stages: []Stage{{Users: 1}}},
		MaxRequests: 20,
	})
	s := out.Overall
	if s.Completed != 5 || s.Failed != 15 {
		t.Errorf("completed %d, failed %d; want 5 and 15 (the server died at the sixth request)", s.Completed, s.Failed)
	}
	for _, r := range out.Results {
		if !r.OK() && (r.End <= 0 || r.End < r.Sent) {
			t.Errorf("request %d failed (%s) with end %v, sent %v: want its end time", r.ID, r.Error, r.End, r.Sent)
		}
	}
}

// Backoff doubles from Min to Max with each failure in a row.
func TestBackoffWait(t *testing.T) {
	b := Backoff{Min: 100 * time.Millisecond, Max: 5 * time.Second}
	var got []time.Duration
	for f := 1; f <= 8; f++ {
		got = append(got, b.wait(f))
	}
	want := []time.Duration{100, 200, 400, 800, 1600, 3200, 5000, 5000}
	for i := range want {
		if got[i] != want[i]*time.Millisecond {
			t.Fatalf("waits %v, want %v ms", got, want)
		}
	}
	if (Backoff{}).wait(3) != 0 {
		t.Error("the zero Backoff must not wait")
	}
}

// Closed-loop users against a dead port back off instead of flooding it
// (without a backoff, 4 users sent 94,643 requests in 3 s).
func TestRunClosedLoopBacksOff(t *testing.T) {
	dead := executortest.New(executortest.Config{})
	dead.Close()
	out := mustRun(t, t.Context(), Plan{
		Target:   Target{BaseURL: dead.URL, Model: "m"},
		Requests: requests(4, 4),
		Closed:   &ClosedLoop{Stages: []Stage{{Users: 4}}, Backoff: Backoff{Min: 100 * time.Millisecond, Max: 5 * time.Second}},
		Duration: 600 * time.Millisecond,
	})
	// Each user waits at least 50, 100, 200, 400 ms after its failures:
	// at most 4 tries each in 600 ms.
	if s := out.Overall; s.Failed == 0 || s.Dispatches > 16 {
		t.Errorf("%d requests sent, %d failed in 600 ms by 4 users; want at most 16", s.Dispatches, s.Failed)
	}
}

// A success resets the backoff: a user whose server recovers goes back to
// its think time at once. On the fake clock of a testing/synctest bubble
// the gaps are exact: the user, with no think time, sends the next request
// the instant a success ends, and waits out one backoff (50 to 100 ms)
// after the failure.
func TestRunBackoffResets(t *testing.T) {
	cfg := executortest.Config{Vary: func(i int, c *executortest.Config) {
		if i == 0 {
			c.Status, c.Body = 503, "warming up"
		}
	}}
	inBubble(t, cfg, func(t *testing.T, srv *executortest.Server) {
		out := mustRun(t, t.Context(), Plan{
			Target:      Target{BaseURL: srv.URL, Model: "m"},
			Requests:    requests(4, 2),
			Closed:      &ClosedLoop{Stages: []Stage{{Users: 1}}, Backoff: Backoff{Min: 100 * time.Millisecond, Max: 5 * time.Second}},
			MaxRequests: 12,
		})
		if s := out.Overall; s.Failed != 1 || s.Completed != 11 {
			t.Fatalf("completed %d, failed %d; want 11 and 1", s.Completed, s.Failed)
		}
		if gap := out.Results[1].Sent - out.Results[0].End; gap < 50*time.Millisecond || gap > 100*time.Millisecond {
			t.Errorf("%v after the failure: want one backoff, 50 to 100 ms", gap)
		}
		for i := 2; i < len(out.Results); i++ {
			if gap := out.Results[i].Sent - out.Results[i-1].End; gap != 0 {
				t.Errorf("%v between successful requests %d and %d: the backoff did not reset", gap, i-1, i)
			}
		}
	})
}

// abort_on stops a hopeless run early, open or closed, and says why.
func TestRunAbortOn(t *testing.T) {
	srv := executortest.New(executortest.Config{Status: 500, Body: "engine dead"})
	defer srv.Close()
	for name, p := range map[string]Plan{
		"open":   {Open: &OpenLoop{Rate: 400, Arrival: ArrivalConstant}, MaxRequests: 400},
		"closed": {Closed: &ClosedLoop{Stages: []Stage{{Users: 2}}}, MaxRequests: 400},
	} {
		t.Run(name, func(t *testing.T) {
			p.Target = Target{BaseURL: srv.URL, Model: "m"}
			p.Requests = requests(10, 2)
			p.AbortOn = &AbortOn{ErrorRate: 0.5, MinRequests: 20}
			out := mustRun(t, t.Context(), p)
			if out.Aborted == "" || !strings.Contains(out.Aborted, "abort_on: error rate") {
				t.Errorf("Aborted = %q; want the reason", out.Aborted)
			}
			if s := out.Overall; s.Dispatches >= 400 || s.Failed < 20 {
				t.Errorf("%d sent, %d failed: want a stop soon after 20 failures", s.Dispatches, s.Failed)
			}
			if out.Interrupted {
				t.Error("an abort is not an interruption")
			}
		})
	}
	// Under the bound, the run goes to its end.
	ok := executortest.New(executortest.Config{})
	defer ok.Close()
	out := mustRun(t, t.Context(), Plan{Target: Target{BaseURL: ok.URL, Model: "m"}, Requests: requests(30, 2),
		Open: &OpenLoop{Rate: 1000}, AbortOn: &AbortOn{ErrorRate: 0, MinRequests: 5}})
	if out.Aborted != "" || out.Overall.Completed != 30 {
		t.Errorf("aborted %q, completed %d: a run without failures must not abort", out.Aborted, out.Overall.Completed)
	}
}

// The preflight probe: a target that is down, or answers with an error,
// stops the run before any load, with the underlying error.
func TestRunPreflight(t *testing.T) {
	dead := executortest.New(executortest.Config{})
	dead.Close()
	auth := executortest.New(executortest.Config{Status: 401, Body: "bad key"})
	defer auth.Close()
	for _, tc := range []struct {
		name, url, want string
		count           func() int
	}{
		{"connection refused", dead.URL, "connection refused", nil},
		{"401", auth.URL, "HTTP 401: bad key", auth.Count},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(t.Context(), Plan{Target: Target{BaseURL: tc.url, Model: "m"}, Requests: requests(10, 8),
				Open: &OpenLoop{Rate: 1000}, Preflight: true})
			var pe *PreflightError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v; want a PreflightError saying %q", err, tc.want)
			}
			if tc.count != nil && tc.count() != 1 {
				t.Errorf("the server saw %d requests; want the probe alone", tc.count())
			}
		})
	}

	// A target that comes up within ready_timeout: the probe asks for few
	// tokens and is not measured.
	srv := executortest.New(executortest.Config{Vary: func(i int, c *executortest.Config) {
		if i < 2 {
			c.Status, c.Body = 503, "loading model"
		}
	}})
	defer srv.Close()
	out, err := Run(t.Context(), Plan{Target: Target{BaseURL: srv.URL, Model: "m"}, Requests: requests(5, 8),
		Open: &OpenLoop{Rate: 1000}, Preflight: true, ReadyTimeout: 5 * time.Second, KeepResults: true})
	if err != nil {
		t.Fatal(err)
	}
	if out.Overall.Completed != 5 || len(out.Results) != 5 || srv.Count() != 8 {
		t.Errorf("completed %d, results %d, server saw %d; want 5 measured after 3 probes", out.Overall.Completed, len(out.Results), srv.Count())
	}
	got := srv.Received()
	if mt := got[2].Body["max_tokens"]; mt != float64(ProbeTokens) {
		t.Errorf("probe max_tokens = %v, want %d", mt, ProbeTokens)
	}
	// The probe's prompt is the first request's behind a mark, so that a
	// prefix cache does not hold the first request before the run sends
	// it; the measured request is sent as the dataset has it.
	probe, first := got[2].Body["prompt"], got[3].Body["prompt"]
	if probe != ProbeMark+requests(1, 8)[0].Prompt || first != requests(1, 8)[0].Prompt {
		t.Errorf("the probe's prompt %q, the first request's %q", probe, first)
	}
}
