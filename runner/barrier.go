package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// The barrier lets shards that start at different times (the pods of a
// Job) begin their schedules together. Shard 0 serves it; every other
// shard calls GET /join, which answers once all of them have joined, with
// a start time a few seconds ahead and the run id. GET /time returns shard
// 0's clock in nanoseconds, so each shard can record its offset.

// announce is the barrier's answer to /join.
type announce struct {
	StartAt  time.Time `json:"start_at"`
	RunID    string    `json:"run_id"`
	UnixNano int64     `json:"unix_nano"` // shard 0's clock when it answered
}

// barrierServer is shard 0's side.
type barrierServer struct {
	scenario, fingerprint, runID string
	count                        int
	lead                         time.Duration

	mu      sync.Mutex
	joined  map[int]bool
	release chan struct{} // closed when every shard has joined
	start   time.Time
	srv     *http.Server
	ln      net.Listener
}

// listenAddr is where shard 0 listens for a barrier URL: the URL's port on
// every interface, or on the URL's own address when that is a loopback IP.
func listenAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
	}
	if ip := net.ParseIP(u.Hostname()); ip != nil && ip.IsLoopback() {
		return net.JoinHostPort(u.Hostname(), port)
	}
	return ":" + port
}

func startBarrier(rawURL, scenario, fingerprint, runID string, count int, lead time.Duration) (*barrierServer, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("barrier %q: want an http:// URL with a host and port", rawURL)
	}
	ln, err := net.Listen("tcp", listenAddr(u))
	if err != nil {
		return nil, fmt.Errorf("barrier: %w", err)
	}
	b := &barrierServer{scenario: scenario, fingerprint: fingerprint, runID: runID, count: count, lead: lead,
		joined: map[int]bool{}, release: make(chan struct{}), ln: ln}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /join", b.join)
	mux.HandleFunc("GET /time", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]int64{"unix_nano": time.Now().UnixNano()})
	})
	b.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go b.srv.Serve(ln)
	if count == 1 {
		b.open()
	}
	return b, nil
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// open sets the start time and releases every waiting shard.
func (b *barrierServer) open() {
	b.start = time.Now().Add(b.lead).Round(0).UTC()
	close(b.release)
}

func (b *barrierServer) join(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	shard, err := strconv.Atoi(q.Get("shard"))
	count, err2 := strconv.Atoi(q.Get("count"))
	switch {
	case err != nil || err2 != nil || shard < 1 || shard >= b.count:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": fmt.Sprintf("shard %q of %q: not a shard this barrier waits for (1 to %d)", q.Get("shard"), q.Get("count"), b.count-1)})
		return
	case q.Get("scenario") != b.scenario:
		// Shard 0 may still be on an earlier scenario: try again later.
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": fmt.Sprintf("the barrier is for scenario %q", b.scenario)})
		return
	case count != b.count:
		writeJSON(w, http.StatusConflict, map[string]string{"error": fmt.Sprintf("shard 0 runs %d shards, this shard %d", b.count, count)})
		return
	case q.Get("fingerprint") != b.fingerprint:
		writeJSON(w, http.StatusConflict, map[string]string{"error": fmt.Sprintf("shard 0 runs another configuration (fingerprint %.12s, this shard %.12s): the scenario, dataset or llmload version differ", b.fingerprint, q.Get("fingerprint"))})
		return
	case q.Get("run_id") != "" && q.Get("run_id") != b.runID:
		writeJSON(w, http.StatusConflict, map[string]string{"error": fmt.Sprintf("shard 0 runs run %s, this shard %s", b.runID, q.Get("run_id"))})
		return
	}
	b.mu.Lock()
	select {
	case <-b.release:
		b.mu.Unlock()
		// A shard that joins after the start (a restarted pod) would send
		// its arrivals late all at once: it is told the run has started.
		writeJSON(w, http.StatusGone, map[string]string{"error": "the run has already started"})
		return
	default:
	}
	b.joined[shard] = true
	if len(b.joined) == b.count-1 {
		b.open()
	}
	b.mu.Unlock()
	select {
	case <-b.release:
		writeJSON(w, http.StatusOK, announce{StartAt: b.start, RunID: b.runID, UnixNano: time.Now().UnixNano()})
	case <-r.Context().Done():
		// The shard hung up; it joins again and is counted once.
	}
}

// wait blocks until every shard has joined, ctx ends or timeout passes.
func (b *barrierServer) wait(ctx context.Context, timeout time.Duration) (time.Time, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-b.release:
		return b.start, nil
	case <-ctx.Done():
		return time.Time{}, ctx.Err()
	case <-t.C:
		b.mu.Lock()
		n := len(b.joined)
		b.mu.Unlock()
		return time.Time{}, fmt.Errorf("barrier: %d of %d shards joined within %v", n+1, b.count, timeout)
	}
}

func (b *barrierServer) Close() { b.srv.Close() }

// errBarrierRefused is a barrier answer that retrying cannot change.
var errBarrierRefused = errors.New("barrier refused")

// joinBarrier joins shard 0's barrier, retrying while shard 0 is not up
// yet (or still on another scenario), until the start is announced or the
// timeout passes.
func joinBarrier(ctx context.Context, client *http.Client, base, scenario, fingerprint, runID string, shard, count int, timeout time.Duration) (*announce, error) {
	q := url.Values{"shard": {strconv.Itoa(shard)}, "count": {strconv.Itoa(count)}, "scenario": {scenario}, "fingerprint": {fingerprint}}
	if runID != "" {
		q.Set("run_id", runID)
	}
	deadline := time.Now().Add(timeout)
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	var last error
	for {
		a, err := joinOnce(ctx, client, base+"/join?"+q.Encode())
		if err == nil || errors.Is(err, errBarrierRefused) {
			return a, err
		}
		last = err
		select {
		case <-time.After(250 * time.Millisecond):
		case <-ctx.Done():
			if ctx.Err() == context.DeadlineExceeded {
				return nil, fmt.Errorf("barrier %s: no start announced within %v (last: %v)", base, timeout, last)
			}
			return nil, ctx.Err()
		}
	}
}

func joinOnce(ctx context.Context, client *http.Client, u string) (*announce, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBarrierRefused, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	switch {
	case resp.StatusCode == http.StatusOK:
		var a announce
		if err := json.Unmarshal(body, &a); err != nil || a.StartAt.IsZero() {
			return nil, fmt.Errorf("%w: unreadable announcement %q", errBarrierRefused, body)
		}
		return &a, nil
	case resp.StatusCode >= 500:
		return nil, fmt.Errorf("barrier answered %s", resp.Status)
	}
	var e struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	return nil, fmt.Errorf("%w: %s", errBarrierRefused, e.Error)
}
