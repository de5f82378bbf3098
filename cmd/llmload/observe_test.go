package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmload/llmload/results"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// freeAddr returns a loopback address nothing listens on (just now).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// scrapeLive reads the live endpoint in the protobuf format (which carries
// native histograms); nil while it is not up.
func scrapeLive(url string) map[string]*dto.MetricFamily {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", string(expfmt.NewFormat(expfmt.TypeProtoDelim)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	dec := expfmt.NewDecoder(resp.Body, expfmt.ResponseFormat(resp.Header))
	out := map[string]*dto.MetricFamily{}
	for {
		mf := &dto.MetricFamily{}
		if err := dec.Decode(mf); err != nil {
			if err != io.EOF {
				return nil
			}
			return out
		}
		out[mf.GetName()] = mf
	}
}

func histCount(mf *dto.MetricFamily) uint64 {
	var n uint64
	for _, m := range mf.GetMetric() {
		n += m.GetHistogram().GetSampleCount()
	}
	return n
}

func counterSum(mf *dto.MetricFamily, label, value string) float64 {
	var n float64
	for _, m := range mf.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == label && l.GetValue() == value {
				n += m.GetCounter().GetValue()
			}
		}
	}
	return n
}

// TestLiveMetrics polls -metrics-addr while a short run against the
// simulator goes on: the TTFT histogram (native and classic) and the
// request counters move between polls, and carry the scenario's labels.
func TestLiveMetrics(t *testing.T) {
	addr := freeAddr(t)
	url := "http://" + addr + "/metrics"
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", "", "-metrics-addr", addr,
			"-var", "duration=2s", "testdata/server.hcl")
		done <- result{code, stdout, stderr}
	}()
	var counts []uint64
	var last map[string]*dto.MetricFamily
	var res result
poll:
	for {
		select {
		case res = <-done:
			break poll
		case <-time.After(300 * time.Millisecond):
		}
		mfs := scrapeLive(url)
		if mfs == nil || mfs["llmload_ttft_seconds"] == nil {
			continue
		}
		last = mfs
		counts = append(counts, histCount(mfs["llmload_ttft_seconds"]))
	}
	if res.code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	if len(counts) < 3 {
		t.Fatalf("polled the live endpoint %d times during the run, want at least 3 (counts %v)", len(counts), counts)
	}
	moved := 0
	for i := 1; i < len(counts); i++ {
		if counts[i] < counts[i-1] {
			t.Errorf("the TTFT count went down: %v", counts)
		}
		if counts[i] > counts[i-1] {
			moved++
		}
	}
	if moved < 2 {
		t.Errorf("the TTFT histogram moved between %d polls only: %v", moved, counts)
	}
	h := last["llmload_ttft_seconds"].GetMetric()[0]
	if h.GetHistogram().Schema == nil || len(h.GetHistogram().GetPositiveSpan()) == 0 {
		t.Errorf("llmload_ttft_seconds carries no native histogram: %v", h.GetHistogram())
	}
	if len(h.GetHistogram().GetBucket()) == 0 {
		t.Errorf("llmload_ttft_seconds carries no classic buckets")
	}
	labels := map[string]string{}
	for _, l := range h.GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	if labels["scenario"] != "server" || labels["stage"] != "1" {
		t.Errorf("labels %v, want scenario=server stage=1", labels)
	}
	if n := counterSum(last["llmload_requests_total"], "outcome", "completed"); n == 0 {
		t.Error("llmload_requests_total{outcome=completed} is 0")
	}
	for _, name := range []string{"llmload_itl_seconds", "llmload_tpot_seconds", "llmload_e2el_seconds", "llmload_queue_seconds",
		"llmload_output_tokens_total", "llmload_input_tokens_total", "llmload_requests_in_flight", "llmload_active_users",
		"llmload_configured_rate", "llmload_achieved_rate", "llmload_schedule_lag_seconds"} {
		if last[name] == nil {
			t.Errorf("the live endpoint lacks %s", name)
		}
	}
	if _, err := http.Get(url); err == nil {
		t.Error("the live endpoint still answers after the run")
	}
}

// TestServerChecks runs the simulator with its /metrics scraped: with the
// default KV cache nothing is preempted and every server check passes;
// with a small one the cache fills, the engine preempts, and
// server.preemptions.delta == 0 and server_kv_cache_usage_max fail. The
// server's series is in the result file and its block on the console.
func TestServerChecks(t *testing.T) {
	tests := []struct {
		kv     string
		code   int
		failed []string
	}{
		{"65536", exitOK, nil},
		{"2100", exitCheckFailed, []string{"server_kv_cache_usage_max", "no preemptions"}},
	}
	for _, tt := range tests {
		t.Run("kv_"+tt.kv, func(t *testing.T) {
			out := t.TempDir()
			code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out,
				"-var", "kv_cache_tokens="+tt.kv, "-var", "duration=1500ms", "testdata/server.hcl")
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			res, err := results.ReadResult(filepath.Join(out, "server.json"))
			if err != nil {
				t.Fatal(err)
			}
			var failed []string
			for _, c := range res.Checks {
				if !c.Passed {
					failed = append(failed, c.Name)
				}
			}
			if fmt.Sprint(failed) != fmt.Sprint(tt.failed) {
				t.Errorf("failed checks %v, want %v", failed, tt.failed)
			}
			sv := res.Summary.Server
			if sv == nil || sv.Scrapes < 3 || sv.Series == nil || len(sv.Series.Windows) == 0 {
				t.Fatalf("the result holds no server series: %+v", sv)
			}
			pre, _ := res.Summary.Value("server.preemptions", "delta")
			kv, _ := res.Summary.Value("server.kv_cache_usage", "max")
			if tt.code == exitOK && (pre != 0 || kv <= 0) || tt.code != exitOK && (pre == 0 || kv <= 0.75) {
				t.Errorf("preemptions %v, KV usage max %v", pre, kv)
			}
			gen, _ := res.Summary.Value("server.generation_tokens", "delta")
			if gen < float64(res.Summary.TotalOutputTokens) {
				t.Errorf("the server generated %v tokens by its counter, the client received %d", gen, res.Summary.TotalOutputTokens)
			}
			if !strings.Contains(stdout, "Server metrics: http://127.0.0.1:") || !strings.Contains(stdout, "TTFT mean: client") {
				t.Errorf("no server block on the console:\n%s", stdout)
			}
		})
	}
}

