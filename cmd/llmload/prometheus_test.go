package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmload/llmload/sim"
)

// TestPrometheusDashboard runs Debian's Prometheus against a live run and
// queries every expression of the Grafana dashboard, as Grafana would:
// each must find data. Two Prometheus servers scrape the same run, one
// with native histograms on (it then keeps only the native ones of
// llmload's latency histograms) and one without (classic buckets), so
// the panels must read both. Skipped without prometheus, except in CI
// (CI=true), which installs it (.ci/run).
func TestPrometheusDashboard(t *testing.T) {
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("prometheus is missing in CI: .ci/run installs it (apt-get install -y prometheus)")
		}
		t.Skip("prometheus is not installed (apt-get install prometheus); CI runs this test")
	}
	exprs := dashboardExprs(t)
	p, err := sim.LookupProfile("tiny")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sim.Listen("127.0.0.1:0", p, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	live := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		call(t, ctx, "run", "-quiet", "-out", "", "-metrics-addr", live, "-var", "base_url="+srv.URL, "testdata/prometheus.hcl")
	}()
	defer func() { cancel(); <-done }()

	simHost := strings.TrimPrefix(srv.URL, "http://")
	proms := map[string]string{}
	for _, mode := range []string{"classic", "native"} {
		dir := t.TempDir()
		cfg := fmt.Sprintf("global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: llmload\n    static_configs:\n      - targets: [%q]\n  - job_name: vllm\n    static_configs:\n      - targets: [%q]\n", live, simHost)
		if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		addr := freeAddr(t)
		args := []string{"--config.file=" + filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path=" + filepath.Join(dir, "data"), "--web.listen-address=" + addr}
		if mode == "native" {
			args = append(args, "--enable-feature=native-histograms")
		}
		cmd := exec.Command(bin, args...)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
		proms[mode] = "http://" + addr
	}

	// Every expression, on both, until each has data (the rate windows
	// need a few scrapes) or three minutes pass.
	missing := map[string][]string{}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		missing = map[string][]string{}
		for mode, base := range proms {
			for _, e := range exprs {
				if !hasData(base, e) {
					missing[mode] = append(missing[mode], e)
				}
			}
		}
		if len(missing) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(2 * time.Second)
	}
	for mode, es := range missing {
		for _, e := range es {
			t.Errorf("%s histograms: no data for %s", mode, e)
		}
	}
}

// dashboardExprs are the dashboard's panel expressions and the series its
// variable reads, with Grafana's variables filled in.
func dashboardExprs(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("../../examples/grafana/llmload.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatal(err)
	}
	fill := strings.NewReplacer(`"$scenario"`, `".*"`, "$__rate_interval", "15s")
	exprs := []string{"llmload_requests_total"} // label_values(llmload_requests_total, scenario)
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			exprs = append(exprs, fill.Replace(tg.Expr))
		}
	}
	return exprs
}

// hasData says whether an instant query finds at least one sample that is
// a number.
func hasData(base, expr string) bool {
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(expr))
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var r struct {
		Status string `json:"status"`
		Data   struct {
			Result []struct {
				Value []any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if json.NewDecoder(resp.Body).Decode(&r) != nil || r.Status != "success" {
		return false
	}
	for _, s := range r.Data.Result {
		if len(s.Value) == 2 {
			if v, err := strconv.ParseFloat(fmt.Sprint(s.Value[1]), 64); err == nil && !math.IsNaN(v) {
				return true
			}
		}
	}
	return false
}
