package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmload/llmload/executor/executortest"
	"github.com/llmload/llmload/results"
)

// TestServerConfigEndToEnd: two runs against simulators that differ in
// one setting (step_overhead) record each simulator's configuration; compare
// names the changed setting in the console, in -format json and in
// Markdown; requiring the setting to match refuses the comparison (exit 2)
// and -force compares with a warning, in compare (by flag, and by the
// baseline scenario's require_same_server_config) and in a run against a
// baseline.
func TestServerConfigEndToEnd(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	for _, r := range []struct {
		out  string
		args []string
	}{{a, nil}, {b, []string{"-var", "step_overhead=21ms"}}} {
		args := append([]string{"run", "-quiet", "-scenario", "plain", "-out", r.out}, r.args...)
		if code, stdout, stderr := call(t, ctx, append(args, "testdata/serverconfig.hcl")...); code != exitOK {
			t.Fatalf("run %v: exit %d\n%s%s", r.args, code, stdout, stderr)
		}
	}
	res, err := results.ReadResult(b)
	if err != nil {
		t.Fatal(err)
	}
	if c := res.ServerConfig; c == nil || c.Engine != "llmload-sim" || c.Settings["step_overhead"] != "21ms" || c.Model != "tiny" || c.MaxModelLen == 0 {
		t.Fatalf("server_config %+v, want the simulator's with step_overhead 21ms", res.ServerConfig)
	}

	md := filepath.Join(dir, "compare.md")
	code, stdout, stderr := call(t, ctx, "compare", "-markdown", md, a, b)
	const change = "step_overhead 21ms (baseline 20ms)"
	if code == exitInvalid || !strings.Contains(stdout, "Server configuration: candidate: "+change) {
		t.Errorf("compare: exit %d, want the changed setting named\n%s%s", code, stdout, stderr)
	}
	if n := strings.Count(stdout, "Server configuration:"); n != 1 {
		t.Errorf("compare names %d configuration changes, want only step_overhead:\n%s", n, stdout)
	}
	if body, _ := os.ReadFile(md); !strings.Contains(string(body), "step\\_overhead 21ms (baseline 20ms)") {
		t.Errorf("the Markdown comparison does not name the change:\n%s", body)
	}
	code, stdout, _ = call(t, ctx, "compare", "-format", "json", a, b)
	var c results.Comparison
	if err := json.Unmarshal([]byte(stdout), &c); err != nil || code == exitInvalid {
		t.Fatalf("compare -format json: exit %d, %v\n%s", code, err, stdout)
	}
	want := []results.ConfigChange{{Key: "step_overhead", Base: "20ms", New: "21ms", BaseHas: true, NewHas: true}}
	if len(c.ServerConfigChanges) != 1 || c.ServerConfigChanges[0] != want[0] {
		t.Errorf("server_config_changes %+v, want %+v", c.ServerConfigChanges, want)
	}

	// Metric drift, in two result files: the baseline's server read KV
	// usage from vLLM's old name, the candidate's exposes no prefix-cache
	// counters, and the baseline's checks gated the hit rate.
	oldNames, noPrefix := filepath.Join(dir, "old-names.json"), filepath.Join(dir, "no-prefix.json")
	rewrite(t, a, oldNames, func(m map[string]any) {
		figures := m["summary"].(map[string]any)["server"].(map[string]any)["figures"].(map[string]any)
		figures["kv_cache_usage"].(map[string]any)["source"] = "vllm:gpu_cache_usage_perc"
		m["checks"] = append(m["checks"].([]any), map[string]any{"name": "hit rate", "kind": "assert", "verdict": "pass", "threshold": nil, "value": nil, "samples": 0,
			"refs": []any{map[string]any{"ref": "server.prefix_cache_hit_rate.mean", "value": 0}}})
	})
	rewrite(t, b, noPrefix, func(m map[string]any) {
		figures := m["summary"].(map[string]any)["server"].(map[string]any)["figures"].(map[string]any)
		delete(figures, "prefix_cache_hit_rate")
	})
	code, stdout, stderr = call(t, ctx, "compare", oldNames, noPrefix)
	for _, want := range []string{
		"Server metrics: server.kv_cache_usage is read from vllm:kv_cache_usage_perc on the candidate's server, from vllm:gpu_cache_usage_perc on the baseline's (a renamed metric)",
		"Server metrics: server.prefix_cache_hit_rate disappeared",
		"Inconclusive server.prefix_cache_hit_rate.mean: server.prefix_cache_hit_rate.mean, which a check gates, read nothing on one side",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("compare of drifted metrics lacks %q\n%s%s", want, stdout, stderr)
		}
	}
	if code != exitNoResult {
		t.Errorf("compare with a gated figure missing on one side: exit %d, want %d (inconclusive)", code, exitNoResult)
	}

	// Requiring the setting to match: refused, or forced with a warning.
	code, stdout, stderr = call(t, ctx, "compare", "-require-same-server-config", "max_num_seqs,step_overhead", a, b)
	if code != exitInvalid || !strings.Contains(stderr, "step_overhead: 20ms vs 21ms") || strings.Contains(stderr, "max_num_seqs:") || strings.Contains(stdout, "P50 TTFT") {
		t.Errorf("compare requiring step_overhead: exit %d, want %d naming it (and not max_num_seqs, equal)\n%s%s", code, exitInvalid, stdout, stderr)
	}
	code, stdout, stderr = call(t, ctx, "compare", "-force", "-require-same-server-config", "step_overhead", a, b)
	if code == exitInvalid || !strings.Contains(stderr, "WARNING: step_overhead: 20ms vs 21ms") ||
		!strings.Contains(stdout, "WARNING: -force: a required server setting differs: step_overhead: 20ms vs 21ms") || !strings.Contains(stdout, "P50 TTFT") {
		t.Errorf("compare -force: exit %d, want a comparison with a warning\n%s%s", code, stdout, stderr)
	}

	// The baseline scenario's require_same_server_config applies to
	// compare, as its tolerances do; and to a run against that baseline.
	strict := filepath.Join(dir, "strict.json")
	if code, stdout, stderr := call(t, ctx, "run", "-quiet", "-scenario", "strict", "-out", strict, "testdata/serverconfig.hcl"); code != exitOK {
		t.Fatalf("strict run: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := call(t, ctx, "compare", strict, b); code != exitInvalid || !strings.Contains(stderr, "require_same_server_config") {
		t.Errorf("compare against a baseline that requires step_overhead: exit %d, want %d\n%s%s", code, exitInvalid, stdout, stderr)
	}
	code, stdout, stderr = call(t, ctx, "run", "-quiet", "-scenario", "strict", "-baseline", a, "-var", "step_overhead=21ms", "-out", filepath.Join(dir, "refused.json"), "testdata/serverconfig.hcl")
	if code != exitInvalid || !strings.Contains(stderr, "step_overhead: 20ms vs 21ms") {
		t.Errorf("a run whose server differs from its baseline's in a required setting: exit %d, want %d\n%s%s", code, exitInvalid, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "refused.json")); err == nil {
		t.Error("a refused run wrote a result")
	}
	forced := filepath.Join(dir, "forced.json")
	code, stdout, stderr = call(t, ctx, "run", "-quiet", "-force", "-scenario", "strict", "-baseline", a, "-var", "step_overhead=21ms", "-out", forced, "testdata/serverconfig.hcl")
	if code != exitOK || !strings.Contains(stderr, "WARNING: step_overhead: 20ms vs 21ms") {
		t.Fatalf("forced run: exit %d, want 0 with a warning\n%s%s", code, stdout, stderr)
	}
	fr, err := results.ReadResult(forced)
	if err != nil {
		t.Fatal(err)
	}
	if fr.Comparison == nil || len(fr.Comparison.ForcedServerConfig) != 1 || len(fr.Comparison.ServerConfigChanges) != 1 {
		t.Errorf("the forced run's comparison %+v, want the ignored requirement and the change", fr.Comparison)
	}
}

