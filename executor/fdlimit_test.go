//go:build unix

package executor

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The open-file limit: a soft limit under the planned connections is
// raised to what they need (within the hard limit); past the hard limit
// the warning names the number to raise it to.
func TestEnsureFileLimit(t *testing.T) {
	var orig syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &orig); err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { syscall.Setrlimit(syscall.RLIMIT_NOFILE, &orig) })
	if orig.Max < 1024 {
		t.Skipf("hard limit %d: too low to test raising", orig.Max)
	}
	low := orig
	low.Cur = 256
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skip(err)
	}
	msg, err := EnsureFileLimit(500)
	var now syscall.Rlimit
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &now)
	if err != nil || now.Cur != 500+FDHeadroom || !strings.Contains(msg, "raised the open-file limit from 256 to 564") {
		t.Errorf("500 connections: %q, %v; soft limit now %d, want 564", msg, err, now.Cur)
	}
	if msg, err := EnsureFileLimit(100); msg != "" || err != nil {
		t.Errorf("100 connections under the limit: %q, %v; want nothing said", msg, err)
	}
	if orig.Max < 1<<40 {
		need := int(orig.Max) + 1
		msg, _ := EnsureFileLimit(need)
		if !strings.Contains(msg, "warning") || !strings.Contains(msg, "ulimit -Hn "+strconv.Itoa(need+FDHeadroom)) {
			t.Errorf("past the hard limit: %q, want a warning naming %d", msg, need+FDHeadroom)
		}
	}
}
