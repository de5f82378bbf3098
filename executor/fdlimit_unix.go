//go:build unix

package executor

import (
	"fmt"
	"syscall"
)

// EnsureFileLimit makes sure the process may open need file descriptors
// (FDHeadroom more than the connections a run plans, see
// PlannedConcurrency): when the soft RLIMIT_NOFILE is lower it is raised,
// up to the hard limit. It returns what it did ("" when nothing was
// needed) or, when even the hard limit is too low, a warning naming the
// number to raise it to; the run still goes on, and connections past the
// limit fail as connect errors ("too many open files").
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
		return fmt.Sprintf("warning: %d concurrent connections need about %d open files but the hard limit is %d (soft limit raised from %d): raise it to %d (ulimit -Hn %d, or LimitNOFILE / nofile in limits.conf); connections past it will fail",
			conns, need, lim.Max, old, need, need), nil
	}
	return fmt.Sprintf("raised the open-file limit from %d to %d for %d concurrent connections", old, lim.Cur, conns), nil
}
