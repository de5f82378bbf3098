package main

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmload/llmload/compare"
	"github.com/llmload/llmload/results"
)

// TestRepeat runs a scenario three times: the result holds each run and
// the spread of its figures, pools them (counts summed, histograms merged,
// throughput over the sum of the runs' durations, not the cooldowns), and
// the requests file marks each request's run. Two repeated results are
// compared by their run-to-run spread.
func TestRepeat(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	first := filepath.Join(dir, "first.json")
	code, stdout, stderr := call(t, ctx, "run", "-quiet", "-out", first, "testdata/repeat.hcl")
	if code != exitOK {
		t.Fatalf("exit %d, want 0\n%s%s", code, stdout, stderr)
	}
	res, err := results.ReadResult(first)
	if err != nil {
		t.Fatal(err)
	}
	rp := res.Repeat
	if rp == nil || rp.Count != 3 || len(rp.Runs) != 3 {
		t.Fatalf("repeat: %+v, want 3 runs", rp)
	}
	var durations, completed, tokens float64
	for i, r := range rp.Runs {
		if r.Run != i+1 || r.Summary == nil || r.Summary.Completed != 60 || !r.Valid {
			t.Errorf("run %d: %+v", i+1, r)
			continue
		}
		if i > 0 && r.StartedAt.Sub(rp.Runs[i-1].EndedAt) < 150e6 {
			t.Errorf("run %d started %v after run %d ended, want the 200ms cooldown", i+1, r.StartedAt.Sub(rp.Runs[i-1].EndedAt), i)
		}
		durations += r.Summary.Duration
		completed += float64(r.Summary.Completed)
		tokens += float64(r.Summary.TotalOutputTokens)
	}
	s := res.Summary
	if float64(s.Completed) != completed || s.ITL.Count != 3*rp.Runs[0].Summary.ITL.Count {
		t.Errorf("pooled: %d completed and %d ITL samples, want the runs' sums", s.Completed, s.ITL.Count)
	}
	if math.Abs(s.Duration-durations) > 1e-6 || math.Abs(s.OutputThroughput-tokens/durations) > 1e-6 {
		t.Errorf("pooled duration %v s and throughput %v, want the sum of the runs' %v s and %v", s.Duration, s.OutputThroughput, durations, tokens/durations)
	}
	spread := map[string]results.Spread{}
	for _, sp := range rp.Spread {
		spread[sp.Key] = sp
	}
	itl := spread["itl_p50"]
	if len(itl.Values) != 3 || itl.Median == nil || itl.CV == nil || *itl.Min > *itl.Median || *itl.Median > *itl.Max {
		t.Errorf("itl_p50 spread: %+v", itl)
	}
	if !strings.Contains(stdout, "Repeats") || !strings.Contains(stdout, "3 of 3 runs") {
		t.Errorf("the console shows no repeats:\n%s", stdout)
	}
	if c := checkNamed(t, res, "ttft_p50"); c.Kind != "sla" || c.Samples != s.TTFT.Count || c.Samples != 180 {
		t.Errorf("the ttft_p50 check %+v rests on %d samples, want the pooled %d (180)", c, c.Samples, s.TTFT.Count)
	}
	runs := map[int]int{}
	f, err := os.Open(filepath.Join(dir, "first.requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	ids := map[int64]bool{}
	for sc.Scan() {
		var l results.RequestLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		runs[l.Repeat]++
		if ids[l.ID] {
			t.Errorf("id %d appears twice", l.ID)
		}
		ids[l.ID] = true
	}
	if runs[1] != 60 || runs[2] != 60 || runs[3] != 60 || len(runs) != 3 {
		t.Errorf("requests per run %v, want 60 in each of runs 1 to 3", runs)
	}

	// A slower candidate, repeated too, against the first as its
	// baseline: its regression check is judged by the runs' spread...
	second := filepath.Join(dir, "second.json")
	if code, stdout, stderr := call(t, ctx, "run", "-quiet", "-out", second, "-baseline", first, "-var", "step_overhead=5ms", "testdata/repeat.hcl"); code != exitCheckFailed {
		t.Fatalf("second run: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	slow, err := results.ReadResult(second)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range slow.Checks {
		if c.Kind == "regression" && (c.Verdict != results.Fail || c.Samples != 3) {
			t.Errorf("regression %s: verdict %s on %d samples, want a failure resting on the 3 runs", c.Name, c.Verdict, c.Samples)
		}
	}
	// ...and so is llmload compare of the two files.
	code, stdout, stderr = call(t, ctx, "compare", "-format", "json", "-max-regression", "itl_p50=50%", first, second)
	if code != exitCheckFailed {
		t.Fatalf("compare: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	var c results.Comparison
	if err := json.Unmarshal([]byte(stdout), &c); err != nil {
		t.Fatal(err)
	}
	for _, r := range c.Rows {
		// P99 on 180 pooled samples has no interval (fewer than 1,000).
		// Agreement rests on the paired prompts, not the runs (Wilson).
		// An error rate of 0 in every run has no spread, so the requests
		// judge it (a zero-width interval over the runs would decide any
		// tolerance).
		if r.Key == "error_rate" && r.Method == compare.MethodProportion {
			if r.Upper <= r.Lower {
				t.Errorf("error_rate compared over [%g, %g], a zero-width interval", r.Lower, r.Upper)
			}
			continue
		}
		if r.HasInterval && r.Method != "runs" && r.Method != "wilson" {
			t.Errorf("%s compared by %q, want the run-to-run spread", r.Key, r.Method)
		}
		if r.Key == "itl_p50" && (r.Verdict != results.Fail || r.BaseSamples != 3 || r.NewSamples != 3) {
			t.Errorf("itl_p50: %+v, want a failure resting on 3 runs a side", r)
		}
	}
}
