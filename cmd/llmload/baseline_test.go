package main

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/llmload/llmload/results"
)

// TestBaselineEndToEnd gates a slower simulator against a baseline run of
// the normal one: the first run has no baseline (baseline_optional: its
// checks are skipped) and saves one; the same configuration passes against
// it; a candidate whose every decode step costs 5 ms more fails its
// regression checks and its baseline assert, in the run, in JUnit, in
// Markdown, in GitHub annotations and in llmload compare.
func TestBaselineEndToEnd(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	baseDir := filepath.Join(dir, "baselines")
	missing := filepath.Join(dir, "none.json")

	// 1. No baseline yet: the baseline checks are skipped, the run passes
	// and saves its result as the baseline.
	code, stdout, stderr := call(t, ctx, "run", "-quiet", "-out", filepath.Join(dir, "first"), "-baseline", missing, "-save-baseline", baseDir, "testdata/baseline.hcl")
	if code != exitOK {
		t.Fatalf("first run: exit %d, want 0\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "SKIPPED") || !strings.Contains(stderr, "no baseline at") {
		t.Errorf("first run: the baseline checks were not reported as skipped:\n%s%s", stdout, stderr)
	}
	basePath := filepath.Join(baseDir, "upgrade.json")
	base, err := results.ReadResult(basePath)
	if err != nil {
		t.Fatalf("-save-baseline wrote no result: %v", err)
	}
	if base.Workload == nil || base.Workload.Fingerprint == "" {
		t.Fatalf("the result records no workload")
	}
	if !strings.Contains(base.ServerVersion, "llmload-sim tiny (/version)") {
		t.Errorf("server version %q, want the simulator's /version", base.ServerVersion)
	}

	// 2. The same configuration against it: no regression.
	code, stdout, stderr = call(t, ctx, "run", "-quiet", "-out", filepath.Join(dir, "same"), "-baseline", basePath, "testdata/baseline.hcl")
	if code != exitOK {
		t.Fatalf("same configuration: exit %d, want 0\n%s%s", code, stdout, stderr)
	}

	// 2b. A baseline made by another llmload version (a make build binary
	// against a go build one): compared, with a warning; a result format
	// this llmload does not read is refused.
	otherVersion := filepath.Join(dir, "other-version.json")
	rewrite(t, basePath, otherVersion, func(m map[string]any) {
		m["tool_version"], m["fingerprint"] = "v0.9.0-other", "another"
		w := m["workload"].(map[string]any)
		w["tool_version"], w["fingerprint"] = "v0.9.0-other", "another"
	})
	code, stdout, stderr = call(t, ctx, "run", "-quiet", "-out", filepath.Join(dir, "vs-other"), "-baseline", otherVersion, "testdata/baseline.hcl")
	if code != exitOK || !strings.Contains(stderr, "different llmload versions (v0.9.0-other vs ") {
		t.Fatalf("a baseline of another llmload version: exit %d, want 0 with a warning\n%s%s", code, stdout, stderr)
	}
	code, _, stderr = call(t, ctx, "compare", otherVersion, filepath.Join(dir, "same", "upgrade.json"))
	if code == exitInvalid || !strings.Contains(stderr, "warning: compare: the two runs were made by different llmload versions") {
		t.Errorf("compare across llmload versions: exit %d, want a comparison with a warning\n%s", code, stderr)
	}
	newer := filepath.Join(dir, "newer-format.json")
	rewrite(t, basePath, newer, func(m map[string]any) { m["result_format"] = results.FormatVersion + 1 })
	for _, args := range [][]string{
		{"compare", newer, filepath.Join(dir, "same", "upgrade.json")},
		{"run", "-quiet", "-out", filepath.Join(dir, "vs-newer"), "-baseline", newer, "testdata/baseline.hcl"},
	} {
		if code, _, stderr := call(t, ctx, args...); code != exitInvalid || !strings.Contains(stderr, "result format 2") {
			t.Errorf("%s with a result of a newer format: exit %d, want %d naming the format\n%s", args[0], code, exitInvalid, stderr)
		}
	}

	// 3. The slower candidate, in GitHub Actions.
	summary := filepath.Join(dir, "step-summary.md")
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	junit, md := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "report.md")
	slow := filepath.Join(dir, "slow.json")
	code, stdout, stderr = call(t, ctx, "run", "-quiet", "-out", slow, "-baseline", basePath, "-junit", junit, "-markdown", md,
		"-var", "step_overhead=80ms", "testdata/baseline.hcl")
	if code != exitCheckFailed {
		t.Fatalf("slower candidate: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	res, err := results.ReadResult(slow)
	if err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]string{}
	for _, c := range res.Checks {
		verdicts[c.Kind+" "+c.Name] = c.Verdict
	}
	for _, k := range []string{"regression itl_p50", "regression tpot_p50", "assert itl close to the baseline"} {
		if verdicts[k] != results.Fail {
			t.Errorf("%s: verdict %q, want fail (checks %v)", k, verdicts[k], verdicts)
		}
	}
	if res.Comparison == nil || res.Comparison.Verdict != results.Fail {
		t.Errorf("the result's comparison with the baseline is %+v, want a failed one", res.Comparison)
	}
	// The assert's message names both values and the change.
	if !regexp.MustCompile(`metrics\.itl\.p50 = [0-9.]+ is \+[0-9.]+% on baseline\.itl\.p50 = [0-9.]+`).MatchString(stderr) {
		t.Errorf("the failed assert does not name both values and the change:\n%s", stderr)
	}
	// GitHub annotations at the lines of the failing checks.
	src, _ := os.ReadFile("testdata/baseline.hcl")
	lineOf := func(s string) int {
		for i, l := range strings.Split(string(src), "\n") {
			if strings.Contains(l, s) {
				return i + 1
			}
		}
		t.Fatalf("%q not in the scenario", s)
		return 0
	}
	for _, want := range []string{
		"::error file=testdata/baseline.hcl,line=" + itoa(lineOf(`itl_p50  = "50%"`)) + ",title=llmload upgrade%3A regression itl_p50::",
		"::error file=testdata/baseline.hcl,line=" + itoa(lineOf(`condition     = metrics.itl.p50`)) + ",title=llmload upgrade%3A assert itl close to the baseline::",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no annotation %q in:\n%s", want, stdout)
		}
	}
	// JUnit, parsed back.
	var suites struct {
		XMLName xml.Name `xml:"testsuites"`
		Suites  []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Time     string `xml:"time,attr"`
			Cases    []struct {
				Name      string `xml:"name,attr"`
				Classname string `xml:"classname,attr"`
				Time      string `xml:"time,attr"`
				Failure   *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(b, &suites); err != nil {
		t.Fatalf("JUnit does not parse: %v\n%s", err, b)
	}
	if len(suites.Suites) != 1 || suites.Suites[0].Name != "upgrade" || suites.Suites[0].Failures != 3 {
		t.Fatalf("JUnit: want one suite \"upgrade\" with 3 failures:\n%s", b)
	}
	for _, c := range suites.Suites[0].Cases {
		if c.Name == "itl_p50" && (c.Failure == nil || !strings.Contains(c.Failure.Message, "baseline")) {
			t.Errorf("JUnit: itl_p50's failure does not name the baseline: %+v", c.Failure)
		}
	}
	// Markdown in the file and appended to the step summary.
	for _, p := range []string{md, summary} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "### Against the baseline") || !strings.Contains(string(b), "| ❌ FAIL | `itl_p50` | regression |") {
			t.Errorf("%s lacks the checks and the baseline deltas:\n%s", p, b)
		}
	}

	// 4. llmload compare: the slower candidate fails, the same run passes,
	// another workload is refused unless forced.
	t.Setenv("GITHUB_ACTIONS", "")
	t.Setenv("GITHUB_STEP_SUMMARY", "")
	code, stdout, stderr = call(t, ctx, "compare", "-max-regression", "itl_p50=50%,ttft_p50=1000%", basePath, slow)
	if code != exitCheckFailed || !regexp.MustCompile(`P50 ITL \(ms\) .* FAIL \(tolerance 50%\)`).MatchString(stdout) {
		t.Errorf("compare base slow: exit %d, want 1 and a failed ITL row\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = call(t, ctx, "compare", "-max-regression", "itl_p50=50%", basePath, basePath)
	if code != exitOK {
		t.Errorf("compare base base: exit %d, want 0\n%s%s", code, stdout, stderr)
	}
	other := filepath.Join(dir, "other.json")
	if code, out, errOut := call(t, ctx, "run", "-quiet", "-out", other, "-var", "seed=4", "-baseline", missing, "testdata/baseline.hcl"); code != exitOK {
		t.Fatalf("another seed: exit %d\n%s%s", code, out, errOut)
	}
	code, _, stderr = call(t, ctx, "compare", "-max-regression", "itl_p50=50%", basePath, other)
	if code != exitInvalid || !strings.Contains(stderr, "different workloads") || !strings.Contains(stderr, "seed") {
		t.Errorf("compare across workloads: exit %d, want 2 naming the seed\n%s", code, stderr)
	}
	code, stdout, stderr = call(t, ctx, "compare", "-force", "-format", "json", "-max-regression", "itl_p50=50%", basePath, other)
	var c results.Comparison
	if err := json.Unmarshal([]byte(stdout), &c); err != nil || len(c.Forced) == 0 || !strings.Contains(stderr, "WARNING: -force") {
		t.Errorf("compare -force: exit %d, %v, forced %v\n%s", code, err, c.Forced, stderr)
	}
	// The run refuses a baseline of another workload too.
	if code, _, errOut := call(t, ctx, "run", "-quiet", "-out", filepath.Join(dir, "x"), "-var", "seed=4", "-baseline", basePath, "testdata/baseline.hcl"); code != exitInvalid {
		t.Errorf("a baseline of another workload: exit %d, want 2\n%s", code, errOut)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestMergeKeepsBaseline merges two halves of a run judged against a
// baseline: the merged result re-evaluates the regression checks from the
// resolved config's baseline path and rules.
func TestMergeKeepsBaseline(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	base := filepath.Join(dir, "base.json")
	if code, out, errOut := call(t, ctx, "run", "-quiet", "-out", base, "-baseline", filepath.Join(dir, "none.json"), "testdata/baseline.hcl"); code != exitOK {
		t.Fatalf("baseline run: exit %d\n%s%s", code, out, errOut)
	}
	var parts []string
	for i := range 2 {
		p := filepath.Join(dir, "slow-"+strconv.Itoa(i)+".json")
		code, out, errOut := call(t, ctx, "run", "-quiet", "-out", p, "-baseline", base, "-var", "step_overhead=80ms", "testdata/baseline.hcl")
		if code != exitCheckFailed {
			t.Fatalf("slow run %d: exit %d, want 1\n%s%s", i, code, out, errOut)
		}
		parts = append(parts, p)
	}
	merged := filepath.Join(dir, "merged.json")
	code, out, errOut := call(t, ctx, append([]string{"merge", "-quiet", "-o", merged}, parts...)...)
	if code != exitCheckFailed {
		t.Fatalf("merge: exit %d, want 1\n%s%s", code, out, errOut)
	}
	res, err := results.ReadResult(merged)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range res.Checks {
		if c.Kind == "regression" && c.Name == "itl_p50" {
			found = true
			if c.Verdict != results.Fail || c.Samples != res.Summary.ITL.Count {
				t.Errorf("merged itl_p50: verdict %s on %d samples, want fail on the merged %d", c.Verdict, c.Samples, res.Summary.ITL.Count)
			}
		}
	}
	if !found || res.Comparison == nil {
		t.Errorf("the merged result lost its regression checks or comparison: %+v", res.Checks)
	}
}

// rewrite copies a result file from src to dst, changed by edit.
func rewrite(t *testing.T, src, dst string, edit func(map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
