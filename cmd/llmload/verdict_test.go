package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmload/llmload/executor/executortest"
	"github.com/llmload/llmload/results"
)

// runVerdict runs one scenario of testdata/verdict.hcl against srv and
// returns the exit code, the output and the result file.
func runVerdict(t *testing.T, srv *executortest.Server, scenario string, args ...string) (int, string, string, *results.Result) {
	t.Helper()
	out := t.TempDir()
	args = append([]string{"run", "-quiet", "-out", out, "-scenario", scenario, "-var", "base_url=" + srv.URL}, args...)
	code, stdout, stderr := call(t, context.Background(), append(args, "testdata/verdict.hcl")...)
	res, err := results.ReadResult(filepath.Join(out, scenario+".json"))
	if err != nil {
		t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	return code, stdout, stderr, res
}

func checkNamed(t *testing.T, res *results.Result, name string) results.Check {
	t.Helper()
	for _, c := range res.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %q in %+v", name, res.Checks)
	return results.Check{}
}

// TestFailuresFailTheRun: a server that dies after 8 of 20 requests fails
// a run whose sla names only a latency, through the default error budget.
func TestFailuresFailTheRun(t *testing.T) {
	srv := executortest.New(executortest.Config{TTFT: 5 * time.Millisecond, ITL: time.Millisecond, Vary: func(i int, c *executortest.Config) {
		if i >= 8 {
			c.Fault = executortest.Fault{Kind: executortest.Hangup}
		}
	}})
	defer srv.Close()
	code, stdout, stderr, res := runVerdict(t, srv, "failures")
	if code != exitCheckFailed {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitCheckFailed, stdout, stderr)
	}
	if res.Failed != 12 || res.Completed != 8 {
		t.Errorf("completed %d, failed %d; want 8 and 12", res.Completed, res.Failed)
	}
	c := checkNamed(t, res, "error_rate")
	if !c.Default || c.Verdict != results.Fail || c.Passed {
		t.Errorf("error_rate check %+v: want the default budget, failed", c)
	}
	if ttft := checkNamed(t, res, "ttft_mean"); ttft.Samples != 8 || ttft.Verdict != results.Pass {
		t.Errorf("ttft_mean rests on %d samples with verdict %s; want 8, pass", ttft.Samples, ttft.Verdict)
	}
	for _, want := range []string{"<= 1% (default)", "the 12 requests that failed are excluded from every latency figure"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, stdout)
		}
	}
}

// TestBufferedStreamsAreInconclusive: a proxy that holds every event and
// flushes them at once makes ITL 0 ms; the check must be inconclusive, not
// a pass.
func TestBufferedStreamsAreInconclusive(t *testing.T) {
	srv := executortest.New(executortest.Config{TTFT: 20 * time.Millisecond, ITL: 5 * time.Millisecond, Buffered: true})
	defer srv.Close()
	code, stdout, stderr, res := runVerdict(t, srv, "buffered")
	if code != exitNoResult {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitNoResult, stdout, stderr)
	}
	if c := checkNamed(t, res, "itl_mean"); c.Verdict != results.Inconclusive || c.Passed {
		t.Errorf("itl_mean %+v: want inconclusive", c)
	}
	if s := res.Summary; s.BufferedStreams != 20 || s.TokenStreams != 20 {
		t.Errorf("buffered %d of %d streams, want 20 of 20", s.BufferedStreams, s.TokenStreams)
	}
	for _, want := range []string{"20 of 20 responses carried no per-token timing", "ITL, TPOT and user TPS checks are inconclusive"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "no valid verdict") {
		t.Errorf("stderr does not say why the exit is 3:\n%s", stderr)
	}
	// Each request says so in the requests file.
	lines, err := os.ReadFile(strings.TrimSuffix(resPath(t, stderr), ".json") + ".requests.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(lines), `"buffered":true`); n != 20 {
		t.Errorf("%d requests marked buffered in the requests file, want 20", n)
	}
}

