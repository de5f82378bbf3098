package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputShift: a candidate whose answers never stop, as fast, run
// against a stored healthy baseline of ShareGPT prompts, passes every
// check (exit 0: the note is not a check), and the console and the result
// name the sharp change of its outputs; a healthy candidate's do not.
func TestOutputShift(t *testing.T) {
	dir := t.TempDir()
	saved := filepath.Join(dir, "baselines")
	code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", filepath.Join(dir, "record"), "-scenario", "record",
		"-save-baseline", saved, "testdata/output-shift.hcl")
	if code != exitOK {
		t.Fatalf("record: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	baseline := filepath.Join(saved, "record.json")
	sum := resultFile(t, baseline)["summary"].(map[string]any)
	if sum["referenced_answers"] != 24.0 || sum["reference_tokens"].(float64) <= sum["referenced_output_tokens"].(float64) {
		t.Fatalf("the healthy baseline's answers are not shorter than the replies: %v of %v tokens over %v answers",
			sum["referenced_output_tokens"], sum["reference_tokens"], sum["referenced_answers"])
	}
	if !strings.Contains(stdout, "Output length: 24 answers to prompts with an answer in the dataset") {
		t.Errorf("the console does not hold the output length:\n%s", stdout)
	}
	note := "Outputs changed sharply against the baseline: requests ending at max_tokens 0.0% -> 100.0%; output length against the dataset's answers "
	for _, tt := range []struct {
		fault string
		sharp bool
	}{
		{"none", false},
		{"never_stop", true},
	} {
		t.Run(tt.fault, func(t *testing.T) {
			out := filepath.Join(dir, tt.fault)
			code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, "-scenario", "gate",
				"-var", "fault="+tt.fault, "-var", "baseline="+baseline, "testdata/output-shift.hcl")
			if code != exitOK {
				t.Fatalf("exit %d, want 0: no check reads the outputs\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			_, after, ok := strings.Cut(stdout, "Comparison: pass\n")
			if !ok {
				t.Fatalf("no comparison in the console:\n%s", stdout)
			}
			if got := strings.HasPrefix(after, note); got != tt.sharp || !tt.sharp && strings.Contains(stdout, "changed sharply") {
				t.Errorf("the console names a sharp change: %v, want %v (%q):\n%s", got, tt.sharp, note, stdout)
			}
			cmp := resultFile(t, filepath.Join(out, "gate.json"))["comparison"].(map[string]any)
			notes, _ := cmp["notes"].([]any)
			if len(notes) != map[bool]int{true: 1, false: 0}[tt.sharp] || tt.sharp && !strings.HasPrefix(notes[0].(string), note) {
				t.Errorf("comparison.notes = %v", notes)
			}
			// Each request line carries its prompt's reference length.
			lines, err := os.ReadFile(filepath.Join(out, "gate.requests.jsonl"))
			if err != nil || strings.Count(string(lines), `"reference_len":`) != 24 {
				t.Errorf("want 24 request lines with a reference_len (%v):\n%.500s", err, lines)
			}
		})
	}
}
