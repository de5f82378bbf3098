package executor

import (
	"crypto/tls"
	"net"
	"net/http/httptrace"
	"sync"
	"time"

	"github.com/llmload/llmload/metrics"
)

// phases records one request's connection phases from net/http/httptrace.
// The transport may call a dial's hooks from its own goroutine, and after
// the request has taken another connection (its dial then goes on to feed
// the pool), so the times are kept under a lock and read once, when the
// response headers are in; later calls are ignored.
type phases struct {
	trace httptrace.ClientTrace

	mu                   sync.Mutex
	done                 bool
	getConn, gotConn     time.Time
	reused               bool
	conn                 net.Conn
	dnsStart, dnsDone    time.Time
	connStart, connDone  time.Time
	tlsStart, tlsDone    time.Time
	wrote, firstResponse time.Time
}

// newPhases returns a phases whose trace records into it. The hooks are
// closures over one allocation; they stamp time.Now() first and lock
// after, so that the lock never delays a stamp.
func newPhases() *phases {
	ph := &phases{}
	set := func(t *time.Time, first bool) {
		now := time.Now()
		ph.mu.Lock()
		if !ph.done && (!first || t.IsZero()) {
			*t = now
		}
		ph.mu.Unlock()
	}
	ph.trace = httptrace.ClientTrace{
		GetConn: func(string) { set(&ph.getConn, true) },
		GotConn: func(info httptrace.GotConnInfo) {
			now := time.Now()
			ph.mu.Lock()
			if !ph.done && ph.gotConn.IsZero() {
				ph.gotConn, ph.reused, ph.conn = now, info.Reused, info.Conn
			}
			ph.mu.Unlock()
		},
		DNSStart:             func(httptrace.DNSStartInfo) { set(&ph.dnsStart, true) },
		DNSDone:              func(httptrace.DNSDoneInfo) { set(&ph.dnsDone, false) },
		ConnectStart:         func(string, string) { set(&ph.connStart, true) },
		ConnectDone:          func(string, string, error) { set(&ph.connDone, false) },
		TLSHandshakeStart:    func() { set(&ph.tlsStart, true) },
		TLSHandshakeDone:     func(tls.ConnectionState, error) { set(&ph.tlsDone, false) },
		WroteRequest:         func(httptrace.WroteRequestInfo) { set(&ph.wrote, true) },
		GotFirstResponseByte: func() { set(&ph.firstResponse, true) },
	}
	return ph
}

// span is end - start when both happened and end is not before start.
func span(start, end time.Time) time.Duration {
	if start.IsZero() || end.IsZero() || end.Before(start) {
		return 0
	}
	return end.Sub(start)
}

// fill sets the request's phases, t0 being its send time, and stops
// recording. A request that dialed but got another connection first (one
// freed meanwhile) is counted as reusing it, its dial not being its own
// connection's.
func (ph *phases) fill(t0 time.Time, res *metrics.Request) {
	ph.mu.Lock()
	defer ph.mu.Unlock()
	ph.done = true
	if ph.gotConn.IsZero() || ph.wrote.IsZero() {
		return // no connection, or the request was never written
	}
	res.NewConn = !ph.reused
	wait := span(ph.getConn, ph.gotConn)
	if res.NewConn {
		res.DNS = span(ph.dnsStart, ph.dnsDone)
		res.Connect = span(ph.connStart, ph.connDone)
		res.TLS = span(ph.tlsStart, ph.tlsDone)
		wait = max(0, wait-res.DNS-res.Connect-res.TLS)
	}
	res.Blocked = wait
	res.Written = span(t0, ph.wrote)
	res.TTFB = span(t0, ph.firstResponse)
}

// stale reports a request that went out on a reused connection and got
// no byte of a response: what a client sees when the server closed the
// pooled connection while it sat idle.
func (ph *phases) stale() bool {
	ph.mu.Lock()
	defer ph.mu.Unlock()
	return !ph.gotConn.IsZero() && ph.reused && ph.firstResponse.IsZero()
}

// stamps is the request's connection when it keeps receive times (nil
// otherwise, or before it had one).
func (ph *phases) stamps() stamped {
	ph.mu.Lock()
	defer ph.mu.Unlock()
	return stampsOf(ph.conn)
}
