package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/sim"
)

// asMain makes the test binary behave as llmload itself: the shard test
// starts it as separate processes, so each shard runs main() with its own
// clock, signals and exit code, as the pods of a Job do.
const asMain = "LLMLOAD_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	// In this package's tests, and in the processes they start as llmload,
	// runs are judged by machine-independent validity bounds (see
	// testValidity); the validity gate's own tests restore the shipped ones.
	validityBounds = testValidity
	if os.Getenv(asMain) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// startSim serves the tiny simulator on loopback for several processes.
func startSim(t *testing.T) string {
	t.Helper()
	p, err := sim.LookupProfile("tiny")
	if err != nil {
		t.Fatal(err)
	}
	p.Model = "tiny"
	s, err := sim.Listen("127.0.0.1:0", p, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s.URL
}

// sentKey is what makes a request the same request in two runs: when the
// schedule meant it to leave and which prompt it carried.
type sentKey struct {
	Intended float64
	Index    int
}

func measuredKeys(lines []results.RequestLine) []sentKey {
	var keys []sentKey
	for _, l := range lines {
		if !l.Warmup {
			keys = append(keys, sentKey{l.IntendedMs, l.DatasetIndex})
		}
	}
	slices.SortFunc(keys, func(a, b sentKey) int {
		if a.Intended != b.Intended {
			return cmpFloat(a.Intended, b.Intended)
		}
		return a.Index - b.Index
	})
	return keys
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestShardsEqualOneRun runs testdata/shards.hcl once whole and then as 4
// shard processes with a common start against one simulator, and checks
// that the shards together are the whole run: the same intended times with
// the same prompts; that the merge adds their counts and tokens and its
// percentiles are those of one recorder fed every shard's requests; and
// that the merged verdict and exit code follow the checks (the scenario
// asserts the whole run's request count), with a missing shard making the
// result invalid unless -allow-partial.
func TestShardsEqualOneRun(t *testing.T) {
	url := startSim(t)
	fixture := "testdata/shards.hcl"
	whole := t.TempDir()
	if code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", whole, "-var", "base_url="+url, fixture); code != exitOK {
		t.Fatalf("whole run exit %d:\n%s%s", code, stdout, stderr)
	}
	want := measuredKeys(requestLines(t, filepath.Join(whole, "shards.requests.jsonl")))

	const n = 4
	out := t.TempDir()
	start := time.Now().Add(2 * time.Second).UTC().Truncate(time.Millisecond)
	cmds := make([]*exec.Cmd, n)
	errs := make([]bytes.Buffer, n)
	for i := range n {
		cmd := exec.Command(os.Args[0], "run", "-quiet", "-out", out, "-var", "base_url="+url,
			"-shard", fmt.Sprintf("%d/%d", i, n), "-start-at", start.Format(time.RFC3339Nano), "-clock-probes", "1", fixture)
		cmd.Env = append(os.Environ(), asMain+"=1")
		cmd.Stderr = &errs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i] = cmd
	}
	for i, cmd := range cmds {
		// Each shard alone fails the whole-run assert, and still exits 0:
		// the verdict is the merge's.
		if err := cmd.Wait(); err != nil {
			t.Fatalf("shard %d: %v\n%s", i, err, errs[i].String())
		}
	}

	var got []sentKey
	var paths []string
	var parts []*results.Result
	ids := map[string]bool{}
	rec := metrics.NewRecorder(metrics.Options{})
	ns := func(ms float64) time.Duration { return time.Duration(math.Round(ms * 1e6)) }
	for i := range n {
		dir := filepath.Join(out, fmt.Sprintf("shard-%d", i))
		paths = append(paths, filepath.Join(dir, "shards.json"))
		res, err := results.ReadResult(paths[i])
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, res)
		if res.Shard == nil || *res.Shard != (results.Shard{Index: i, Count: n}) || res.RunID != parts[0].RunID || res.Fingerprint != parts[0].Fingerprint {
			t.Errorf("shard %d: shard %+v, run %s, fingerprint %.12s; want %d/%d and shard 0's run %s and fingerprint %.12s", i, res.Shard, res.RunID, res.Fingerprint, i, n, parts[0].RunID, parts[0].Fingerprint)
		}
		if sy := res.Sync; sy == nil || !sy.StartAt.Equal(start) || !res.TimeZero.Equal(start) || sy.TargetClock == nil || sy.TargetClock.Probes != 1 {
			t.Errorf("shard %d: time zero %v, sync %+v; want the common start %v and one clock probe", i, res.TimeZero, res.Sync, start)
		} else if c := sy.TargetClock; math.Abs(c.OffsetMs) > c.UncertaintyMs+1 {
			// Target and shard share this machine's clock: the true offset,
			// 0, must lie inside the measured interval.
			t.Errorf("shard %d: target clock offset %s excludes 0", i, c)
		}
		lines := requestLines(t, filepath.Join(dir, "shards.requests.jsonl"))
		warm := 0
		for _, l := range lines {
			if ids[l.RequestID] {
				t.Errorf("request id %s in two shards", l.RequestID)
			}
			ids[l.RequestID] = true
			if l.Warmup {
				warm++
				continue
			}
			if l.TTFTMs == nil {
				continue
			}
			r := &metrics.Request{TTFT: ns(*l.TTFTMs), E2E: ns(*l.E2ELMs), OutputTokens: l.OutputTokens, FinishReason: l.FinishReason, IgnoreEOS: l.IgnoreEOS}
			for _, g := range l.ITLMs {
				r.ITL = append(r.ITL, ns(g))
			}
			rec.Add(r)
		}
		if warm != 3 {
			t.Errorf("shard %d sent %d warmup requests, want 3 (warmup is per shard)", i, warm)
		}
		got = append(got, measuredKeys(lines)...)
	}
	slices.SortFunc(got, func(a, b sentKey) int {
		if a.Intended != b.Intended {
			return cmpFloat(a.Intended, b.Intended)
		}
		return a.Index - b.Index
	})
	if len(want) != 70 {
		t.Fatalf("the whole run sent %d requests, want 70", len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the shards' (intended time, prompt) differ from the whole run's (-whole +shards):\n%s", diff)
	}

	merged := filepath.Join(t.TempDir(), "merged.json")
	code, stdout, stderr := call(t, context.Background(), append([]string{"merge", "-o", merged}, paths...)...)
	if code != exitOK || !strings.Contains(stdout, "PASS   the whole run") || !strings.Contains(stdout, "shard 3/4") {
		t.Fatalf("merge exit %d, want %d with the whole-run assert passing and a per-shard table:\n%s%s", code, exitOK, stdout, stderr)
	}
	res, err := results.ReadResult(merged)
	if err != nil {
		t.Fatal(err)
	}
	var completed, in, outTok int
	for _, p := range parts {
		completed += p.Completed
		in += p.TotalInputTokens
		outTok += p.TotalOutputTokens
	}
	if res.Completed != completed || res.Completed != 70 || res.TotalInputTokens != in || res.TotalOutputTokens != outTok || res.ShardCount != n || len(res.Parts) != n {
		t.Errorf("merged completed %d, input %d, output %d, %d shards in %d parts; want %d (70), %d, %d, %d in %d", res.Completed, res.TotalInputTokens, res.TotalOutputTokens, res.ShardCount, len(res.Parts), completed, in, outTok, n, n)
	}
	one := rec.Summary()
	for _, m := range []string{"ttft", "itl", "tpot", "e2el"} {
		w, g := one.LatencyOf(m), res.Summary.LatencyOf(m)
		if w.Count != g.Count || w.P50 != g.P50 || w.P99 != g.P99 || w.Max != g.Max {
			t.Errorf("%s: merged count %d p50 %v p99 %v max %v; one recorder %d %v %v %v", m, g.Count, g.P50, g.P99, g.Max, w.Count, w.P50, w.P99, w.Max)
		}
	}
	// The shards drew one schedule from one time zero: merged, its rate is
	// the whole run's.
	wholeRes, err := results.ReadResult(filepath.Join(whole, "shards.json"))
	if err != nil {
		t.Fatal(err)
	}
	if w, g := wholeRes.Summary.ScheduledRate, res.Summary.ScheduledRate; math.Abs(w-g) > 1e-6*w {
		t.Errorf("merged scheduled rate %v, the whole run's %v", g, w)
	}

	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a missing shard", paths[:3], exitNoResult, "1 of 4 shards of run " + parts[0].RunID + " missing (3): no valid result"},
		{"allow partial", append([]string{"-allow-partial"}, paths[:3]...), exitCheckFailed, "judged on the shards present"},
		{"a shard twice", append(paths[:1:1], paths...), exitInvalid, "both hold shard 0 of run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := call(t, context.Background(), append([]string{"merge", "-quiet"}, tt.args...)...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Errorf("merge exit %d, want %d with %q:\n%s%s", code, tt.code, tt.want, stdout, stderr)
			}
		})
	}
}

