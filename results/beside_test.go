package results

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSaveBeside: a baseline copy takes the requests and outputs files
// along under its own stem, removes an earlier baseline's file the run did
// not write, and leaves a file alone when the save directory is the
// output directory (copying it onto itself would empty it).
func TestSaveBeside(t *testing.T) {
	out, saved := t.TempDir(), t.TempDir()
	write := func(p, body string) {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			return "(absent)"
		}
		return string(b)
	}
	reqs := filepath.Join(out, "run-20261203.requests.jsonl")
	write(reqs, "answers\n")
	write(filepath.Join(saved, "ci.outputs.jsonl"), "stale texts\n") // an earlier baseline's
	if err := SaveBeside([]string{reqs}, filepath.Join(saved, "ci.json")); err != nil {
		t.Fatal(err)
	}
	if got := read(filepath.Join(saved, "ci.requests.jsonl")); got != "answers\n" {
		t.Errorf("ci.requests.jsonl = %q, want the run's", got)
	}
	if got := read(filepath.Join(saved, "ci.outputs.jsonl")); got != "(absent)" {
		t.Errorf("the earlier baseline's outputs file stayed: %q", got)
	}
	// Saved into the output directory itself.
	same := filepath.Join(out, "ci.requests.jsonl")
	write(same, "in place\n")
	if err := SaveBeside([]string{same}, filepath.Join(out, "ci.json")); err != nil {
		t.Fatal(err)
	}
	if got := read(same); got != "in place\n" {
		t.Errorf("copied onto itself: %q", got)
	}
}
