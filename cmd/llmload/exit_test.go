package main

import (
	"testing"

	"github.com/llmload/llmload/runner"
)

// TestExitCodeSeverity: the runner's statuses are declared in the order
// worse ranks their exit codes, so the worst status is the worst code.
func TestExitCodeSeverity(t *testing.T) {
	all := []runner.Status{runner.StatusOK, runner.StatusFailed, runner.StatusNoResult, runner.StatusInvalid, runner.StatusInterrupted}
	want := []int{exitOK, exitCheckFailed, exitNoResult, exitInvalid, exitInterrupted}
	for i, a := range all {
		if got := exitCode(a); got != want[i] {
			t.Errorf("status %d: exit %d, want %d", a, got, want[i])
		}
		for _, b := range all[i:] {
			if got := worse(exitCode(a), exitCode(b)); got != exitCode(b) {
				t.Errorf("worse(exit %d, exit %d) = %d, want %d", exitCode(a), exitCode(b), got, exitCode(b))
			}
		}
	}
}
