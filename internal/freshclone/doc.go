// Package freshclone holds the test that does what a new user does: clone
// the repository into an empty folder (no ../shared beside it, nothing
// else), build llmload, then validate and plan every example and run the
// fast ones. It is part of `make test`; `go test -short` skips it.
//
// It imports internal/testshared and results, in tests only; nothing imports
// it.
package freshclone
