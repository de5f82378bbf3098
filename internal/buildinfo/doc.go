// Package buildinfo says which llmload is running: the version and commit
// a release build stamps with -ldflags, else what the Go toolchain
// recorded in the binary (runtime/debug.ReadBuildInfo: the module version
// of go install ...@v1.2.3, the pseudo-version and VCS revision of a go
// build inside a checkout).
//
// It is a leaf: it imports nothing of llmload.
package buildinfo
