//go:build linux

package executor

import (
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"unsafe"
)

// recvState is a connection's recvmsg scratch. Reads of one connection
// do not overlap (the transport reads each from one goroutine at a time),
// so it is reused without a lock; the raw read callback is bound once so
// that a read allocates nothing.
type recvState struct {
	rc  syscall.RawConn
	fn  func(fd uintptr) bool
	p   []byte
	n   int
	err error
	ts  int64
	oob [64]byte
}

// keeper holds a socket with receive timestamps on for the life of the
// process. The kernel stamps packets only while some socket asks for it,
// and switches that on (and off, after the last such socket closes) in
// deferred work: without a keeper, the first responses of a run, and the
// first after a lull with no connection open, could arrive unstamped.
var keeper sync.Once

// startStamping opens the keeper (once), ahead of the first connection.
func startStamping() { keepTimestamping() }

func keepTimestamping() {
	keeper.Do(func() {
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			return
		}
		if syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1) != nil {
			syscall.Close(fd)
		}
		// Kept open on purpose: one descriptor for the process's life.
	})
}

// wrapStamps turns on SO_TIMESTAMPNS for a TCP connection and reads it
// with recvmsg; other connections, or when the option fails, are left as
// they are.
func wrapStamps(c net.Conn) net.Conn {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c
	}
	keepTimestamping()
	rc, err := tc.SyscallConn()
	if err != nil {
		return c
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1)
	}); err != nil || serr != nil {
		return c
	}
	sc := &stampConn{Conn: c}
	sc.rs.rc = rc
	sc.rs.fn = sc.rs.recv
	return sc
}

// recv is one recvmsg attempt; false asks the poller to wait (EAGAIN).
func (s *recvState) recv(fd uintptr) bool {
	var oobn int
	s.n, oobn, _, _, s.err = syscall.Recvmsg(int(fd), s.p, s.oob[:], 0)
	if s.err == syscall.EAGAIN {
		return false
	}
	s.ts = 0
	if s.err == nil && oobn > 0 {
		s.ts = cmsgTimestamp(s.oob[:oobn])
	}
	return true
}

// Read reads with recvmsg and notes the kernel's receive time of the
// bytes (the newest of them, for TCP).
func (c *stampConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	s := &c.rs
	s.p = p
	err := s.rc.Read(s.fn)
	s.p = nil
	if err != nil {
		// The poller's own errors: a deadline, a closed connection.
		return 0, &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
	}
	if s.err != nil {
		return 0, &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.NewSyscallError("recvmsg", s.err)}
	}
	if s.n == 0 {
		return 0, io.EOF
	}
	c.last.Store(int64(arrival(s.ts).Sub(stampBase)))
	return s.n, nil
}

// cmsgTimestamp finds SCM_TIMESTAMPNS in control messages: the receive
// time in Unix nanoseconds, 0 when absent. It parses in place, without
// allocating (syscall.ParseSocketControlMessage allocates).
func cmsgTimestamp(b []byte) int64 {
	const hdr = syscall.SizeofCmsghdr
	for len(b) >= hdr {
		h := (*syscall.Cmsghdr)(unsafe.Pointer(&b[0]))
		l := int(h.Len)
		if l < hdr || l > len(b) {
			return 0
		}
		if h.Level == syscall.SOL_SOCKET && h.Type == syscall.SCM_TIMESTAMPNS && l >= hdr+int(unsafe.Sizeof(syscall.Timespec{})) {
			ts := (*syscall.Timespec)(unsafe.Pointer(&b[hdr]))
			return ts.Nano()
		}
		adv := (l + int(unsafe.Sizeof(uintptr(0))) - 1) &^ (int(unsafe.Sizeof(uintptr(0))) - 1)
		if adv >= len(b) {
			return 0
		}
		b = b[adv:]
	}
	return 0
}
