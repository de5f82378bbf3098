package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/runner"
	"github.com/llmload/llmload/sim"
)

// TestCapacitySearchVirtualTime runs the capacity search against the
// simulator's engine in virtual time (no sleeping, deterministic). With
// closed-loop users and no think time, every user has a running sequence
// while users <= max_num_seqs (the KV cache holds them all), and TTFT is
// one engine step; one user more waits for a whole request to finish, so
// P99 TTFT jumps. The capacity under a P99 TTFT bound is therefore
// max_num_seqs, and output throughput stops rising there: the knee.
func TestCapacitySearchVirtualTime(t *testing.T) {
	const prompt, output = 32, 64
	for _, seqs := range []int{16, 8, 5} {
		t.Run(fmt.Sprintf("max_num_seqs=%d", seqs), func(t *testing.T) {
			p, err := sim.LookupProfile("tiny")
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Set("max_num_seqs", fmt.Sprint(seqs)); err != nil {
				t.Fatal(err)
			}
			if kv := seqs * (prompt + output); kv > p.KVCacheTokens {
				t.Fatalf("the KV cache (%d tokens) cannot hold %d sequences of %d tokens: the derivation does not apply", p.KVCacheTokens, seqs, prompt+output)
			}
			work := []sim.Work{{PromptTokens: prompt, MaxTokens: output, IgnoreEOS: true}}
			search := runner.NewSearcher(1, 64, 0.05, true, 0)
			var steps []results.Step
			for {
				v, ok := search.Next()
				if !ok {
					break
				}
				users := int(v)
				res := sim.SimulateClosedLoop(p, work, users, 40*users, 1)
				// The bound: ten full-batch steps, far above one step and far
				// under a whole request (64 steps).
				passed := res.TTFTP99.Seconds()*1000 <= 10*fullStepMs(p, seqs, prompt+output)
				st := results.Step{Step: len(steps) + 1, Value: v, SLAChecked: true,
					Summary: &metrics.Summary{Completed: res.Completed, OutputThroughput: res.OutputTokPerSec}}
				if !passed {
					st.SLAFailed = []string{"ttft_p99"}
				}
				steps = append(steps, st)
				search.Record(v, st.Step, passed)
			}
			got := search.Result()
			if got.Outcome != results.SearchConverged || got.Low != float64(seqs) || got.High != float64(seqs+1) {
				t.Errorf("search: %+v; want converged in [%d, %d)", got, seqs, seqs+1)
			}
			if c := results.CapacityOfSteps(steps); c == nil || c.Value != float64(seqs) {
				t.Errorf("capacity %+v, want %d users", c, seqs)
			}
			if k := results.KneeOf(steps, 0.1); k == nil || k.Value != float64(seqs) {
				t.Errorf("knee %+v, want %d users", k, seqs)
			}
		})
	}
}

// fullStepMs is an upper bound on one step of n sequences of ctx tokens
// each, one of them prefilling, from the profile's cost model
// (overhead + sqrt(mem² + compute²) <= overhead + mem + compute), in
// milliseconds.
func fullStepMs(p sim.Profile, n, ctx int) float64 {
	d := p.StepOverhead + p.WeightsReadTime + p.KVReadPerToken*time.Duration(n*ctx) +
		p.DecodeComputePerSeq*time.Duration(n) + p.PrefillComputePerToken*time.Duration(ctx)
	return d.Seconds() * 1000
}

// runScenarioFile runs one scenario of a file into a temporary directory.
func runScenarioFile(t *testing.T, path, name string, wants ...string) string {
	t.Helper()
	dir := t.TempDir()
	code, out, errOut := call(t, context.Background(), "run", path, "-scenario", name, "-quiet", "-out", dir)
	// Every load's checks are judged; the run passes when some load met
	// them (its capacity check) and its asserts hold.
	if code != exitOK {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitOK, out, errOut)
	}
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	return dir
}

