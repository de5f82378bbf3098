package main

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
)

// requestLines reads a requests file.
func requestLines(t *testing.T, path string) []results.RequestLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []results.RequestLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l results.RequestLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s line %d: %v", path, len(out)+1, err)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// measured counts a result's measured requests by its summary.
func measured(r *results.Result) int {
	return r.Summary.Completed + r.Summary.Failed + r.Summary.Canceled
}

// TestRequestsFileIsComplete: the streamed requests file holds one line
// per request (warmup included) after a normal run and after Ctrl-C, and
// its wall-clock send times line up with the result's time zero.
func TestRequestsFileIsComplete(t *testing.T) {
	tests := []struct {
		name      string
		file      string
		interrupt bool // cancel once 5 requests have completed
		code      int
	}{
		{"normal", "testdata/tiny.hcl", false, exitOK},
		{"interrupted", "testdata/closed.hcl", true, exitInterrupted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			args := []string{"run", "-quiet", "-out", out, tt.file}
			if tt.interrupt {
				args = append(args, interruptAfterCompletions(t, cancel, 5)...)
			}
			code, stdout, stderr := call(t, ctx, args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.code, stdout, stderr)
			}
			entries, _ := os.ReadDir(out)
			if len(entries) != 2 {
				t.Errorf("%s holds %d entries, want the result and the requests file (a temporary file left?)", out, len(entries))
			}
			var res *results.Result
			var lines []results.RequestLine
			for _, e := range entries {
				switch p := filepath.Join(out, e.Name()); {
				case strings.HasSuffix(p, ".requests.jsonl"):
					lines = requestLines(t, p)
				case strings.HasSuffix(p, ".json"):
					r, err := results.ReadResult(p)
					if err != nil {
						t.Fatal(err)
					}
					res = r
				}
			}
			if res == nil {
				t.Fatal("no result file")
			}
			warm := 0
			for _, l := range lines {
				if l.Warmup {
					warm++
				}
				if d := l.SentAt.Sub(res.TimeZero) - time.Duration(l.SentMs*float64(time.Millisecond)); d < -time.Microsecond || d > time.Microsecond {
					t.Fatalf("line %d: sent_at %v is not time_zero %v + sent_ms %v", l.ID, l.SentAt, res.TimeZero, l.SentMs)
				}
			}
			if got, want := len(lines)-warm, measured(res); got != want || want == 0 {
				t.Errorf("%d measured lines, the result counts %d requests", got, want)
			}
		})
	}
}

var planCount = regexp.MustCompile(`(?m)^\s+(\d+) requests over`)

// TestPlanEqualsRun: plan prints the arrivals the run dispatches, at the
// boundaries too: an arrival exactly at the duration is not sent, requests
// fewer and more than the duration allows, no duration, rate inf.
func TestPlanEqualsRun(t *testing.T) {
	files, _ := filepath.Glob("testdata/boundary/*.hcl")
	if len(files) < 5 {
		t.Fatalf("found %d boundary fixtures", len(files))
	}
	want := map[string]int{"on-arrival": 20, "requests-fewer": 7, "requests-more": 20, "no-duration": 12, "inf": 15}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".hcl")
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := call(t, context.Background(), "plan", f)
			m := planCount.FindStringSubmatch(stdout)
			if code != exitOK || m == nil {
				t.Fatalf("plan exit %d:\n%s%s", code, stdout, stderr)
			}
			planned, _ := strconv.Atoi(m[1])
			if planned != want[name] {
				t.Errorf("plan says %d requests, want %d", planned, want[name])
			}
			out := t.TempDir()
			if code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, f); code != exitOK {
				t.Fatalf("run exit %d:\n%s%s", code, stdout, stderr)
			}
			res, err := results.ReadResult(filepath.Join(out, name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if got := measured(res); got != planned {
				t.Errorf("run sent %d requests, plan said %d", got, planned)
			}
		})
	}
}

