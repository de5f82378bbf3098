package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmload/llmload/ops"
	"github.com/llmload/llmload/ops/opstest"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/sim"
)

// TestOps drives `llmload ops` on a stored sweep result: it writes the
// five files and says what it derived; a result without a capacity or an
// interrupted one is refused (exit 2) and writes nothing.
func TestOps(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, edit func(*results.Result)) string {
		r := opstest.Sweep(results.VaryUsers, 0)
		r.Summary.Completed = 400
		edit(r)
		path := filepath.Join(dir, name)
		if err := results.WriteResultFile(path, r); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := write("sweep.json", func(*results.Result) {})
	out := filepath.Join(dir, "ops")
	code, stdout, stderr := call(t, context.Background(), "ops", good, "-dir", out, "-headroom", "0.5")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"Capacity: 30 users, in [30, 40); lower bound 30 users.", "vllm:num_requests_running, 27.000 per replica", "autoscaler target 50% (13.500)"} {
		if !strings.Contains(strings.ReplaceAll(stdout, "\n ", " "), want) {
			t.Errorf("stdout does not say %q:\n%s", want, stdout)
		}
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{ops.HPAFile, ops.KEDAFile, ops.RulesFile, ops.TestsFile, ops.AdapterFile, ops.GrafanaFile}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("files %v, want %v", names, want)
	}
	hpa, err := os.ReadFile(filepath.Join(out, ops.HPAFile))
	if err != nil || !strings.Contains(string(hpa), "averageValue: 13500m") {
		t.Errorf("hpa.yaml does not target 13.5 (50%% of 27):\n%s", hpa)
	}

	// A share of 0 is refused, not taken for the default.
	if code, _, stderr := call(t, context.Background(), "ops", good, "-dir", filepath.Join(dir, "zero"), "-headroom", "0"); code != exitInvalid || !strings.Contains(stderr, "-headroom 0") {
		t.Errorf("-headroom 0: exit %d, stderr %q; want %d naming it", code, stderr, exitInvalid)
	}
	// A Go duration Prometheus cannot read is written as it can ("1.5m":
	// "90s"); one not in whole seconds is refused.
	if code, _, stderr := call(t, context.Background(), "ops", good, "-dir", filepath.Join(dir, "odd"), "-for", "1.5m"); code != exitOK {
		t.Errorf("-for 1.5m: exit %d, stderr %q", code, stderr)
	} else if b, _ := os.ReadFile(filepath.Join(dir, "odd", ops.RulesFile)); !strings.Contains(string(b), "for: 90s") {
		t.Errorf("-for 1.5m: the rules do not say for: 90s:\n%s", b)
	}
	if code, _, stderr := call(t, context.Background(), "ops", good, "-dir", filepath.Join(dir, "odd2"), "-for", "1.5s"); code != exitInvalid || !strings.Contains(stderr, "whole seconds") {
		t.Errorf("-for 1.5s: exit %d, stderr %q; want %d saying whole seconds", code, stderr, exitInvalid)
	}
	// An earlier run's autoscaler files are removed when this result
	// gives none (no engine gauge: no signal, the TTFT page alone).
	noSignal := write("no-signal.json", func(r *results.Result) {
		for _, g := range []string{"requests_running", "queue", "kv_cache_usage"} {
			delete(r.Summary.Server.Figures, g)
		}
	})
	code, stdout, _ = call(t, context.Background(), "ops", noSignal, "-dir", out)
	if _, err := os.Stat(filepath.Join(out, ops.HPAFile)); code != exitOK || err == nil || !strings.Contains(stdout, "removed "+filepath.Join(out, ops.HPAFile)) {
		t.Errorf("a result without a signal into the same folder: exit %d, hpa.yaml still there (%v):\n%s", code, err == nil, stdout)
	}
	for _, tt := range []struct {
		name string
		edit func(*results.Result)
		want string
	}{
		{"no-capacity.json", func(r *results.Result) { r.Sweep.Capacity = nil }, "no load met every sla check"},
		{"interrupted.json", func(r *results.Result) { r.Interrupted = true }, "interrupted"},
	} {
		path := write(tt.name, tt.edit)
		out := filepath.Join(dir, "none")
		code, _, stderr := call(t, context.Background(), "ops", path, "-dir", out)
		if code != exitInvalid || !strings.Contains(stderr, tt.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d saying %q", tt.name, code, stderr, exitInvalid, tt.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: wrote %s", tt.name, out)
		}
	}
}

