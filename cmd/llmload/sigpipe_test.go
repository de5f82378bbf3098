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
// The verdict itself is not the test's to fix: tiny.hcl's run is real
// time, and a busy machine can break its validity bounds (its own
// max_rate_shortfall of 0.5 included) or deliver its tokens in bursts
// (its itl_p95 check inconclusive), either of which exits 3 however the
// report fared. So the exit code is checked against the verdict the result
// file records, and what the run wrote against what it counted: both hold
// at any speed, and on an idle machine that verdict is a pass (exit 0).
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
			verdict := res.Verdict()
			if want, ok := exitOf[verdict]; !ok || cmd.ProcessState.ExitCode() != want {
				t.Errorf("exit %d, but the result's verdict is %q (exit %d): the closed pipe changed the exit\nstderr:\n%s",
					cmd.ProcessState.ExitCode(), verdict, want, stderr.String())
			}
			if verdict != metrics.Pass {
				t.Logf("the run's verdict is %q on this machine (exit %d)", verdict, cmd.ProcessState.ExitCode())
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
