package executor

import (
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llmload/llmload/executor/executortest"
	"github.com/llmload/llmload/metrics"
)

// The connection policy: keep-alive reuse (the default), a new connection
// per request, and prewarmed connections, counted where they arrive: at
// the server's listener.
func TestConnectionPolicy(t *testing.T) {
	const n = 12
	closed := func(users int) *ClosedLoop { return &ClosedLoop{Stages: []Stage{{Users: users}}} }
	tests := []struct {
		name   string
		target Target
		open   *OpenLoop
		closed *ClosedLoop
		// wantConns is the connections the server accepted, wantNew the
		// requests that say they opened one.
		wantConns, wantNew int
	}{
		{name: "keep-alive: one user reuses one connection", closed: closed(1), wantConns: 1, wantNew: 1},
		{name: "new connection per request", target: Target{NewConnectionPerRequest: true}, closed: closed(2), wantConns: n, wantNew: n},
		{name: "prewarmed: the measured requests connect to nothing", target: Target{PrewarmConnections: n},
			open: &OpenLoop{Rate: math.Inf(1)}, wantConns: n, wantNew: 0},
		{name: "prewarmed beyond the concurrency", target: Target{PrewarmConnections: 2 * n},
			open: &OpenLoop{Rate: math.Inf(1), MaxConcurrency: 3}, wantConns: 2 * n, wantNew: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A TTFT long enough that the requests of an open loop at
			// rate inf are all in flight together.
			srv := executortest.New(executortest.Config{Tokens: 3, TTFT: 20 * time.Millisecond})
			defer srv.Close()
			tg := tt.target
			tg.BaseURL, tg.Timeout = srv.URL, 10*time.Second
			out := mustRun(t, context.Background(), Plan{Target: tg, Requests: requests(1, 3), Open: tt.open, Closed: tt.closed, MaxRequests: n})
			s := out.Overall
			if s.Completed != n {
				t.Fatalf("completed %d of %d: %v", s.Completed, n, s.Errors)
			}
			if got := srv.Conns(); got != tt.wantConns {
				t.Errorf("server accepted %d connections, want %d", got, tt.wantConns)
			}
			if s.NewConnections != tt.wantNew {
				t.Errorf("summary: %d new connections, want %d", s.NewConnections, tt.wantNew)
			}
			if s.Connect.Count != int64(tt.wantNew) || s.Blocked.Count != n || s.TTFB.Count != n || s.TTFTServerView.Count != n {
				t.Errorf("samples: connect %d (want %d), blocked %d, ttfb %d, ttft_server_view %d (want %d each)",
					s.Connect.Count, tt.wantNew, s.Blocked.Count, s.TTFB.Count, s.TTFTServerView.Count, n)
			}
			if tg.PrewarmConnections > 0 && out.Prewarmed != tg.PrewarmConnections {
				t.Errorf("Outcome.Prewarmed = %d, want %d", out.Prewarmed, tg.PrewarmConnections)
			}
		})
	}
}

