package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
)

// TestMultiScenarioOutput: a run of several scenarios labels each block on
// stdout and ends with one table (scenario, verdict, exit, figures, why);
// a run of one prints neither.
func TestMultiScenarioOutput(t *testing.T) {
	ctx := context.Background()
	code, out, errOut := call(t, ctx, "run", "-quiet", "-out", t.TempDir(), "testdata/multi.hcl")
	if code != exitInvalid {
		t.Errorf("exit %d, want %d (the worst: a missing baseline)\n%s", code, exitInvalid, errOut)
	}
	// Each block opens with its label, in the file's order, the report
	// after it.
	var at []int
	for i, name := range []string{"passes", "fails", "no_baseline"} {
		label := `== scenario "` + name + `" (` + itoa(i+1) + ` of 3) ==`
		j := strings.Index(out, label)
		if j < 0 {
			t.Fatalf("stdout lacks %q:\n%s", label, out)
		}
		at = append(at, j)
	}
	if !(at[0] < at[1] && at[1] < at[2]) || !strings.Contains(out[at[0]:at[1]], "Serving Benchmark Result") || !strings.Contains(out[at[1]:at[2]], "Serving Benchmark Result") {
		t.Errorf("the labels do not open their blocks:\n%s", out)
	}
	// The closing table, one line each.
	sum := strings.Index(out, "== summary of 3 scenarios ==")
	if sum < at[2] {
		t.Fatalf("no summary after the last block:\n%s", out)
	}
	table := out[sum:]
	for _, want := range []string{
		`scenario +verdict +exit +completed requests +failed requests +request throughput \(req/s\) +output throughput \(tok/s\) +P99 TTFT \(ms\) +P99 ITL \(ms\) +why`,
		`passes +pass +0 +10 +0 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +\d+ checks? passed`,
		`fails +fail +1 +10 +0 .* failed: never`,
		`no_baseline +not run +2 +- +- +- +- +- +- +invalid input \(see the messages above\)`,
	} {
		if !regexp.MustCompile(want).MatchString(table) {
			t.Errorf("the summary lacks a line matching %q:\n%s", want, table)
		}
	}

	// One scenario: no label, no summary.
	_, out, _ = call(t, ctx, "run", "-quiet", "-out", t.TempDir(), "-scenario", "passes", "testdata/multi.hcl")
	if strings.Contains(out, "== scenario") || strings.Contains(out, "== summary") {
		t.Errorf("a run of one scenario is labelled:\n%s", out)
	}
}