// TestRunSweep drives run() through a short users sweep on sim://tiny with
// four sequences a step, each step 16 requests long. Real time on a shared
// machine is noisy, so the bounds are loose: 16 users (12 of them waiting
// for a whole request each time) never meet the TTFT bound, and throughput
// flattens at 4 users (8 with slack).
func TestRunSweep(t *testing.T) {
	dir := runScenarioFile(t, "testdata/sweep.hcl", "sweep", "Sweep over users", "Knee:", "Capacity:")

	sweep, err := results.ReadResult(filepath.Join(dir, "sweep.json"))
	if err != nil {
		t.Fatal(err)
	}
	sw := sweep.Sweep
	if sw == nil || sw.Mode != results.ModeSweep || len(sw.Steps) != 4 {
		t.Fatalf("sweep: %+v", sw)
	}
	for i, st := range sw.Steps {
		if st.Value != []float64{1, 4, 8, 16}[i] || st.Summary == nil || st.Summary.Completed == 0 || !st.SLAChecked {
			t.Errorf("step %d: value %g, summary %+v, checked %v", i+1, st.Value, st.Summary, st.SLAChecked)
		}
	}
	if k := sw.Knee; k == nil || k.Value > 8 {
		t.Errorf("knee %+v, want one at 8 users or fewer", k)
	}
	if c := sw.Capacity; c != nil && c.Value >= 16 {
		t.Errorf("capacity %+v: 16 users cannot meet the TTFT bound", c)
	}
	if got, want := sweep.Summary.Capacity, sw.Capacity; (got == nil) != (want == nil) || (got != nil && *got != want.Value) {
		t.Errorf("summary.capacity %v, sweep capacity %+v", got, want)
	}
	// Steps run one after another: the run's peak concurrency is the
	// largest step's, never a sum of steps that did not overlap.
	peak := 0
	for _, st := range sw.Steps {
		peak = max(peak, st.Summary.PeakConcurrency)
	}
	if sweep.MaxConcurrentRequests != peak || peak > 16 {
		t.Errorf("max_concurrent_requests %d, want the largest step's peak %d (at most 16 users)", sweep.MaxConcurrentRequests, peak)
	}
	// The requests file holds every step's requests with their step as
	// stage, distinct ids and offsets from the first step's time zero.
	data, err := os.ReadFile(filepath.Join(dir, "sweep.requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	ids := map[int64]bool{}
	stages := map[int]int{}
	first, last := map[int]float64{}, map[int]float64{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var l results.RequestLine
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatal(err)
		}
		if ids[l.ID] {
			t.Fatalf("id %d twice", l.ID)
		}
		ids[l.ID] = true
		stages[l.Stage]++
		if f, ok := first[l.Stage]; !ok || l.SentMs < f {
			first[l.Stage] = l.SentMs
		}
		last[l.Stage] = max(last[l.Stage], l.SentMs)
	}
	if len(ids) != sweep.Completed+sweep.Failed || len(stages) != 4 {
		t.Errorf("%d lines in %d stages; the result has %d requests in 4 steps", len(ids), len(stages), sweep.Completed+sweep.Failed)
	}
	// Offsets run on from the first step's time zero: each step's
	// requests were sent after the previous step's.
	for st := 2; st <= 4; st++ {
		if first[st] < last[st-1] {
			t.Errorf("step %d's first request sent at %.0f ms, before step %d's last at %.0f ms", st, first[st], st-1, last[st-1])
		}
	}
}

// TestRunCapacitySearch drives run() through a short capacity search on
// the same simulator: 4 users meet the TTFT bound, 16 never do.
func TestRunCapacitySearch(t *testing.T) {
	dir := runScenarioFile(t, "testdata/sweep.hcl", "capacity", "Capacity search over users", "Capacity:", "Search:")
	search, err := results.ReadResult(filepath.Join(dir, "capacity.json"))
	if err != nil {
		t.Fatal(err)
	}
	sr := search.Sweep
	if sr == nil || sr.Search == nil || sr.Mode != results.ModeCapacity {
		t.Fatalf("search: %+v", sr)
	}
	if sr.Search.Outcome != results.SearchConverged || sr.Search.High >= 16 || sr.Search.High != sr.Search.Low+1 {
		t.Errorf("search: %+v; want a one-user bracket under 16 users", sr.Search)
	}
	if sr.Capacity == nil || sr.Capacity.Value != sr.Search.Low || *search.Summary.Capacity != sr.Search.Low {
		t.Errorf("capacity %+v, summary %v, bracket low %g", sr.Capacity, search.Summary.Capacity, sr.Search.Low)
	}
}

// TestRunRateSweepSchedule checks that the whole run of a sweep over the
// open loop's rate reports an open loop's schedule, at the rate its steps
// offered over the run, not a closed loop's (the scenario's open_loop
// block sets no rate of its own: the sweep varies it).
func TestRunRateSweepSchedule(t *testing.T) {
	dir := runScenarioFile(t, "testdata/sweep.hcl", "rates", "Sweep over rate", "Schedule: configured ")
	res, err := results.ReadResult(filepath.Join(dir, "rates.json"))
	if err != nil {
		t.Fatal(err)
	}
	// Between the steps' rates: the pauses between steps offered none.
	if r := res.Schedule.ConfiguredRate; !(r > 0 && r < 40) {
		t.Errorf("schedule's configured rate %v, want one in (0, 40) req/s", r)
	}
}

// TestReportCommand runs a scenario with -html, then renders its result in
// every text format and overlays it on itself as baseline and candidate.
func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "run.html")
	code, out, errOut := call(t, context.Background(), "run", "testdata/tiny.hcl", "-quiet", "-out", dir, "-html", page)
	if code != exitOK {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errOut)
	}
	if data, err := os.ReadFile(page); err != nil || !strings.Contains(string(data), "<svg") {
		t.Fatalf("run -html wrote no report with plots: %v", err)
	}
	result := filepath.Join(dir, "tiny.json")
	other := filepath.Join(t.TempDir(), "tiny.json")
	data, err := os.ReadFile(result)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, data, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{result}, []string{"Serving Benchmark Result", "Checks:"}},
		{[]string{result, "-format", "markdown"}, []string{"| figure | tiny |"}},
		{[]string{result, "-format", "csv"}, []string{"result,table,row,column,value", "tiny,summary,completed requests,value,40"}},
		{[]string{result, "-format", "json"}, []string{`"scenario": "tiny"`}},
		{[]string{result, other, "-format", "markdown", "-html", filepath.Join(dir, "pair.html")}, []string{"vs"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[1:], " "), func(t *testing.T) {
			code, out, errOut := call(t, context.Background(), append([]string{"report"}, tt.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d\n%s", code, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
	if code, _, errOut := call(t, context.Background(), "report", result, "-format", "yaml"); code != exitInvalid || !strings.Contains(errOut, "unknown format") {
		t.Errorf("-format yaml: exit %d, %s", code, errOut)
	}
}

// TestRunRepeatedCapacitySearch drives run() through a capacity search
// whose probes run twice: each step records its two runs, pools their
// counts, and the capacity carries the runs' spread of the checked figure.
func TestRunRepeatedCapacitySearch(t *testing.T) {
	dir := runScenarioFile(t, "testdata/sweep.hcl", "repeats", "Capacity search over users", "Capacity:", "the capacity held in ")
	res, err := results.ReadResult(filepath.Join(dir, "repeats.json"))
	if err != nil {
		t.Fatal(err)
	}
	sr := res.Sweep
	if sr == nil || sr.Search == nil || len(sr.Steps) == 0 {
		t.Fatalf("search: %+v", sr)
	}
	for _, st := range sr.Steps {
		if len(st.Runs) != 2 {
			t.Errorf("step %d: %d runs, want 2", st.Step, len(st.Runs))
			continue
		}
		completed, failed, passed := 0, 0, 0
		for _, r := range st.Runs {
			completed += r.Summary.Completed
			failed += r.Summary.Failed
			if r.Passed {
				passed++
			}
		}
		if st.Summary.Completed != completed || st.Summary.Failed != failed || st.RunsPassed != passed {
			t.Errorf("step %d: pooled %d completed, %d failed, %d runs passed; the runs' sum %d, %d, %d",
				st.Step, st.Summary.Completed, st.Summary.Failed, st.RunsPassed, completed, failed, passed)
		}
		for _, key := range []string{"output_throughput", "ttft_p50", "ttft_p99", "itl_p50", "itl_p99", "error_rate", "ttft_p90"} {
			if sp := st.SpreadOf(key); sp == nil || len(sp.Values) != 2 {
				t.Errorf("step %d: spread of %s: %+v", st.Step, key, sp)
			}
		}
	}
	c := sr.Capacity
	if c == nil {
		t.Fatalf("no capacity: %+v", sr.Search)
	}
	// The checked figures: the sla's ttft_p90 and the default error budget.
	keys := map[string]bool{}
	for _, sp := range c.Spread {
		keys[sp.Key] = sp.Min != nil && sp.Max != nil && len(sp.Values) == 2
	}
	if c.Runs != 2 || c.RunsPassed > 2 || !keys["ttft_p90"] || !keys["error_rate"] || len(keys) != 2 {
		t.Errorf("capacity %+v: want 2 runs and the spread of ttft_p90 and error_rate", c)
	}
}
