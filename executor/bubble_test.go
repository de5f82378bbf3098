package executor

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"math/big"
	"net"
	"sync"
	"testing"
	"testing/synctest"
	"time"

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
	inBubbleWith(t, bubbleServer{}, cfg, f)
}

// bubbleServer is how inBubbleWith serves: Listener, when set, wraps the
// in-memory listener (executortest.SlowAccept, say); TLS serves HTTPS
// with a self-signed certificate, so the client's target needs
// InsecureSkipVerify.
type bubbleServer struct {
	Listener func(net.Listener) net.Listener
	TLS      bool
}

// inBubbleWith is inBubble with the server served as bs says.
func inBubbleWith(t *testing.T, bs bubbleServer, cfg executortest.Config, f func(t *testing.T, srv *executortest.Server)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		srv := executortest.NewUnstarted(cfg)
		srv.Listener.Close() // its loopback listener: unused
		srv.URL = "http://executortest.invalid"
		l := newPipeListener()
		var served net.Listener = l
		if bs.Listener != nil {
			served = bs.Listener(served)
		}
		if bs.TLS {
			srv.URL = "https://executortest.invalid"
			served = tls.NewListener(served, &tls.Config{Certificates: []tls.Certificate{selfSigned(t)}, NextProtos: []string{"http/1.1"}})
		}
		done := make(chan struct{})
		go func() {
			srv.Config.Serve(served)
			close(done)
		}()
		defer func() {
			srv.Config.Close()
			<-done
			if bs.TLS {
				// A closing TLS connection sends close_notify, under a 5 s
				// write deadline; when both ends close at once, each
				// waits on the unbuffered pipe for the other to read
				// until then. Let the fake clock run past it, so that no
				// goroutine outlives the bubble.
				time.Sleep(10 * time.Second)
			}
		}()
		testDial = l.dial
		defer func() { testDial = nil }()
		f(t, srv)
	})
}

// selfSigned returns a certificate for executortest.invalid, signed by
// its own key.
func selfSigned(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		DNSNames:     []string{"executortest.invalid"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}
