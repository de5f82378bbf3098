package executor

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/llmload/llmload/executor/executortest"
)

// pipeListener is an in-memory listener: every dial through it hands the
// server one end of a net.Pipe. Blocking on a pipe is blocking on a
// channel, which testing/synctest counts as durable, so a whole run, fake
// server included, can live in a bubble whose clock moves only when every
// goroutine waits.
type pipeListener struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), closed: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

// dial connects to the listener's server.
func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.closed:
		return nil, errors.New("dial pipe: connection refused")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }

// inBubble runs f in a testing/synctest bubble with a fake server of cfg,
// which the load's client reaches over in-memory connections (testDial).
// Time in the bubble is fake and moves only when every goroutine waits, so
// each wait (the server's delays, the schedule, think times, timeouts)
// lasts exactly its duration and no code takes any time: what a test
// checks there does not depend on the machine. srv.URL is a placeholder
// that no real connection goes to; the server is closed when f returns.
func inBubble(t *testing.T, cfg executortest.Config, f func(t *testing.T, srv *executortest.Server)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		srv := executortest.NewUnstarted(cfg)
		srv.Listener.Close() // its loopback listener: unused
		srv.URL = "http://executortest.invalid"
		l := newPipeListener()
		served := make(chan struct{})
		go func() {
			srv.Config.Serve(l)
			close(served)
		}()
		defer func() {
			srv.Config.Close()
			<-served
		}()
		testDial = l.dial
		defer func() { testDial = nil }()
		f(t, srv)
	})
}
