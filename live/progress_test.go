package live

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/llmload/llmload/metrics"
)

// TestProgressPlain: with stderr not a terminal (a CI log) the progress is
// a plain line every PlainEvery and one at the end, never a redrawn line.
func TestProgressPlain(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, false)
	p.Result(&metrics.Request{TTFT: 12 * time.Millisecond, ITL: []time.Duration{3 * time.Millisecond}})
	for i := 0; i <= 100; i++ { // 25 s of snapshots, 250 ms apart
		p.Snapshot(metrics.Snapshot{Elapsed: time.Duration(i) * 250 * time.Millisecond, Sent: i, Planned: 200, Completed: i, InFlight: 3, OutputRate: 1500})
	}
	p.Snapshot(metrics.Snapshot{Elapsed: 25100 * time.Millisecond, Sent: 200, Planned: 200, Completed: 199, Failed: 1, Final: true})
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 3 || strings.Contains(buf.String(), "\r") {
		t.Fatalf("want 3 plain lines (10 s, 20 s, final), got %q", buf.String())
	}
	for _, want := range []string{"10s elapsed, 40/200 sent, 40 completed, 0 failed, 3 in flight, 1500 tok/s, ttft p50 12.0ms, itl p50 3.0ms", "20s elapsed", "25.1s elapsed, 200/200 sent, 199 completed, 1 failed"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, buf.String())
		}
	}
}

// TestProgressPart: a snapshot of a named part of the run (an A/B run's
// block and arm) starts its line with the name, plain or live.
func TestProgressPart(t *testing.T) {
	for _, live := range []bool{false, true} {
		var buf bytes.Buffer
		p := NewProgress(&buf, live)
		p.Snapshot(metrics.Snapshot{Elapsed: 3 * time.Second, Sent: 20, Planned: 20, Completed: 20, Final: true, Part: "block 2/4 arm candidate"})
		want := "[block 2/4 arm candidate] 3s elapsed, 20/20 sent, 20 completed"
		if !strings.Contains(buf.String(), want) {
			t.Errorf("live=%v: progress %q lacks %q", live, buf.String(), want)
		}
	}
}

// TestProgressArms: in an A/B run the medians start again with each block
// of each arm, so that a line naming the candidate shows the candidate's.
func TestProgressArms(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, false)
	for i := 0; i < 9; i++ {
		p.Result(&metrics.Request{Arm: "baseline", Block: 1, TTFT: 10 * time.Millisecond, ITL: []time.Duration{time.Millisecond}})
	}
	p.Result(&metrics.Request{Arm: "candidate", Block: 1, TTFT: 30 * time.Millisecond, ITL: []time.Duration{5 * time.Millisecond}})
	p.Snapshot(metrics.Snapshot{Elapsed: time.Second, Sent: 1, Completed: 1, Final: true, Part: "block 1/2 arm candidate"})
	if want := "ttft p50 30.0ms, itl p50 5.0ms"; !strings.Contains(buf.String(), want) {
		t.Errorf("progress %q lacks the candidate's own medians, %q", buf.String(), want)
	}
}

// TestProgressLive: on a terminal every snapshot redraws one line, and the
// last one ends it.
func TestProgressLive(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, true)
	p.Snapshot(metrics.Snapshot{Elapsed: time.Second, Sent: 5, ActiveUsers: 4})
	p.Snapshot(metrics.Snapshot{Elapsed: 2 * time.Second, Sent: 9, Final: true})
	out := buf.String()
	if strings.Count(out, "\r") != 2 || !strings.HasSuffix(out, "\n") || !strings.Contains(out, "4 users") {
		t.Errorf("live progress %q: want two redraws, the users, a final newline", out)
	}
}