// resPath is the result file a run reported writing.
func resPath(t *testing.T, stderr string) string {
	t.Helper()
	for _, line := range strings.Split(stderr, "\n") {
		if p, ok := strings.CutPrefix(line, "llmload: wrote "); ok && strings.HasSuffix(p, ".json") {
			return p
		}
	}
	t.Fatalf("no result file in:\n%s", stderr)
	return ""
}

// TestTooFewSamples: a P99 on 20 requests is inconclusive (exit 3), unless
// the scenario allows inconclusive checks (exit 0).
func TestTooFewSamples(t *testing.T) {
	srv := executortest.New(executortest.Config{TTFT: 5 * time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	for _, tt := range []struct {
		allow string
		code  int
	}{{"false", exitNoResult}, {"true", exitOK}} {
		t.Run("allow_inconclusive="+tt.allow, func(t *testing.T) {
			code, stdout, stderr, res := runVerdict(t, srv, "few", "-var", "allow_inconclusive="+tt.allow)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			c := checkNamed(t, res, "ttft_p99")
			if c.Verdict != results.Inconclusive || c.Samples != 20 || c.Lower == nil || c.Upper == nil || *c.Lower > *c.Value || *c.Upper < *c.Value {
				t.Errorf("ttft_p99 %+v: want inconclusive on 20 samples with an interval around the value", c)
			}
			if !strings.Contains(stdout, "needs at least 1000") {
				t.Errorf("the report does not say why:\n%s", stdout)
			}
		})
	}
}

// TestInvalidRun: a run whose client broke a validity bound exits 3 with
// the reason, whatever its checks say.
func TestInvalidRun(t *testing.T) {
	shippedValidity(t)
	srv := executortest.New(executortest.Config{TTFT: 5 * time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	code, stdout, stderr, res := runVerdict(t, srv, "invalid")
	if code != exitNoResult {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitNoResult, stdout, stderr)
	}
	if res.Validity == nil || res.Validity.Valid || res.Summary.ClientCPU <= 0 {
		t.Errorf("validity %+v with client CPU %g: want invalid on a measured CPU", res.Validity, res.Summary.ClientCPU)
	}
	if !strings.Contains(stderr, "invalid run (client_cpu") || !strings.Contains(stdout, "Run validity: INVALID (client_cpu)") {
		t.Errorf("the reason is missing:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	if c := checkNamed(t, res, "ttft_mean"); c.Verdict != results.Pass {
		t.Errorf("ttft_mean %s: the test means a run whose checks pass", c.Verdict)
	}
}

// TestMergedVerdict: merged results are judged as a run is; a P90 on 60
// requests is inconclusive in each shard and conclusive once merged.
func TestMergedVerdict(t *testing.T) {
	srv := executortest.New(executortest.Config{TTFT: 5 * time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	var paths []string
	for range 2 {
		out := t.TempDir()
		code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, "-scenario", "shard", "-var", "base_url="+srv.URL, "testdata/verdict.hcl")
		if code != exitNoResult {
			t.Fatalf("shard: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitNoResult, stdout, stderr)
		}
		paths = append(paths, filepath.Join(out, "shard.json"))
	}
	merged := filepath.Join(t.TempDir(), "merged.json")
	code, stdout, stderr := call(t, context.Background(), append([]string{"merge", "-o", merged}, paths...)...)
	if code != exitOK {
		t.Fatalf("merge: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitOK, stdout, stderr)
	}
	res, err := results.ReadResult(merged)
	if err != nil {
		t.Fatal(err)
	}
	if c := checkNamed(t, res, "ttft_p90"); c.Verdict != results.Pass || c.Samples != 120 || c.Lower == nil {
		t.Errorf("merged ttft_p90 %+v: want a pass on 120 samples with an interval", c)
	}
	if res.Validity == nil || !res.Validity.Valid {
		t.Errorf("merged validity %+v", res.Validity)
	}
}
