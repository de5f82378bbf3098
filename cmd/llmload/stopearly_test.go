package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmload/llmload/compare"
	"github.com/llmload/llmload/results"
)

// TestABStopEarly runs sequential A/B gates on two simulators end to end:
//   - a candidate whose prefill costs 9 us per prompt token instead of 5
//     (a TTFT regression well over 30%) fails, and stops before its 20
//     blocks;
//   - equal arms never fail: they stop with a pass, or run to the end;
//   - without stop_early, a budget of 1 s stops the run after the blocks
//     that fit, and says so.
//
// Each records where it stopped in ab.stopping, and the verdict rests on
// the blocks that ran.
func TestABStopEarly(t *testing.T) {
	tests := []struct {
		name string
		vars []string
		// want: the exit codes allowed, and how the run may stop.
		codes   []int
		stopped []string
		verdict string // the last look's verdict ("" for no look)
	}{
		{"regression", []string{"cand_prefill=9us"}, []int{exitCheckFailed}, []string{results.StoppedDecided}, compare.Fail},
		// Equal arms may also run all 20 blocks and end inconclusive
		// (exit 3): the gate only promises never to fail them but 2.5%
		// of the time.
		{"equal arms", []string{"cand_prefill=5us"}, []int{exitOK, exitNoResult}, []string{results.StoppedDecided, results.StoppedSchedule}, "pass or inconclusive"},
		{"budget", []string{"cand_prefill=5us", "stop_early=false", "budget=1s"}, []int{exitOK, exitCheckFailed, exitNoResult}, []string{results.StoppedBudget}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "ab.json")
			mdPath := filepath.Join(t.TempDir(), "summary.md")
			args := []string{"run", "-out", out, "-markdown", mdPath}
			for _, v := range tt.vars {
				args = append(args, "-var", v)
			}
			code, stdout, stderr := call(t, context.Background(), append(args, "testdata/ab-stop.hcl")...)
			if !containsInt(tt.codes, code) {
				t.Fatalf("exit %d, want one of %v\n%s%s", code, tt.codes, stdout, stderr)
			}
			res, err := results.ReadResult(out)
			if err != nil {
				t.Fatal(err)
			}
			st := res.AB.Stopping
			if st == nil {
				t.Fatalf("no ab.stopping in the result")
			}
			if !containsString(tt.stopped, st.Stopped) {
				t.Fatalf("stopped %q, want one of %v\n%s", st.Stopped, tt.stopped, stderr)
			}
			if st.Scheduled != 20 || st.Ran != res.AB.Blocks || st.Ran < 1 || st.Ran > st.Scheduled {
				t.Errorf("scheduled %d, ran %d, blocks %d", st.Scheduled, st.Ran, res.AB.Blocks)
			}
			// How many blocks a decision takes depends on the noise, and so
			// on how busy the machine is: the test asks only that the fail
			// stops the run before its end, whatever the other figure (ITL,
			// equal in both arms) says (compare.TestDecided holds the rule).
			if st.Stopped != results.StoppedSchedule && st.Ran >= st.Scheduled {
				t.Errorf("stopped %q but ran all %d blocks", st.Stopped, st.Ran)
			}
			// The verdict rests on the blocks that ran: 20 requests each.
			if got, want := res.Summary.Completed+res.Summary.Failed, 20*st.Ran; got != want {
				t.Errorf("the candidate arm measured %d requests over %d blocks, want %d", got, st.Ran, want)
			}
			if st.ElapsedSeconds <= 0 || (st.Stopped != results.StoppedSchedule && st.FullSeconds <= st.ElapsedSeconds) {
				t.Errorf("elapsed %gs, the whole schedule %gs", st.ElapsedSeconds, st.FullSeconds)
			}
			if tt.verdict == "" {
				if len(st.Looks) != 0 || st.StopEarly {
					t.Errorf("looks without stop_early: %+v", st.Looks)
				}
				if !strings.Contains(stdout, "Stopped at the budget (1s)") {
					t.Errorf("the console does not say the budget stopped the run:\n%s", stdout)
				}
				return
			}
			if len(st.Looks) == 0 {
				t.Fatal("no looks recorded")
			}
			last := st.Looks[len(st.Looks)-1]
			want := []string{tt.verdict}
			if tt.verdict == "pass or inconclusive" {
				want = []string{compare.Pass, compare.Inconclusive}
			}
			if last.At != st.Ran || !containsString(want, last.Verdict) {
				t.Errorf("last look at %d with %q, want at %d with one of %v", last.At, last.Verdict, st.Ran, want)
			}
			if last.Verdict == compare.Pass && st.Stopped != results.StoppedDecided && st.Ran < st.Scheduled {
				t.Errorf("a pass before the end that did not stop the run: %+v", st)
			}
			// The regression check and the comparison are judged at the
			// last look's confidence: the verdict the gate stopped on.
			if c := res.Comparison; c == nil || c.Confidence != last.Confidence || c.Verdict != last.Verdict {
				t.Errorf("comparison %+v, want verdict %s at confidence %g", c, last.Verdict, last.Confidence)
			}
			if tt.verdict == compare.Fail {
				// The fail rests on TTFT, worse by more than its 10%
				// tolerance (by how much more depends on how busy the
				// machine is: the client's share of TTFT dilutes the
				// candidate's slower prefill).
				for _, r := range res.Comparison.Rows {
					if r.Key == "ttft_p50" && r.Percent <= 10 {
						t.Errorf("the candidate's P50 TTFT is %.1f%% worse; a fail needs more than the 10%% tolerance", r.Percent)
					}
				}
				if !strings.Contains(stdout, "Stopped early: the verdict rests on") {
					t.Errorf("the console does not say the run stopped early:\n%s", stdout)
				}
				// The Markdown report (a pull request's summary) says it too,
				// with the look's confidence on the regression check.
				md, err := os.ReadFile(mdPath)
				if err != nil || !strings.Contains(string(md), "- Stopped early: the verdict rests on") || !strings.Contains(string(md), "("+compare.FormatConfidence(last.Confidence)+")") {
					t.Errorf("run -markdown: %v\n%s", err, md)
				}
			}
		})
	}
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func containsString(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestRepeatStopEarly: a repeated run against a stored baseline of
// repeated runs, judged by the run-to-run spread after every run: a
// candidate 5 ms slower per decode step fails and stops before its 8 runs;
// the same system never fails.
func TestRepeatStopEarly(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base.json")
	code, stdout, stderr := call(t, context.Background(), "run", "-out", base, "-var", "repeat=3", "testdata/repeat-stop.hcl")
	if code != exitOK {
		t.Fatalf("baseline: exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "stop_early: the baseline holds no repeated runs") {
		t.Errorf("a run without a baseline does not say stop_early has nothing to judge against:\n%s", stderr)
	}
	for _, tt := range []struct {
		name, overhead string
		codes          []int
		stopped        []string
		verdict        string
	}{
		{"regression", "5ms", []int{exitCheckFailed}, []string{results.StoppedDecided}, compare.Fail},
		{"same system", "100us", []int{exitOK, exitNoResult}, []string{results.StoppedDecided, results.StoppedSchedule}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "cand.json")
			code, stdout, stderr := call(t, context.Background(), "run", "-out", out, "-var", "baseline="+base, "-var", "step_overhead="+tt.overhead, "testdata/repeat-stop.hcl")
			if !containsInt(tt.codes, code) {
				t.Fatalf("exit %d, want one of %v\n%s%s", code, tt.codes, stdout, stderr)
			}
			res, err := results.ReadResult(out)
			if err != nil {
				t.Fatal(err)
			}
			st := res.Repeat.Stopping
			if st == nil || !containsString(tt.stopped, st.Stopped) || st.Scheduled != 8 || st.Ran != len(res.Repeat.Runs) {
				t.Fatalf("stopping %+v (runs %d), want stopped one of %v\n%s", st, len(res.Repeat.Runs), tt.stopped, stderr)
			}
			if len(st.Looks) == 0 {
				t.Fatal("no looks")
			}
			last := st.Looks[len(st.Looks)-1]
			if last.Verdict == compare.Fail && tt.verdict != compare.Fail {
				t.Errorf("the same system failed: %+v", last)
			}
			if tt.verdict != "" && last.Verdict != tt.verdict {
				t.Errorf("last look %+v, want %s", last, tt.verdict)
			}
			if tt.verdict == compare.Fail && st.Ran >= st.Scheduled {
				t.Errorf("a clear regression ran all %d runs", st.Ran)
			}
			if c := res.Comparison; c == nil || c.Confidence != last.Confidence {
				t.Errorf("comparison %+v not judged at the last look's confidence %g", c, last.Confidence)
			}
			// llmload compare against the gate's own baseline judges at
			// the last look's confidence; against another file (here the
			// candidate itself) it is a comparison the gate never made.
			for _, against := range []struct {
				base string
				want float64
			}{{base, last.Confidence}, {out, 0}} {
				_, stdout, stderr := call(t, context.Background(), "compare", "-format", "json", against.base, out)
				var c results.Comparison
				if err := json.Unmarshal([]byte(stdout), &c); err != nil {
					t.Fatalf("compare %s: %v\n%s%s", against.base, err, stdout, stderr)
				}
				if c.Confidence != against.want {
					t.Errorf("compare %s %s: confidence %g, want %g", against.base, out, c.Confidence, against.want)
				}
			}
		})
	}
}

// TestUpgradeABExample runs examples/ci/upgrade-ab.hcl as its comment
// says a user would from a clone: the candidate's slower decode fails the
// gate, which stops before its 30 blocks (after 4, about 21 s, on this
// project's machine) and says what the whole schedule would have cost.
func TestUpgradeABExample(t *testing.T) {
	out := filepath.Join(t.TempDir(), "upgrade.json")
	code, stdout, stderr := call(t, context.Background(), "run", "-out", out, "../../examples/ci/upgrade-ab.hcl")
	if code != exitCheckFailed {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	res, err := results.ReadResult(out)
	if err != nil {
		t.Fatal(err)
	}
	st := res.AB.Stopping
	if st == nil || st.Stopped != results.StoppedDecided || st.Ran >= st.Scheduled || st.Scheduled != 30 || st.Verdict != compare.Fail {
		t.Fatalf("stopping %+v, want a fail decided before the 30 blocks", st)
	}
	if !strings.Contains(stdout, "Stopped early: the verdict rests on") || !strings.Contains(stdout, "the whole schedule would have taken about") {
		t.Errorf("the console does not say where the gate stopped:\n%s", stdout)
	}
}
