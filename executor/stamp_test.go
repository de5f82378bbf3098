package executor

import (
	"context"
	"io"
	"net"
	"runtime"
	"testing"
	"time"
)

// A read that comes late still gets the time its bytes arrived: the
// stamp is the kernel's receive time (Linux), not the time of the read.
func TestReceiveStampIsArrival(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("receive timestamps are read on Linux only")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	sent := make(chan time.Time, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		// Answer a request, as a server does.
		if _, err := c.Read(make([]byte, 1)); err != nil {
			return
		}
		c.Write([]byte("data: x\n\n"))
		sent <- time.Now()
		io.Copy(io.Discard, c)
	}()
	c, err := stampDialer(&net.Dialer{})(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	conn := stampsOf(c)
	if conn == nil {
		t.Fatalf("the dialer returned a %T without receive times", c)
	}
	c.Write([]byte("?"))
	at := <-sent
	const late = 50 * time.Millisecond
	time.Sleep(late) // the reader is busy elsewhere
	buf := make([]byte, 64)
	n, err := c.Read(buf)
	if err != nil || string(buf[:n]) != "data: x\n\n" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	read := time.Now()
	got := readStamp(conn)
	if d := got.Sub(at); d > late/2 || d < -late/2 {
		t.Errorf("stamp %v after the write (read %v after it); want about 0, not the read's lateness", d, read.Sub(at))
	}
	if got.After(read) {
		t.Errorf("stamp after the read returned")
	}
}