// TestOpsAlertsInPrometheus measures a simulator's capacity with a users
// sweep and writes the alert rules from it in the same command (`run
// -ops`), checks them with promtool, and loads them
// into Debian's Prometheus scraping the same simulator: under a load below
// the capacity (2 users) no alert is pending or firing; above it (8 users)
// the warning on running requests and the TTFT page fire, read back from
// Prometheus' HTTP API, and every panel of the capacity dashboard finds
// data. Skipped without prometheus, except in CI (CI=true),
// which installs it (.ci/run).
func TestOpsAlertsInPrometheus(t *testing.T) {
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("prometheus is missing in CI: .ci/run installs it (apt-get install -y prometheus)")
		}
		t.Skip("prometheus is not installed (apt-get install prometheus); CI runs this test")
	}
	p, err := sim.LookupProfile("tiny")
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"max_num_seqs": "4", "step_overhead": "10ms"} {
		if err := p.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := sim.Listen("127.0.0.1:0", p, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()

	// The capacity: 4 users (the scenario says why on any machine), and
	// the files from it, in one command.
	rules := filepath.Join(dir, "ops")
	code, stdout, stderr := call(t, context.Background(), "run", "-out", filepath.Join(dir, "sweep"), "-ops", rules,
		"-var", "base_url="+srv.URL, "testdata/ops-sweep.hcl")
	if code != exitOK {
		t.Fatalf("the sweep: exit %d\n%s%s", code, stdout, stderr)
	}
	t.Logf("run -ops:\n%s", stderr)
	if !strings.Contains(stderr, "Capacity: 4 users") {
		t.Fatalf("the sweep did not find 4 users:\n%s", stderr)
	}
	// Prometheus' own checks of them.
	if promtool, err := exec.LookPath("promtool"); err == nil {
		for _, args := range [][]string{{"check", "rules", ops.RulesFile}, {"test", "rules", ops.TestsFile}} {
			cmd := exec.Command(promtool, args...)
			cmd.Dir = rules
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("promtool %v: %v\n%s", args, err, out)
			}
		}
	} else {
		t.Errorf("promtool is missing beside prometheus: %v", err)
	}

	// For Prometheus, the same result with short windows, so that the
	// alerts fire within the test.
	fast := filepath.Join(dir, "ops-fast")
	if code, stdout, stderr := call(t, context.Background(), "ops", filepath.Join(dir, "sweep", "ops.json"), "-dir", fast, "-for", "5s", "-window", "10s"); code != exitOK {
		t.Fatalf("llmload ops: exit %d\n%s%s", code, stdout, stderr)
	}
	rules = fast

	cfg := fmt.Sprintf("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nrule_files: [%q]\nscrape_configs:\n  - job_name: vllm\n    static_configs:\n      - targets: [%q]\n",
		filepath.Join(rules, ops.RulesFile), strings.TrimPrefix(srv.URL, "http://"))
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+addr)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	prom := "http://" + addr

	load := func(users int) func() {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			call(t, ctx, "run", "-quiet", "-out", "", "-var", "base_url="+srv.URL, "-var", fmt.Sprintf("users=%d", users), "testdata/ops-load.hcl")
		}()
		return func() { cancel(); <-done }
	}

	// Below the capacity: the rules are loaded and evaluated for longer
	// than their window and "for" together, and nothing fires.
	stop := load(2)
	deadline := time.Now().Add(time.Minute)
	for !rulesEvaluated(prom, 2) && time.Now().Before(deadline) {
		time.Sleep(time.Second)
	}
	if !rulesEvaluated(prom, 2) {
		t.Fatalf("Prometheus did not load and evaluate the rules:\n%s", out.String())
	}
	time.Sleep(20 * time.Second)
	if a := alerts(t, prom); len(a) > 0 {
		t.Errorf("with 2 users (under the capacity of 4) alerts are active: %v", a)
	}
	stop()

	// Above it: both fire.
	stop = load(8)
	defer stop()
	want := []string{ops.WarnAlert + " firing", "LLMServerSLATTFTP99 firing"}
	var got []string
	start := time.Now()
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
		prev := got
		if got = alerts(t, prom); !slices.Equal(got, prev) {
			t.Logf("%4.0fs: %v", time.Since(start).Seconds(), got)
		}
		if slices.Equal(got, want) {
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("with 8 users (over the capacity of 4) the alerts are %v, want %v", got, want)
	}
	// Every panel of the capacity dashboard finds data.
	data, err := os.ReadFile(filepath.Join(rules, ops.GrafanaFile))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Targets []struct{ Expr string } `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatal(err)
	}
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			if !hasData(prom, tg.Expr) {
				t.Errorf("the dashboard's %s finds no data", tg.Expr)
			}
		}
	}
}

// alerts are Prometheus' active alerts as "name state", sorted.
func alerts(t *testing.T, prom string) []string {
	t.Helper()
	resp, err := http.Get(prom + "/api/v1/alerts")
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var r struct {
		Data struct {
			Alerts []struct {
				Labels map[string]string `json:"labels"`
				State  string            `json:"state"`
			} `json:"alerts"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return nil
	}
	var out []string
	for _, a := range r.Data.Alerts {
		out = append(out, a.Labels["alertname"]+" "+a.State)
	}
	slices.Sort(out)
	return out
}

// rulesEvaluated says whether Prometheus has loaded n alerting rules and
// evaluated them, each with health "ok".
func rulesEvaluated(prom string, n int) bool {
	resp, err := http.Get(prom + "/api/v1/rules?type=alert")
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var r struct {
		Data struct {
			Groups []struct {
				Rules []struct {
					Health string `json:"health"`
				} `json:"rules"`
			} `json:"groups"`
		} `json:"data"`
	}
	if json.NewDecoder(resp.Body).Decode(&r) != nil {
		return false
	}
	ok := 0
	for _, g := range r.Data.Groups {
		for _, rl := range g.Rules {
			if rl.Health == "ok" {
				ok++
			}
		}
	}
	return ok >= n
}
