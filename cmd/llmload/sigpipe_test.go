package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
)

// TestClosedStdoutKeepsResults runs llmload as its own process (main(),
// with its signal handling) with stdout a pipe nobody reads to the end, as
// `llmload run ... | head -1` makes it: the result files are written
// before the report is printed, and the closed pipe fails the report's
// writes instead of killing the process (SIGPIPE), which exits by the
// run's verdict: the one its result file records (the report that no one
// read changes nothing). The reader either closes before the run starts
// (every write fails, whenever it comes) or after the first line, as head
// -1 does.
//
// tiny.hcl's verdict does not depend on how busy the machine is (its
// checks cannot break or go inconclusive by timing, and this package's
// tests lift the validity bounds that measure the machine: see the file),
// so the run passes and exits 0 whatever became of its report; what it
// wrote is checked against what it counted.
func TestClosedStdoutKeepsResults(t *testing.T) {
	for _, tt := range []struct {
		name  string
		lines int // read before closing
	}{
		{"closed before the run", 0},
		{"closed after the first line", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "run", "-quiet", "-out", out, "testdata/tiny.hcl")
			cmd.Env = append(os.Environ(), asMain+"=1")
			cmd.Stdout = w
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if tt.lines == 0 {
				r.Close()
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			w.Close() // the child's copy is its stdout
			if tt.lines > 0 {
				line, err := bufio.NewReader(r).ReadString('\n')
				if err != nil || !strings.Contains(line, "Serving Benchmark Result") {
					t.Errorf("first line %q (%v), want the report's", line, err)
				}
				r.Close()
			}
			err = cmd.Wait()
			if cmd.ProcessState.ExitCode() < 0 {
				t.Fatalf("llmload died of a signal (%v): the closed pipe killed it\nstderr:\n%s", err, stderr.String())
			}
			res, err := results.ReadResult(filepath.Join(out, "tiny.json"))
			if err != nil {
				t.Fatalf("the result: %v\nstderr:\n%s", err, stderr.String())
			}
			if verdict, code := res.Verdict(), cmd.ProcessState.ExitCode(); verdict != metrics.Pass || code != exitOK {
				t.Errorf("exit %d, the result's verdict %q: want a pass, exit %d, whatever became of the report\nstderr:\n%s",
					code, verdict, exitOK, stderr.String())
			}
			if res.Summary == nil || res.Summary.Completed != 40 {
				t.Fatalf("the result holds %+v, want 40 completed requests", res.Summary)
			}
			// Every request the result counts is in the requests file (the
			// two warmup requests besides).
			data, err := os.ReadFile(filepath.Join(out, "tiny.requests.jsonl"))
			if err != nil {
				t.Fatalf("the requests file: %v", err)
			}
			measured := 0
			for line := range strings.Lines(string(data)) {
				var l struct {
					Warmup bool `json:"warmup"`
				}
				if err := json.Unmarshal([]byte(line), &l); err != nil {
					t.Fatalf("requests file line %q: %v", line, err)
				}
				if !l.Warmup {
					measured++
				}
			}
			if want := res.Summary.Completed + res.Summary.Failed; measured != want {
				t.Errorf("the requests file lists %d measured requests, the result counts %d", measured, want)
			}
		})
	}
}

// firstWriteCheck calls check at its first write and keeps what it is
// given.
type firstWriteCheck struct {
	check func()
	done  bool
	buf   strings.Builder
}

func (w *firstWriteCheck) Write(p []byte) (int, error) {
	if !w.done {
		w.done = true
		w.check()
	}
	return w.buf.Write(p)
}

// TestResultsWrittenBeforeReport: when the report's first byte is printed,
// the result file, the requests file and the HTML report are already on
// disk, so that whatever happens to stdout (or the process) then loses
// nothing but the printout.
func TestResultsWrittenBeforeReport(t *testing.T) {
	out := t.TempDir()
	page := filepath.Join(out, "tiny.html")
	var missing []string
	stdout := &firstWriteCheck{check: func() {
		for _, f := range []string{filepath.Join(out, "tiny.json"), filepath.Join(out, "tiny.requests.jsonl"), page} {
			if _, err := os.Stat(f); err != nil {
				missing = append(missing, f)
			}
		}
	}}
	var stderr strings.Builder
	code := run(context.Background(), []string{"run", "-quiet", "-out", out, "-html", page, "testdata/tiny.hcl"}, strings.NewReader(""), stdout, &stderr)
	if code != exitOK || !stdout.done {
		t.Fatalf("exit %d, printed %v\n%s", code, stdout.done, stderr.String())
	}
	if len(missing) > 0 {
		t.Errorf("not yet written when the report began: %v", missing)
	}
}
