package executor

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/executor/executortest"
)

// A valid traceparent of version 00: lowercase hex ids, neither all zeros,
// sampled (https://www.w3.org/TR/trace-context/#traceparent-header).
var traceparentRE = regexp.MustCompile(`^00-([0-9a-f]{32})-([0-9a-f]{16})-01$`)

// Every load request carries a valid traceparent of its own, and its
// record holds the very value the server received.
func TestTraceparentPerRequest(t *testing.T) {
	srv := executortest.New(executortest.Config{ITL: time.Millisecond})
	defer srv.Close()
	out := mustRun(t, context.Background(), Plan{
		Target:      Target{BaseURL: srv.URL, Timeout: 10 * time.Second},
		Requests:    requests(5, 3),
		Closed:      &ClosedLoop{Stages: []Stage{{Users: 4}}},
		MaxRequests: 30,
		Seed:        1,
	})
	if out.Overall.Completed != 30 {
		t.Fatalf("%d completed, want 30", out.Overall.Completed)
	}
	sent := map[string]string{} // x-request-id -> traceparent received
	for _, r := range srv.Received() {
		sent[r.Header.Get("X-Request-Id")] = r.Header.Get("Traceparent")
	}
	traces, parents := map[string]bool{}, map[string]bool{}
	for _, r := range out.Results {
		m := traceparentRE.FindStringSubmatch(r.Traceparent)
		if m == nil || m[1] == "00000000000000000000000000000000" || m[2] == "0000000000000000" {
			t.Fatalf("request %d: traceparent %q is not a valid version-00 header", r.ID, r.Traceparent)
		}
		if got := sent[r.RequestID]; got != r.Traceparent {
			t.Errorf("request %s: recorded %q, the server received %q", r.RequestID, r.Traceparent, got)
		}
		traces[m[1]], parents[m[2]] = true, true
	}
	if len(traces) != 30 || len(parents) != 30 {
		t.Errorf("%d distinct trace ids and %d parent ids in 30 requests, want 30 of each", len(traces), len(parents))
	}
}

// trace_context = false sends none and records none; a traceparent among
// the target's headers is sent as set and the client makes none.
func TestTraceparentOff(t *testing.T) {
	srv := executortest.New(executortest.Config{})
	defer srv.Close()
	req := dataset.Request{Prompt: "x", OutputLen: 2}
	if res := sendOne(t, Target{BaseURL: srv.URL, NoTraceContext: true}, req, nil); res.Traceparent != "" {
		t.Errorf("trace context off: recorded %q", res.Traceparent)
	}
	if h := srv.Received()[0].Header; h.Get("Traceparent") != "" {
		t.Errorf("trace context off: the server received traceparent %q", h.Get("Traceparent"))
	}
	const own = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	res := sendOne(t, Target{BaseURL: srv.URL, Headers: map[string]string{"traceparent": own}}, req, nil)
	if got := srv.Received()[1].Header.Values("Traceparent"); len(got) != 1 || got[0] != own || res.Traceparent != "" {
		t.Errorf("target's own traceparent: the server received %q, recorded %q; want %q, unrecorded", got, res.Traceparent, own)
	}

	p, err := PreviewRequest(Target{BaseURL: srv.URL}, req)
	if err != nil || p.Header.Get("Traceparent") != traceparentPreview {
		t.Errorf("preview traceparent %q (%v), want %q", p.Header.Get("Traceparent"), err, traceparentPreview)
	}
	if p, _ := PreviewRequest(Target{BaseURL: srv.URL, NoTraceContext: true}, req); p.Header.Get("Traceparent") != "" {
		t.Errorf("preview with trace context off shows traceparent %q", p.Header.Get("Traceparent"))
	}
}

// BenchmarkTraceparent is the client's cost of the header, paid before a
// request's clock starts.
func BenchmarkTraceparent(b *testing.B) {
	g := newTraceIDs()
	b.ReportAllocs()
	for b.Loop() {
		_ = g.next()
	}
}
