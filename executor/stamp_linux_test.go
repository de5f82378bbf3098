package executor

import (
	"context"
	"net"
	"testing"
	"time"
)

// A read that comes late still gets the time its bytes arrived: the stamp
// is the kernel's receive time, not the time of the read. The server's
// write is bracketed by two readings of the clock and the client reads
// 50 ms after the second: the stamp must fall within the write.
func TestReceiveStampIsArrival(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	type write struct{ before, after time.Time }
	wrote := make(chan write, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		// Answer each request, as a server does.
		for buf := make([]byte, 1); ; {
			if _, err := c.Read(buf); err != nil {
				return
			}
			w := write{before: time.Now()}
			c.Write([]byte("data: x\n\n"))
			w.after = time.Now()
			wrote <- w
		}
	}()
	c, err := stampDialer(&net.Dialer{})(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sc, ok := stampsOf(c).(*stampConn)
	if !ok {
		t.Fatalf("the dialer returned a %T without receive times", c)
	}
	buf := make([]byte, 64)
	// exchange sends a request and reads the answer, late after the
	// server wrote it; it returns the write, when the read began and the
	// answer's stamp.
	exchange := func(late time.Duration) (write, time.Time, time.Time) {
		c.Write([]byte("?"))
		w := <-wrote
		time.Sleep(late) // the reader is busy elsewhere
		began := time.Now()
		n, err := c.Read(buf)
		if err != nil || string(buf[:n]) != "data: x\n\n" {
			t.Fatalf("read %q, %v", buf[:n], err)
		}
		return w, began, readStamp(sc)
	}
	// The kernel turns receive timestamps on in deferred work once the
	// first socket asks (the dialer's keeper): until then it sends no
	// receive time and the stamp is the read's. Wait for it, however long
	// a busy machine takes.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if exchange(0); sc.rs.ts != 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the kernel gave no receive time in 5 s")
		}
	}
	const late = 50 * time.Millisecond
	w, began, got := exchange(late)
	if got.Before(w.before) || got.After(w.after) {
		t.Errorf("stamp %v after the server began its write, which took %v, and the read began %v after it; want the stamp within the write, not at the read",
			got.Sub(w.before), w.after.Sub(w.before), began.Sub(w.before))
	}
}