// TestServerScrapeFails names a metrics_url nothing answers: the run
// passes on its own figures, the failures are counted, and a check on a
// server figure is inconclusive (exit 3) saying no server metrics were
// scraped.
func TestServerScrapeFails(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out,
		"-var", "metrics_url=http://"+freeAddr(t)+"/metrics", "-var", "duration=500ms", "testdata/server.hcl")
	if code != exitNoResult {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitNoResult, stdout, stderr)
	}
	res, err := results.ReadResult(filepath.Join(out, "server.json"))
	if err != nil {
		t.Fatal(err)
	}
	if sv := res.Summary.Server; sv == nil || sv.Scrapes != 0 || sv.Failures == 0 {
		t.Fatalf("server %+v, want failures counted and no scrape", sv)
	}
	if res.Summary.Completed == 0 {
		t.Error("the run itself failed")
	}
	for _, c := range res.Checks {
		if c.Name == "error_rate" {
			continue // the default error budget: judged on the client's figures
		}
		if c.Verdict != "inconclusive" || !strings.Contains(c.Message, "no server metrics were scraped") {
			t.Errorf("check %s: verdict %s, message %q", c.Name, c.Verdict, c.Message)
		}
	}
}

// TestMergeServerChecks merges two runs that preempted, each against its
// own simulator (two servers, two metrics URLs): the merged preemptions
// are the sum of the parts', and the checks are judged again on them.
func TestMergeServerChecks(t *testing.T) {
	out := t.TempDir()
	var paths, partsFailed []string
	var want, wantKV float64
	for i := range 2 {
		dir := filepath.Join(out, fmt.Sprint(i))
		if code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", dir, "-var", "kv_cache_tokens=2100", "-var", "duration=1s", "testdata/server.hcl"); code != exitCheckFailed {
			t.Fatalf("run %d: exit %d\n%s\n%s", i, code, stdout, stderr)
		}
		paths = append(paths, filepath.Join(dir, "server.json"))
		res, err := results.ReadResult(paths[i])
		if err != nil {
			t.Fatal(err)
		}
		v, _ := res.Summary.Value("server.preemptions", "delta")
		want += v
		kv, _ := res.Summary.Value("server.kv_cache_usage", "max")
		wantKV = max(wantKV, kv)
		for _, c := range res.Checks {
			if !c.Passed && !slices.Contains(partsFailed, c.Name) {
				partsFailed = append(partsFailed, c.Name)
			}
		}
	}
	merged := filepath.Join(out, "merged.json")
	code, stdout, stderr := call(t, context.Background(), append([]string{"merge", "-quiet", "-o", merged}, paths...)...)
	if code != exitCheckFailed {
		t.Fatalf("merge: exit %d, want %d\n%s\n%s", code, exitCheckFailed, stdout, stderr)
	}
	res, err := results.ReadResult(merged)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := res.Summary.Value("server.preemptions", "delta"); got != want || got == 0 {
		t.Errorf("merged preemptions %v, want the parts' sum %v", got, want)
	}
	var failed []string
	for _, c := range res.Checks {
		if !c.Passed {
			failed = append(failed, c.Name)
		}
	}
	if got, _ := res.Summary.Value("server.kv_cache_usage", "max"); got != wantKV {
		t.Errorf("merged KV usage max %v, want the parts' max %v", got, wantKV)
	}
	// A peak and a sum fail in the merge exactly when they failed in a
	// part; here the workload makes both fail in each.
	slices.Sort(partsFailed)
	slices.Sort(failed)
	if fmt.Sprint(failed) != fmt.Sprint(partsFailed) || fmt.Sprint(failed) != "[no preemptions server_kv_cache_usage_max]" {
		t.Errorf("merged result's failed checks %v, the parts' %v", failed, partsFailed)
	}
}

// interruptAfterCompletions returns the arguments that serve a run's live
// metrics, and cancels ctx once the run has completed n requests: an
// interruption "part-way through" that no slow start can turn into an
// interruption before anything finished.
func interruptAfterCompletions(t *testing.T, cancel context.CancelFunc, n float64) []string {
	t.Helper()
	addr := freeAddr(t)
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if mfs := scrapeLive("http://" + addr + "/metrics"); mfs != nil && counterSum(mfs["llmload_requests_total"], "outcome", "completed") >= n {
				cancel()
				return
			}
		}
	}()
	return []string{"-metrics-addr", addr}
}
