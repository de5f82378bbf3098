package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmload/llmload/executor/executortest"
)

// setupConns bounds the connections a run's setup opens before the load:
// the preflight probe, the server-version and configuration probes
// (/version, /props, /api/version, /info, /v1/models, /get_server_info,
// /metrics, over one connection) and the metrics endpoint's probe.
const setupConns = 5

// A TLS server slow to accept, a new connection per request: the phases
// land in the requests file and the summary, and the console warns that
// connecting took a large share of TTFT, naming TLS. Prewarmed
// connections (keep-alive on) take it out of the measured requests.
func TestConnectionPhasesEndToEnd(t *testing.T) {
	// The warning fires when getting connections takes 10% of TTFT: a
	// 100 ms TTFT keeps a busy machine's few milliseconds of scheduling
	// (time blocked for a connection) under it, and the 60 ms TLS accept
	// well over it.
	const delay, ttft = 60 * time.Millisecond, 100 * time.Millisecond
	srv := executortest.NewUnstarted(executortest.Config{Tokens: 3, TTFT: ttft})
	srv.Listener = executortest.SlowAccept(srv.Listener, delay)
	srv.StartTLS()
	defer srv.Close()

	out := t.TempDir()
	code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out,
		"-var", "base_url="+srv.URL, filepath.Join("testdata", "connections.hcl"))
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"Connections: 6 new for 6 requests", "WARNING: getting connections took", "mostly TLS handshakes"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("console lacks %q:\n%s", want, stdout)
		}
	}
	lines := requestMaps(t, filepath.Join(out, "conns.requests.jsonl"))
	if len(lines) != 6 {
		t.Fatalf("%d request lines, want 6", len(lines))
	}
	for i, l := range lines {
		tlsMs, _ := l["tls_ms"].(float64)
		if l["new_conn"] != true || tlsMs < float64(delay/time.Millisecond) || l["ttft_server_view_ms"] == nil || l["ttfb_ms"] == nil {
			t.Errorf("line %d: new_conn %v, tls_ms %v (want >= %v), ttfb_ms %v, ttft_server_view_ms %v",
				i, l["new_conn"], l["tls_ms"], delay, l["ttfb_ms"], l["ttft_server_view_ms"])
		}
	}
	// Besides the 6 measured requests' own connections, the run's setup
	// requests (the preflight probe, the server-version and metrics
	// probes) open a few of their own.
	if n := srv.Conns(); n < 6 || n > 6+setupConns {
		t.Errorf("the server accepted %d connections, want 6 and at most %d for setup", n, setupConns)
	}

	// Prewarmed and kept alive: no measured request connects, no warning.
	srv2 := executortest.NewUnstarted(executortest.Config{Tokens: 3, TTFT: ttft})
	srv2.Listener = executortest.SlowAccept(srv2.Listener, delay)
	srv2.StartTLS()
	defer srv2.Close()
	code, stdout, stderr = call(t, context.Background(), "run", "-quiet", "-out", t.TempDir(),
		"-var", "base_url="+srv2.URL, "-var", "new_conn=false", "-var", "prewarm=2", filepath.Join("testdata", "connections.hcl"))
	if code != exitOK {
		t.Fatalf("prewarmed: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "Connections: 0 new for 6 requests") || strings.Contains(stdout, "WARNING: getting connections") {
		t.Errorf("prewarmed: want no new connection and no warning:\n%s", stdout)
	}
	if n := srv2.Conns(); n < 2 || n > 2+setupConns {
		t.Errorf("prewarmed: the server accepted %d connections, want 2 and at most %d for setup", n, setupConns)
	}
}

// A server that closes each keep-alive connection after one answer, as
// llama.cpp's llama-server does: with keep-alive on (the default), the
// requests that meet a closed pooled connection are sent again on a new
// one, and the run passes; the requests file marks them and the console
// counts them.
func TestStaleKeepAliveEndToEnd(t *testing.T) {
	srv := executortest.New(executortest.Config{Tokens: 3, Mode: executortest.ModeStaleKeepAlive})
	defer srv.Close()
	out := t.TempDir()
	code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out,
		"-var", "base_url="+srv.URL, "-var", "new_conn=false", filepath.Join("testdata", "connections.hcl"))
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	lines := requestMaps(t, filepath.Join(out, "conns.requests.jsonl"))
	retried := 0
	for i, l := range lines {
		if l["error"] != nil {
			t.Errorf("line %d failed: %v %v", i, l["error"], l["error_message"])
		}
		if l["retried"] == true {
			retried++
		}
	}
	if retried == 0 {
		t.Fatalf("no request says retried; the server refused %d on stale connections", srv.Stale())
	}
	noun := map[bool]string{true: "request", false: "requests"}[retried == 1]
	if want := fmt.Sprintf("Stale connections: %d %s sent again", retried, noun); !strings.Contains(stdout, want) || !strings.Contains(stdout, "Errors: none") {
		t.Errorf("console lacks %q or \"Errors: none\":\n%s", want, stdout)
	}
}