// TestServerConfigNothingExposed: against a server that answers only its
// completions endpoint, every read is recorded as failed, the run goes on,
// and compare says once that the servers exposed no configuration and
// compares as before.
func TestServerConfigNothingExposed(t *testing.T) {
	ctx := context.Background()
	srv := executortest.New(executortest.Config{})
	defer srv.Close()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	for _, out := range []string{a, b} {
		if code, stdout, stderr := call(t, ctx, "run", "-quiet", "-scenario", "bare", "-var", "base_url="+srv.URL, "-out", out, "testdata/serverconfig.hcl"); code != exitOK {
			t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
		}
	}
	res, err := results.ReadResult(a)
	if err != nil {
		t.Fatal(err)
	}
	if c := res.ServerConfig; c == nil || c.Exposed() || len(c.Reads) == 0 {
		t.Fatalf("server_config %+v, want every read recorded and nothing exposed", res.ServerConfig)
	}
	for _, r := range res.ServerConfig.Reads {
		if r.Outcome != "http 404" {
			t.Errorf("read %s: %s, want http 404", r.Path, r.Outcome)
		}
	}
	// A tolerance the short runs can decide, so that the exit code is the
	// comparison's as before: a pass.
	code, stdout, stderr := call(t, ctx, "compare", "-max-regression", "error_rate=50%", a, b)
	if code != exitOK || strings.Count(stdout, "the servers exposed no configuration") != 1 || !strings.Contains(stdout, "P50 TTFT") {
		t.Errorf("compare: exit %d, want the comparison saying once that the servers exposed nothing\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := call(t, ctx, "compare", "-require-same-server-config", "max_num_seqs", a, b); code != exitInvalid || !strings.Contains(stderr, "max_num_seqs: neither server exposed it") {
		t.Errorf("requiring a setting neither server exposed: exit %d, want %d\n%s%s", code, exitInvalid, stdout, stderr)
	}
}

// An A/B run whose arms' servers differ in a required setting is refused
// before its load (-force is covered by the baseline run above). (testdata/ab.hcl with
// require_same_server_config added to its regression block.)
func TestServerConfigABRequired(t *testing.T) {
	src, err := os.ReadFile("testdata/ab.hcl")
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Replace(string(src), `itl_p50 = "50%"`, `itl_p50 = "50%"
    require_same_server_config = ["step_overhead"]`, 1)
	if body == string(src) {
		t.Fatal("testdata/ab.hcl has no itl_p50 tolerance to put the requirement beside")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "ab.hcl")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "ab.json")
	code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, path)
	if code != exitInvalid || !strings.Contains(stderr, "A/B: the two servers do not share the settings") || !strings.Contains(stderr, "step_overhead: ") {
		t.Errorf("exit %d, want %d naming step_overhead\n%s%s", code, exitInvalid, stdout, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused A/B run wrote a result")
	}
}
