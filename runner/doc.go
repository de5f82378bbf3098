// Package runner is to own what a run of one scenario is (issue 30), out
// of cmd/llmload: for now, how a run ends, Status, which cmd/llmload maps
// to its exit codes.
//
// It imports nothing of llmload; cmd/llmload imports it.
package runner