// Every request carries its phases, in order: written before the response
// headers, headers before the first token, and TTFT from the written
// request (ttft_server_view) is TTFT less the writing.
//
// The order is checked on the fake clock of a testing/synctest bubble,
// where each phase lasts exactly what the server and the connection make
// it: each write to the connection takes 1 ms, the server answers 50 ms
// after the request's headers arrive (with the first write) and sends the
// first token 100 ms after. The prompt (16 KiB) outgrows the transport's
// 4 KiB write buffer, so most of it is on the connection when the
// transport reports the request written, as for any large prompt; a
// request that fits the buffer is reported written once buffered, before
// any byte leaves, which on the fake clock is at t0. Over loopback the
// phases are stamped by different goroutines after their events (the
// written request and the headers when the transport's hooks run, the
// first token at its bytes' arrival), so a goroutine that waits for a CPU
// longer than the gap between two events inverts their order (130 ms
// beside busy loops): there the test checks only what holds at any speed,
// the connection facts and the lower bounds the server's waits set.
func TestPhasesPerRequest(t *testing.T) {
	const delay, write = 50 * time.Millisecond, time.Millisecond
	cfg := executortest.Config{Tokens: 3, TTFT: 2 * delay, Delay: delay}
	reqs := requests(1, 3)
	reqs[0].Prompt = strings.Repeat("p ", 8<<10)
	run := func(t *testing.T, url string) *Outcome {
		t.Helper()
		out := mustRun(t, context.Background(), Plan{
			Target:      Target{BaseURL: url, Timeout: 10 * time.Second},
			Requests:    reqs,
			Closed:      &ClosedLoop{Stages: []Stage{{Users: 1}}},
			MaxRequests: 3,
		})
		if len(out.Results) != 3 {
			t.Fatalf("%d results, want 3", len(out.Results))
		}
		for i, r := range out.Results {
			if !r.OK() {
				t.Fatalf("request %d failed: %s %s", i, r.Error, r.ErrorMessage)
			}
			if got, want := r.TTFTServerView(), r.TTFT-r.Written; got != want {
				t.Errorf("request %d: ttft_server_view %v, want %v", i, got, want)
			}
			if wantNew := i == 0; r.NewConn != wantNew {
				t.Errorf("request %d: new_conn %v, want %v (one user, keep-alive)", i, r.NewConn, wantNew)
			}
			if !r.NewConn && (r.Connect != 0 || r.DNS != 0 || r.TLS != 0) {
				t.Errorf("request %d reused its connection but has connect %v, dns %v, tls %v", i, r.Connect, r.DNS, r.TLS)
			}
		}
		return out
	}
	t.Run("tcp", func(t *testing.T) {
		srv := executortest.New(cfg)
		defer srv.Close()
		out := run(t, srv.URL)
		for i, r := range out.Results {
			// The server's waits begin after the request left: no busy
			// machine makes the headers or the first token come sooner.
			if r.Written <= 0 || r.TTFB < delay || r.TTFT < 2*delay {
				t.Errorf("request %d: written %v, ttfb %v, ttft %v; want written > 0, and the server waited %v before its headers and %v before its first token",
					i, r.Written, r.TTFB, r.TTFT, delay, 2*delay)
			}
		}
		if r := out.Results[0]; r.Connect <= 0 {
			t.Errorf("the first request opened a connection but its connect is %v", r.Connect)
		}
	})
	t.Run("fake clock", func(t *testing.T) {
		inBubble(t, cfg, func(t *testing.T, srv *executortest.Server) {
			dial := testDial
			testDial = func(ctx context.Context, network, addr string) (net.Conn, error) {
				c, err := dial(ctx, network, addr)
				if err != nil {
					return nil, err
				}
				return slowWriteConn{c, write}, nil
			}
			for i, r := range run(t, srv.URL).Results {
				if !(0 < r.Written && r.Written < r.TTFB && r.TTFB < r.TTFT) {
					t.Errorf("request %d: written %v, ttfb %v, ttft %v: want 0 < written < ttfb < ttft", i, r.Written, r.TTFB, r.TTFT)
				}
				if r.TTFB != write+delay || r.TTFT != write+2*delay {
					t.Errorf("request %d: ttfb %v, ttft %v; want %v, %v (the server's waits after the first write)",
						i, r.TTFB, r.TTFT, write+delay, write+2*delay)
				}
			}
		})
	})
}

// slowWriteConn takes d over each write, on the clock of the bubble it
// runs in: a connection that takes time to send.
type slowWriteConn struct {
	net.Conn
	d time.Duration
}

func (c slowWriteConn) Write(p []byte) (int, error) {
	time.Sleep(c.d)
	return c.Conn.Write(p)
}

