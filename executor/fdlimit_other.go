//go:build !unix

package executor

// EnsureFileLimit does nothing where there is no RLIMIT_NOFILE.
func EnsureFileLimit(conns int) (string, error) { return "", nil }

// clientLimit knows no client limit where there is no RLIMIT_NOFILE.
func clientLimit(error) bool { return false }