// TestMergeCommand merges two real runs against the simulator: counts add
// up, percentiles equal those of a recorder fed every request of both
// requests files, and the scenario's checks are judged again on the merged
// figures (tiny.hcl asserts exactly 40 completed requests, which two runs
// break).
func TestMergeCommand(t *testing.T) {
	var dirs, paths []string
	for i := range 2 {
		dir := t.TempDir()
		if code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", dir, "testdata/tiny.hcl"); code != exitOK {
			t.Fatalf("run %d exit %d:\n%s%s", i, code, stdout, stderr)
		}
		dirs = append(dirs, dir)
		paths = append(paths, filepath.Join(dir, "tiny.json"))
	}
	merged := filepath.Join(t.TempDir(), "merged.json")
	code, stdout, stderr := call(t, context.Background(), "merge", paths[0], paths[1], "-o", merged)
	if code != exitCheckFailed || !strings.Contains(stdout, "FAIL   everything completed") {
		t.Fatalf("merge exit %d, want %d with the completed-count assert failing:\n%s%s", code, exitCheckFailed, stdout, stderr)
	}
	res, err := results.ReadResult(merged)
	if err != nil {
		t.Fatal(err)
	}
	if res.Completed != 80 || res.Summary.TTFT.Count != 80 || len(res.Parts) != 2 {
		t.Errorf("merged completed %d, ttft samples %d, parts %d; want 80, 80, 2", res.Completed, res.Summary.TTFT.Count, len(res.Parts))
	}
	// One recorder fed every request of both runs.
	rec := metrics.NewRecorder(metrics.Options{})
	ns := func(ms float64) time.Duration { return time.Duration(math.Round(ms * 1e6)) }
	for _, dir := range dirs {
		for _, l := range requestLines(t, filepath.Join(dir, "tiny.requests.jsonl")) {
			if l.Warmup || l.TTFTMs == nil {
				continue
			}
			r := &metrics.Request{TTFT: ns(*l.TTFTMs), E2E: ns(*l.E2ELMs), OutputTokens: l.OutputTokens, FinishReason: l.FinishReason, IgnoreEOS: l.IgnoreEOS}
			for _, g := range l.ITLMs {
				r.ITL = append(r.ITL, ns(g))
			}
			rec.Add(r)
		}
	}
	want := rec.Summary()
	for _, m := range []string{"ttft", "itl", "tpot", "e2el"} {
		w, g := want.LatencyOf(m), res.Summary.LatencyOf(m)
		if w.Count != g.Count || w.P50 != g.P50 || w.P99 != g.P99 || w.Max != g.Max {
			t.Errorf("%s: merged count %d p50 %v p99 %v max %v; one recorder %d %v %v %v", m, g.Count, g.P50, g.P99, g.Max, w.Count, w.P50, w.P99, w.Max)
		}
	}
	var parts []*results.Result
	for _, p := range paths {
		r, _ := results.ReadResult(p)
		parts = append(parts, r)
	}
	if got, want := res.TotalOutputTokens, parts[0].TotalOutputTokens+parts[1].TotalOutputTokens; got != want {
		t.Errorf("merged output tokens %d, want %d", got, want)
	}
	span := res.Summary.SpanEnd.Sub(res.Summary.SpanStart).Seconds()
	if math.Abs(res.OutputThroughput-float64(res.TotalOutputTokens)/span) > 1e-6 {
		t.Errorf("merged output throughput %v is not tokens over the union span (%v s)", res.OutputThroughput, span)
	}
}

// TestMergeRefuses: results of different scenarios, the same result twice,
// and unreadable files are invalid input.
func TestMergeRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"testdata/tiny.hcl", "testdata/boundary/no-duration.hcl"} {
		if code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", dir, f); code != exitOK {
			t.Fatalf("%s exit %d:\n%s%s", f, code, stdout, stderr)
		}
	}
	tiny, other := filepath.Join(dir, "tiny.json"), filepath.Join(dir, "no-duration.json")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"different scenarios", []string{tiny, other}, "only results of one scenario merge"},
		{"the same run twice", []string{tiny, tiny}, "counted twice"},
		{"missing file", []string{tiny, filepath.Join(dir, "nope.json")}, "no such file"},
		{"no file", nil, "no result file given"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := call(t, context.Background(), append([]string{"merge"}, tt.args...)...)
			if code != exitInvalid || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d containing %q", code, stderr, exitInvalid, tt.want)
			}
		})
	}
}