// A server slow to accept: over TLS the wait is in the handshake; over
// plain TCP the kernel has completed the connect, so it shows between the
// written request and the response headers (ttfb), not in connect.
//
// Over loopback the test checks what holds at any speed: the server
// answers no sooner than its accept's wait after the request began (ttfb),
// and every new TLS connection has its handshake timed. How much of that
// wait the handshake's stamps hold is the machine's: the wait begins when
// the server accepts, the handshake's clock when the client's goroutine
// gets to stamp it, which a busy machine makes later (21 ms of 40 beside
// busy loops). On the fake clock of a testing/synctest bubble, with the
// same listener before an in-memory one, the handshake lasts exactly the
// wait and makes the whole TTFT.
func TestPhasesSlowAccept(t *testing.T) {
	const delay = 40 * time.Millisecond
	ms := float64(delay) / float64(time.Millisecond)
	plan := func(url string) Plan {
		return Plan{
			Target:      Target{BaseURL: url, Timeout: 10 * time.Second, InsecureSkipVerify: true, NewConnectionPerRequest: true},
			Requests:    requests(1, 2),
			Closed:      &ClosedLoop{Stages: []Stage{{Users: 1}}},
			MaxRequests: 3,
		}
	}
	for _, tlsOn := range []bool{false, true} {
		name := map[bool]string{false: "http", true: "https"}[tlsOn]
		t.Run(name, func(t *testing.T) {
			srv := executortest.NewUnstarted(executortest.Config{Tokens: 2})
			srv.Listener = executortest.SlowAccept(srv.Listener, delay)
			if tlsOn {
				srv.StartTLS()
			} else {
				srv.Start()
			}
			defer srv.Close()
			s := mustRun(t, context.Background(), plan(srv.URL)).Overall
			if s.Completed != 3 || s.NewConnections != 3 {
				t.Fatalf("completed %d, new connections %d; want 3, 3 (%v)", s.Completed, s.NewConnections, s.Errors)
			}
			if s.TTFB.Min < ms {
				t.Errorf("ttfb min %.2f ms, want >= %.0f: the server accepts each connection %v after the client sent it", s.TTFB.Min, ms, delay)
			}
			if want := map[bool]int64{false: 0, true: 3}[tlsOn]; s.TLS.Count != want {
				t.Errorf("%d tls samples, want %d", s.TLS.Count, want)
			}
		})
	}
	t.Run("https fake clock", func(t *testing.T) {
		bs := bubbleServer{TLS: true, Listener: func(l net.Listener) net.Listener { return executortest.SlowAccept(l, delay) }}
		inBubbleWith(t, bs, executortest.Config{Tokens: 2}, func(t *testing.T, srv *executortest.Server) {
			out := mustRun(t, context.Background(), plan(srv.URL))
			s := out.Overall
			if s.Completed != 3 || s.NewConnections != 3 {
				t.Fatalf("completed %d, new connections %d; want 3, 3 (%v)", s.Completed, s.NewConnections, s.Errors)
			}
			for _, r := range out.Results {
				if r.TLS != delay || r.TTFT != delay {
					t.Errorf("request %d: tls %v, ttft %v; want %v each (the handshake waits for the accept)", r.ID, r.TLS, r.TTFT, delay)
				}
			}
			if share := s.ConnShare(); share < 0.99 {
				t.Errorf("connection share of TTFT %.3f, want 1: the handshake is the whole TTFT", share)
			}
		})
	})
}

// A server that closes each keep-alive connection after one answer (its
// headers still saying keep-alive), as llama.cpp's llama-server does: the
// next request on the pooled connection dies before any byte of an answer
// (EOF), and was filed as connect. Each is sent once more on a new
// connection: none fails, each retry is counted, and a retried request's
// clock runs from its first send. Over TCP and over in-memory connections
// under a fake clock, where the times are exact; the server refuses the
// reused connection when the request arrives, so whether a request meets
// a stale connection does not depend on timing.
func TestStaleKeepAliveRetried(t *testing.T) {
	const n = 12
	check := func(t *testing.T, srv *executortest.Server, users int) *Outcome {
		out := mustRun(t, context.Background(), Plan{
			Target:      Target{BaseURL: srv.URL, Timeout: 10 * time.Second},
			Requests:    requests(1, 3),
			Closed:      &ClosedLoop{Stages: []Stage{{Users: users}}},
			MaxRequests: n,
		})
		s := out.Overall
		if s.Completed != n || s.Failed != 0 {
			t.Fatalf("completed %d, failed %d %v; want %d, 0", s.Completed, s.Failed, s.Errors, n)
		}
		if s.StaleRetries == 0 || s.StaleRetries != srv.Stale() {
			t.Errorf("stale_retries %d; the server refused %d requests on reused connections (want as many, > 0)", s.StaleRetries, srv.Stale())
		}
		retried := 0
		for _, r := range out.Results {
			if !r.Retried {
				continue
			}
			retried++
			if !r.NewConn || r.TTFT < r.Written {
				t.Errorf("retried request %d: new_conn %v, written %v, ttft %v: want the retry's new connection, written before its first token", r.ID, r.NewConn, r.Written, r.TTFT)
			}
		}
		if retried != s.StaleRetries {
			t.Errorf("%d requests say retried, the summary %d", retried, s.StaleRetries)
		}
		return out
	}
	for _, users := range []int{1, 2} {
		t.Run(fmt.Sprintf("tcp/%d users", users), func(t *testing.T) {
			srv := executortest.New(executortest.Config{Tokens: 3, Mode: executortest.ModeStaleKeepAlive})
			defer srv.Close()
			check(t, srv, users)
		})
	}
	t.Run("fake clock", func(t *testing.T) {
		// The stale connection is closed 5 ms after the request arrives;
		// the first token comes 20 ms after the retry arrives.
		const stale, ttft = 5 * time.Millisecond, 20 * time.Millisecond
		cfg := executortest.Config{Tokens: 3, TTFT: ttft, ITL: time.Millisecond, Delay: stale, Mode: executortest.ModeStaleKeepAlive}
		inBubble(t, cfg, func(t *testing.T, srv *executortest.Server) {
			for _, r := range check(t, srv, 2).Results {
				want, written := ttft, time.Duration(0)
				if r.Retried {
					want, written = stale+ttft, stale
				}
				if r.TTFT != want || r.Written != written || (r.Retried && r.TTFTServerView() != ttft) {
					t.Errorf("request %d (retried %v): ttft %v, written %v, ttft_server_view %v; want %v, %v, %v",
						r.ID, r.Retried, r.TTFT, r.Written, r.TTFTServerView(), want, written, ttft)
				}
			}
		})
	})
}

