//go:build unix

package executor

import (
	"errors"
	"fmt"
	"syscall"
)

// clientLimit says whether a request failed for the client's own limits:
// no file descriptor left (EMFILE, ENFILE) or no local port to bind
// (EADDRNOTAVAIL).
func clientLimit(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) || errors.Is(err, syscall.EADDRNOTAVAIL)
}

// EnsureFileLimit makes sure the process may open need file descriptors
// (FDHeadroom more than the connections a run plans, see
// PlannedConcurrency): when the soft RLIMIT_NOFILE is lower it is raised,
// up to the hard limit. It returns what it did ("" when nothing was
// needed) or, when even the hard limit is too low, a warning naming the
// number to raise it to; the run still goes on, and connections past the
// limit fail as client_limit ("too many open files"), which makes the
// run invalid.
func EnsureFileLimit(conns int) (string, error) {
	need := uint64(conns) + FDHeadroom
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return "", fmt.Errorf("reading the open-file limit: %w", err)
	}
	if lim.Cur >= need {
		return "", nil
	}
	old := lim.Cur
	lim.Cur = min(need, lim.Max)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Sprintf("warning: %d concurrent connections need about %d open files but the limit is %d and could not be raised (%v): raise it to %d (ulimit -n %d)",
			conns, need, old, err, need, need), nil
	}
	if lim.Cur < need {
		raised := fmt.Sprintf("soft limit raised from %d to it", old)
		if lim.Cur == old {
			raised = "the soft limit is already there"
		}
		return fmt.Sprintf("warning: %d concurrent connections need about %d open files but the hard limit is %d (%s): raise it to %d (ulimit -Hn %d, or LimitNOFILE / nofile in limits.conf); requests past it fail as client_limit and make the run invalid",
			conns, need, lim.Max, raised, need, need), nil
	}
	return fmt.Sprintf("raised the open-file limit from %d to %d for %d concurrent connections", old, lim.Cur, conns), nil
}
