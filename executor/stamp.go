package executor

import (
	"context"
	"crypto/tls"
	"net"
	"sync/atomic"
	"time"
)

// Receive timestamps. A token's time is when its bytes reached this
// machine, not when the client's goroutine got round to reading them:
// with thousands of streams, or a client sharing its cores with a server,
// a ready goroutine can wait milliseconds for a CPU, and a stamp taken then
// would add that wait to TTFT and ITL. Where the kernel can say (Linux:
// SO_TIMESTAMPNS), each connection reads with recvmsg and keeps the
// kernel's receive time of the newest bytes it returned; elsewhere, and
// when the kernel gives none, the stamp is the time the read completed, as
// before. Either way a stamp is never later than the read that returned
// the bytes, and never earlier than the arrival of the newest of them.

// stampBase anchors stamps kept as int64 offsets, so that they can be
// stored atomically and keep Go's monotonic clock.
var stampBase = time.Now()

// stamped is a connection that knows when its newest bytes arrived.
type stamped interface {
	// lastArrival is the arrival time of the newest bytes read, as an
	// offset from stampBase (0: none known).
	lastArrival() int64
}

// stampConn is a TCP connection read with receive timestamps.
type stampConn struct {
	net.Conn
	last atomic.Int64 // offset from stampBase of the newest bytes' arrival
	rs   recvState    // the platform's read state (recvmsg scratch)
}

func (c *stampConn) lastArrival() int64 { return c.last.Load() }

// arrival converts a kernel receive time (Unix nanoseconds, the wall
// clock) into a monotonic time, through a reading of both clocks taken
// just after the read: now minus the bytes' age. An age below 0 (a clock
// step) or over a second (not a receive time) is not trusted: now.
func arrival(kernelNs int64) time.Time {
	now := time.Now()
	if kernelNs <= 0 {
		return now
	}
	age := time.Duration(now.UnixNano() - kernelNs)
	if age < 0 || age > time.Second {
		return now
	}
	return now.Add(-age)
}

// stampDialer dials TCP connections that carry receive timestamps.
func stampDialer(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	startStamping()
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return wrapStamps(c), nil
	}
}

// stampsOf finds the stamped connection under a connection the transport
// handed a request (TLS wraps it).
func stampsOf(c net.Conn) stamped {
	for c != nil {
		switch v := c.(type) {
		case stamped:
			return v
		case *tls.Conn:
			c = v.NetConn()
		default:
			return nil
		}
	}
	return nil
}

// readStamp is the time of a read that returned bytes: the arrival of the
// newest bytes of conn when known (and not after now), else now.
func readStamp(conn stamped) time.Time {
	now := time.Now()
	if conn == nil {
		return now
	}
	if off := conn.lastArrival(); off > 0 {
		if at := stampBase.Add(time.Duration(off)); at.Before(now) {
			return at
		}
	}
	return now
}