// TestShardOptions: -shard and the Job's environment, and what a run
// refuses before it sends anything.
func TestShardOptions(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	tests := []struct {
		name         string
		o            shardOptions
		env          func(string) string
		index, count int
		runID, err   string
	}{
		{"flag", shardOptions{spec: "2/4"}, env(), 2, 4, "", ""},
		{"job", shardOptions{}, env(envJobIndex, "3", envShards, "8", envRunID, "r1"), 3, 8, "r1", ""},
		{"flag beats job", shardOptions{spec: "1/2", runID: "r2"}, env(envJobIndex, "3", envShards, "8", envRunID, "r1"), 1, 2, "r2", ""},
		{"job index alone", shardOptions{}, env(envJobIndex, "3"), 0, 0, "", ""},
		{"shards without index", shardOptions{}, env(envShards, "4"), 0, 0, "", "JOB_COMPLETION_INDEX is not set"},
		{"index past count", shardOptions{spec: "4/4"}, env(), 0, 0, "", "want i/N with 0 <= i < N"},
		{"bad start", shardOptions{spec: "0/2", startAt: "tomorrow"}, env(), 0, 0, "", "RFC 3339"},
		{"barrier and start", shardOptions{spec: "0/2", startAt: "2026-12-01T10:00:00Z", barrier: "http://x:1"}, env(), 0, 0, "", "not both"},
		{"barrier unsharded", shardOptions{barrier: "http://x:1"}, env(), 0, 0, "", "needs -shard"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.o
			err := o.resolve(tt.env)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || o.index != tt.index || o.count != tt.count || o.runID != tt.runID {
				t.Errorf("shard %d/%d run %q, err %v; want %d/%d %q", o.index, o.count, o.runID, err, tt.index, tt.count, tt.runID)
			}
		})
	}

	url := startSim(t)
	past := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
	src, err := os.ReadFile("testdata/shards.hcl")
	if err != nil {
		t.Fatal(err)
	}
	two := filepath.Join(t.TempDir(), "two.hcl")
	second := "\nscenario \"again\" {\n  target = target.sim\n  dataset = dataset.random\n  open_loop {\n    rate = 10\n  }\n}\n"
	if err := os.WriteFile(two, append(src, second...), 0o644); err != nil {
		t.Fatal(err)
	}
	runs := []struct {
		name string
		args []string
		want string
	}{
		{"no shared run id", []string{"-shard", "1/2"}, "needs a run id every shard shares"},
		{"start passed", []string{"-shard", "1/2", "-start-at", past}, "has passed"},
		{"more shards than arrivals", []string{"-shard", "70/71", "-run-id", "x"}, "shards.hcl:32:3: error: More shards than requests"},
		{"several scenarios", []string{"-shard", "0/2", "-run-id", "x", two}, "apply to one scenario"},
	}
	// A past -start-at is refused before anything reaches the target.
	t.Run("start passed, nothing sent", func(t *testing.T) {
		var hits atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
		defer srv.Close()
		code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", "", "-var", "base_url="+srv.URL,
			"-shard", "1/2", "-run-id", "x", "-start-at", past, "testdata/shards.hcl")
		if code != exitInvalid || !strings.Contains(stderr, "has passed") || hits.Load() != 0 {
			t.Errorf("exit %d, want %d with \"has passed\" and no request (the target saw %d):\n%s%s", code, exitInvalid, hits.Load(), stdout, stderr)
		}
	})
	for _, tt := range runs {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"run", "-quiet", "-out", "", "-var", "base_url=" + url}, tt.args...)
			if !strings.HasSuffix(args[len(args)-1], ".hcl") {
				args = append(args, "testdata/shards.hcl")
			}
			code, stdout, stderr := call(t, context.Background(), args...)
			if code != exitInvalid || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, want %d with %q:\n%s%s", code, exitInvalid, tt.want, stdout, stderr)
			}
		})
	}
}
