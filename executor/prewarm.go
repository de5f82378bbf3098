package executor

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// prewarmTimeout bounds the opening of prewarmed connections.
const prewarmTimeout = 60 * time.Second

// prewarm opens n connections to the target before any load, so that the
// measured requests find them in the idle pool instead of connecting
// together. It sends n concurrent HEAD requests to the base URL and holds
// each one, once it has its connection, until all n have one: a
// connection serves one request at a time, so the n are distinct. Any
// status will do (the answer is not looked at); the connections then wait
// in the idle pool, which is sized to hold them. It returns how many
// connections it held at once (the preflight's among them). With HTTP/2 one connection carries every
// stream, and it opens that one.
func prewarm(ctx context.Context, c *client, n int) (int, error) {
	if n <= 0 {
		return 0, nil
	}
	ctx, cancel := context.WithTimeout(ctx, prewarmTimeout)
	defer cancel()
	var got, held atomic.Int64
	all := make(chan struct{})
	var once sync.Once
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		held.Add(1)
		if got.Add(1) == int64(n) {
			once.Do(func() { close(all) })
		}
		select {
		case <-all:
		case <-ctx.Done():
		}
	}}
	tctx := httptrace.WithClientTrace(ctx, trace)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for range n {
		wg.Go(func() {
			req, err := http.NewRequestWithContext(tctx, http.MethodHead, c.base, nil)
			if err == nil {
				req.Header = c.header.Clone()
				var resp *http.Response
				if resp, err = c.http.Do(req); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					return
				}
			}
			// A failed request never gets its connection: count it in, so
			// that the others are not held for it.
			if got.Add(1) == int64(n) {
				once.Do(func() { close(all) })
			}
			mu.Lock()
			if firstErr == nil {
				firstErr = err
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	if k := held.Load(); k == 0 && firstErr != nil {
		return 0, fmt.Errorf("prewarm_connections: no connection opened: %s", c.scrub.ScrubClip(firstErr.Error(), MaxMessage))
	}
	return int(held.Load()), nil
}

// baseURL is the target's root, where prewarm sends its HEAD requests.
func (t Target) baseURL() string { return strings.TrimSuffix(t.BaseURL, "/") + "/" }
