package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmload/llmload/ops"
	"github.com/llmload/llmload/ops/opstest"
	"github.com/llmload/llmload/results"
)

// TestOps drives `llmload ops` on a stored sweep result: it writes the
// five files and says what it derived; a result without a capacity or an
// interrupted one is refused (exit 2) and writes nothing.
func TestOps(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, edit func(*results.Result)) string {
		r := opstest.Sweep(results.VaryUsers, 0)
		r.Summary.Completed = 400
		edit(r)
		path := filepath.Join(dir, name)
		if err := results.WriteResultFile(path, r); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := write("sweep.json", func(*results.Result) {})
	out := filepath.Join(dir, "ops")
	code, stdout, stderr := call(t, context.Background(), "ops", good, "-dir", out, "-headroom", "0.5")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"Capacity: 30 users, in [30, 40); lower bound 30 users.", "vllm:num_requests_running, 27.000 per replica", "autoscaler target 50% (13.500)"} {
		if !strings.Contains(strings.ReplaceAll(stdout, "\n ", " "), want) {
			t.Errorf("stdout does not say %q:\n%s", want, stdout)
		}
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{ops.HPAFile, ops.KEDAFile, ops.RulesFile, ops.TestsFile, ops.AdapterFile}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("files %v, want %v", names, want)
	}
	hpa, err := os.ReadFile(filepath.Join(out, ops.HPAFile))
	if err != nil || !strings.Contains(string(hpa), "averageValue: 13500m") {
		t.Errorf("hpa.yaml does not target 13.5 (50%% of 27):\n%s", hpa)
	}

	for _, tt := range []struct {
		name string
		edit func(*results.Result)
		want string
	}{
		{"no-capacity.json", func(r *results.Result) { r.Sweep.Capacity = nil }, "no load met every sla check"},
		{"interrupted.json", func(r *results.Result) { r.Interrupted = true }, "interrupted"},
	} {
		path := write(tt.name, tt.edit)
		out := filepath.Join(dir, "none")
		code, _, stderr := call(t, context.Background(), "ops", path, "-dir", out)
		if code != exitInvalid || !strings.Contains(stderr, tt.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d saying %q", tt.name, code, stderr, exitInvalid, tt.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: wrote %s", tt.name, out)
		}
	}
}
