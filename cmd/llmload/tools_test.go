package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmload/llmload/results"
)

// TestToolCallsEndToEnd: a dataset whose entries offer tools, replayed
// against the simulator: about half the answers call a tool (the entry
// with tool_choice "required" always, "none" never), every call is well
// formed, the first tool-call token is measured for each, the console says
// so, and an sla and an assert on the figures pass.
func TestToolCallsEndToEnd(t *testing.T) {
	out := filepath.Join(t.TempDir(), "tools.json")
	code, stdout, stderr := call(t, context.Background(), "run", "-out", out, "testdata/tools.hcl")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	res, err := results.ReadResult(out)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	if s.Completed != 24 || s.ToolCallRequests < 2 || s.ToolCallRequests > 22 || s.ToolCalls != s.ToolCallRequests {
		t.Errorf("completed %d, answers with calls %d, calls %d", s.Completed, s.ToolCallRequests, s.ToolCalls)
	}
	if s.TTFTToolCall.Count != int64(s.ToolCallRequests) || s.OutputDefects["bad_tool_call"] != 0 {
		t.Errorf("first tool-call tokens %d for %d answers with calls; %d malformed", s.TTFTToolCall.Count, s.ToolCallRequests, s.OutputDefects["bad_tool_call"])
	}
	if !strings.Contains(stdout, "Tool calls: ") || !strings.Contains(stdout, "first tool-call token P50") {
		t.Errorf("the console does not show the tool calls:\n%s", stdout)
	}
	for _, c := range res.Checks {
		if c.Verdict != results.Pass {
			t.Errorf("check %s: %s", c.Name, c.Verdict)
		}
	}
}
