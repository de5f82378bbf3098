package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/llmload/llmload/executor/executortest"
)

// TestSLAGate runs the whole command against a server that streams with a
// fixed 200 ms TTFT and 20 ms ITL to 200 concurrent requests: an itl_p99
// bound under the true ITL fails the run (exit 1), one well above it
// passes. Gaps are timed as bytes arrive, so a busy machine stretches the
// tail: the passing bound leaves room for that. A client that stamped a
// stream's tokens all at once would measure an ITL of 0 and pass the 15 ms
// bound, so the test still catches it.
func TestSLAGate(t *testing.T) {
	srv := executortest.New(executortest.Config{TTFT: 200 * time.Millisecond, ITL: 20 * time.Millisecond, Tokens: 12})
	defer srv.Close()
	tests := []struct {
		bound string
		code  int
	}{
		{"15ms", exitCheckFailed},
		{"250ms", exitOK},
	}
	for _, tt := range tests {
		t.Run(tt.bound, func(t *testing.T) {
			out := t.TempDir()
			code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out,
				"-var", "base_url="+srv.URL, "-var", "itl_p99="+tt.bound, "testdata/gate.hcl")
			if code != tt.code {
				t.Fatalf("itl_p99 = %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", tt.bound, code, tt.code, stdout, stderr)
			}
			res := resultFile(t, filepath.Join(out, "gate.json"))
			if res["completed"] != float64(200) {
				t.Errorf("completed = %v, want 200", res["completed"])
			}
			if got := srv.MaxConcurrent(); got < 150 {
				t.Errorf("the server saw at most %d concurrent streams; the test means 200", got)
			}
		})
	}
}
