package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmload/llmload/results"
)

// TestABInterleaved runs two simulators, the candidate 5 ms slower per
// decode step, interleaved by request count and by schedule time: the run
// detects the difference (its regression check and its baseline.* assert
// fail, the comparison table shows it), and each block sends both arms the
// same schedule and the same prompts; each progress line names its block
// and arm.
func TestABInterleaved(t *testing.T) {
	for _, tt := range []struct {
		name, interleave string
		blocks           int
	}{
		{"by requests", "50", 4},
		{"by time", "0.5s", 0}, // the blocks follow the seeded arrivals
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "ab.json")
			code, stdout, stderr := call(t, context.Background(), "run", "-out", out, "-var", "interleave="+tt.interleave, "testdata/ab.hcl")
			if code != exitCheckFailed {
				t.Fatalf("exit %d, want 1 (the candidate is slower)\n%s%s", code, stdout, stderr)
			}
			res, err := results.ReadResult(out)
			if err != nil {
				t.Fatal(err)
			}
			ab := res.AB
			if ab == nil || ab.Baseline.Summary == nil || ab.Baseline.Target != "old" || ab.Candidate.Target != "new" {
				t.Fatalf("no A/B section with both arms: %+v", ab)
			}
			if tt.blocks > 0 && ab.Blocks != tt.blocks {
				t.Errorf("%d blocks, want %d", ab.Blocks, tt.blocks)
			}
			if ab.Blocks < 2 || len(ab.First) != ab.Blocks {
				t.Fatalf("%d blocks, first arms %v", ab.Blocks, ab.First)
			}
			for k, arm := range ab.First {
				if want := []string{results.ArmBaseline, results.ArmCandidate}[k%2]; arm != want {
					t.Errorf("block %d: %s went first, want %s (alternating)", k+1, arm, want)
				}
			}
			// The progress lines (plain: stderr is no terminal; each
			// block's last line at least) name the block and the arm, in
			// the order they ran.
			var want, got []string
			for k, first := range ab.First {
				second := map[string]string{results.ArmBaseline: results.ArmCandidate, results.ArmCandidate: results.ArmBaseline}[first]
				for _, arm := range []string{first, second} {
					want = append(want, fmt.Sprintf("[block %d/%d arm %s]", k+1, ab.Blocks, arm))
				}
			}
			for _, line := range strings.Split(stderr, "\n") {
				part, ok := strings.CutPrefix(line, "llmload: [")
				if !ok || !strings.Contains(part, "] ") || !strings.Contains(part, " elapsed, ") {
					continue
				}
				if p := "[" + part[:strings.Index(part, "] ")+1]; len(got) == 0 || got[len(got)-1] != p {
					got = append(got, p)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("progress lines' blocks and arms (-want +got):\n%s\n%s", diff, stderr)
			}
			if res.Summary.Completed != 200 || ab.Baseline.Summary.Completed != 200 {
				t.Errorf("completed: candidate %d, baseline %d; want 200 each", res.Summary.Completed, ab.Baseline.Summary.Completed)
			}
			verdicts := map[string]string{}
			for _, c := range res.Checks {
				verdicts[c.Kind+" "+c.Name] = c.Verdict
			}
			for _, k := range []string{"regression itl_p50", "assert itl close to the baseline arm"} {
				if verdicts[k] != results.Fail {
					t.Errorf("%s: %q, want fail (%v)", k, verdicts[k], verdicts)
				}
			}
			if c := res.Comparison; c == nil || c.Verdict != results.Fail || !strings.Contains(stdout, "the baseline arm") {
				t.Errorf("the comparison does not show the regression: %+v\n%s", c, stdout)
			}
			// Each arm's server configuration, and the one setting they
			// differ in, named beside the figures.
			if ab.Baseline.ServerConfig == nil || ab.Candidate.ServerConfig == nil || res.ServerConfig == nil || ab.Baseline.ServerConfig.Engine != "llmload-sim" {
				t.Errorf("the arms' server configurations: baseline %+v, candidate %+v", ab.Baseline.ServerConfig, ab.Candidate.ServerConfig)
			}
			if ch := res.Comparison.ServerConfigChanges; len(ch) != 1 || ch[0].Key != "step_overhead" || !strings.Contains(stdout, "Server configuration: candidate: step_overhead") {
				t.Errorf("configuration changes %+v, want step_overhead named\n%s", ch, stdout)
			}
			for _, r := range res.Comparison.Rows {
				if r.Key == "itl_p50" && r.Method != "blocks" {
					t.Errorf("itl_p50 compared by %q, want the per-block differences", r.Method)
				}
			}

			// The schedule per block and arm: intended offsets from the
			// block's first, and dataset places, equal on both arms.
			type key struct {
				arm   string
				block int
			}
			sched := map[key][][2]float64{}
			f, err := os.Open(strings.TrimSuffix(out, ".json") + ".requests.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<20)
			warm := map[string]int{}
			for sc.Scan() {
				var l results.RequestLine
				if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
					t.Fatal(err)
				}
				if l.Warmup {
					warm[l.Arm]++
					continue
				}
				k := key{l.Arm, l.Block}
				sched[k] = append(sched[k], [2]float64{l.IntendedMs, float64(l.DatasetIndex)})
			}
			if warm[results.ArmBaseline] != 4 || warm[results.ArmCandidate] != 4 {
				t.Errorf("warmup requests per arm %v, want 4 each", warm)
			}
			norm := func(rows [][2]float64) [][2]float64 {
				slices.SortFunc(rows, func(a, b [2]float64) int {
					if a[0] != b[0] {
						return int(a[0]*1e6 - b[0]*1e6)
					}
					return int(a[1] - b[1])
				})
				out := make([][2]float64, len(rows))
				for i, r := range rows {
					// Microseconds: the offsets are shifted by each block's
					// own time zero.
					out[i] = [2]float64{float64(int64((r[0] - rows[0][0]) * 1000)), r[1]}
				}
				return out
			}
			total := 0
			for b := 1; b <= ab.Blocks; b++ {
				base, cand := sched[key{results.ArmBaseline, b}], sched[key{results.ArmCandidate, b}]
				if len(base) == 0 {
					t.Fatalf("block %d has no baseline request", b)
				}
				total += len(base)
				if diff := cmp.Diff(norm(base), norm(cand)); diff != "" {
					t.Errorf("block %d: the arms' schedules differ (-baseline +candidate):\n%s", b, diff)
				}
			}
			if total != 200 {
				t.Errorf("the blocks hold %d requests per arm, want 200", total)
			}
		})
	}
}