// A server that answers once and then hangs up on every request: the
// request that meets the dead pooled connection is retried once on a new
// connection, fails there too and is a failure of the retry's kind, its
// message naming the retry; requests that open their own connection are
// never retried. Nothing is retried twice.
func TestStaleRetryFailsToo(t *testing.T) {
	const n = 6
	srv := executortest.New(executortest.Config{Tokens: 3, Vary: func(i int, c *executortest.Config) {
		if i > 0 {
			c.Fault.Kind = executortest.Hangup
		}
	}})
	defer srv.Close()
	out := mustRun(t, context.Background(), Plan{
		Target:      Target{BaseURL: srv.URL, Timeout: 10 * time.Second},
		Requests:    requests(1, 3),
		Closed:      &ClosedLoop{Stages: []Stage{{Users: 1}}},
		MaxRequests: n,
	})
	s := out.Overall
	if s.Completed != 1 || s.Errors[metrics.ErrConnect] != n-1 {
		t.Fatalf("completed %d, errors %v; want 1 and %d connect", s.Completed, s.Errors, n-1)
	}
	if s.StaleRetries != 1 {
		t.Errorf("stale_retries %d, want 1: only the request on the pooled connection is retried", s.StaleRetries)
	}
	if got := srv.Count(); got != n+1 {
		t.Errorf("the server received %d requests, want %d: each of %d once, and one retry", got, n+1, n)
	}
	for _, r := range out.Results {
		retry := strings.Contains(r.ErrorMessage, "retried on a new connection after the reused one failed")
		if r.Retried != retry || r.Retried && r.Error != metrics.ErrConnect {
			t.Errorf("request %d: retried %v, %s: %q", r.ID, r.Retried, r.Error, r.ErrorMessage)
		}
	}
}

// The HTTP/2 form of a server that drops each connection after one
// answer: over h2c, "Connection: close" makes Go's server send GOAWAY
// once the answer is out, so a request the client sends on the
// connection meanwhile is refused and sent again on another (Go's HTTP/2
// transport retries a request the server never processed, and llmload's
// own retry covers one that died before any byte). None fails, every
// request is HTTP/2, and the server saw more than one connection.
func TestStaleHTTP2Retried(t *testing.T) {
	const n = 24
	srv := executortest.NewUnstarted(executortest.Config{Tokens: 3})
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	h := srv.Config.Handler
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		h.ServeHTTP(w, r)
	})
	srv.Start()
	defer srv.Close()
	out := mustRun(t, context.Background(), Plan{
		Target:      Target{BaseURL: srv.URL, Timeout: 10 * time.Second, HTTP2: true},
		Requests:    requests(1, 3),
		Closed:      &ClosedLoop{Stages: []Stage{{Users: 4}}},
		MaxRequests: n,
	})
	s := out.Overall
	if s.Completed != n || s.Failed != 0 {
		t.Fatalf("completed %d, failed %d %v; want %d, 0", s.Completed, s.Failed, s.Errors, n)
	}
	for i, r := range srv.Received() {
		if r.ProtoMajor != 2 {
			t.Fatalf("request %d: HTTP/%d, want HTTP/2", i, r.ProtoMajor)
		}
	}
	if srv.Conns() < 2 {
		t.Errorf("the server saw %d connections: GOAWAY after each answer should have made the client open more", srv.Conns())
	}
	t.Logf("%d requests over %d connections, %d stale retries", n, srv.Conns(), s.StaleRetries)
}
