package results_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
)

func inf() float64 { return math.Inf(1) }

// writeFiles writes a run's result and its requests file as run does.
func writeFiles(t *testing.T, dir string, run *results.Run, reqs []*metrics.Request) []string {
	t.Helper()
	rw, err := results.CreateRequests(dir, run.Scenario, len(run.Stages) > 0)
	if err != nil {
		t.Fatal(err)
	}
	rw.Start(run.TimeZero)
	for _, r := range reqs {
		rw.Result(r)
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	p, err := results.WriteResult(dir, result(t, run))
	if err != nil {
		t.Fatal(err)
	}
	return []string{p, rw.Path()}
}

func TestWriteFilesGolden(t *testing.T) {
	for _, tt := range runs {
		t.Run(tt.Name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			run := tt.Run()
			paths := writeFiles(t, dir, run, tt.Requests())
			want := []string{filepath.Join(dir, run.Scenario+".json"), filepath.Join(dir, run.Scenario+".requests.jsonl")}
			if diff := cmp.Diff(want, paths); diff != "" {
				t.Fatalf("paths (-want +got):\n%s", diff)
			}
			for i, suffix := range []string{".json.golden", ".requests.jsonl.golden"} {
				got, err := os.ReadFile(paths[i])
				if err != nil {
					t.Fatal(err)
				}
				golden(t, tt.Name+suffix, got)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 2 {
				t.Errorf("%s holds %d entries, want the 2 result files (temporary files left behind?)", dir, len(entries))
			}
		})
	}
}

func TestReadResultRoundTrip(t *testing.T) {
	for _, tt := range runs {
		t.Run(tt.Name, func(t *testing.T) { checkRoundTrip(t, tt.Run(), tt.Requests()) })
	}
}

// checkRoundTrip writes a run's result, reads it back and compares (report
// checks that both render the same).
func checkRoundTrip(t *testing.T, run *results.Run, reqs []*metrics.Request) {
	dir := t.TempDir()
	paths := writeFiles(t, dir, run, reqs)
	got, err := results.ReadResult(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	want, err := results.NewResult(run)
	if err != nil {
		t.Fatal(err)
	}
	// The raw config and dataset come back indented: compare them decoded.
	for _, raw := range []*json.RawMessage{&got.Config, &got.Dataset, &want.Config, &want.Dataset} {
		var buf bytes.Buffer
		if err := json.Compact(&buf, *raw); err != nil {
			t.Fatal(err)
		}
		*raw = buf.Bytes()
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(results.Extras{}, "Simulator")); diff != "" {
		t.Errorf("ReadResult (-want +got):\n%s", diff)
	}
	// The histograms read back merge exactly.
	merged, err := metrics.MergeLatency(got.Summary.TTFT, got.Summary.TTFT)
	if err != nil {
		t.Fatal(err)
	}
	if merged.Count != 2*run.Overall.TTFT.Count || merged.P99 != run.Overall.TTFT.P99 {
		t.Errorf("merged TTFT count %d p99 %v; want %d, %v", merged.Count, merged.P99, 2*run.Overall.TTFT.Count, run.Overall.TTFT.P99)
	}
}

// The chosen percentiles add pNN keys for the chosen metrics only, read
// from the histograms, in vLLM's order; the keys always written stay.
func TestResultChosenPercentiles(t *testing.T) {
	run := simKnobsRun()
	res := result(t, run)
	s := run.Overall
	for _, m := range []string{"ttft", "tpot", "itl", "e2el"} {
		for _, k := range []string{"p50_", "p90_", "p95_", "p99_", "p99.9_"} {
			if _, ok := res.VLLMLatencies[k+m+"_ms"]; !ok {
				t.Errorf("%s%s_ms missing", k, m)
			}
		}
	}
	for _, tc := range []struct {
		key string
		l   metrics.Latency
		p   float64
	}{{"p75_ttft_ms", s.TTFT, 75}, {"p99.99_ttft_ms", s.TTFT, 99.99}, {"p75_e2el_ms", s.E2EL, 75}, {"p99.99_e2el_ms", s.E2EL, 99.99}} {
		want, err := tc.l.Percentile(tc.p)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := res.VLLMLatencies[tc.key]; !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", tc.key, got, ok, want)
		}
	}
	for _, k := range []string{"p75_itl_ms", "p75_tpot_ms", "p99.99_itl_ms"} {
		if _, ok := res.VLLMLatencies[k]; ok {
			t.Errorf("%s written for a metric the run did not choose", k)
		}
	}
	keys := results.OrderedLatencyKeys(res.VLLMLatencies)
	wantTTFT := []string{"mean_ttft_ms", "median_ttft_ms", "std_ttft_ms", "p50_ttft_ms", "p75_ttft_ms", "p90_ttft_ms", "p95_ttft_ms", "p99_ttft_ms", "p99.9_ttft_ms", "p99.99_ttft_ms"}
	if diff := cmp.Diff(wantTTFT, keys[:len(wantTTFT)]); diff != "" {
		t.Errorf("key order (-want +got):\n%s", diff)
	}
}

// Merged results keep the chosen percentiles, and the per-request arrays
// of parts that all have them, in the parts' order.
func TestMergeKeepsKnobs(t *testing.T) {
	a, b := result(t, simKnobsRun()), result(t, simKnobsRun())
	b.RunID = "run-5"
	m, err := results.MergeResults([]*results.Result{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a.Percentiles, m.Percentiles); diff != "" {
		t.Errorf("percentiles (-want +got):\n%s", diff)
	}
	if _, ok := m.VLLMLatencies["p75_e2el_ms"]; !ok {
		t.Error("merged result lacks p75_e2el_ms")
	}
	if m.Detailed == nil || len(m.TTFTs) != 2*len(a.TTFTs) || m.GeneratedTexts[len(a.TTFTs)] != a.GeneratedTexts[0] {
		t.Errorf("merged arrays: %+v", m.Detailed)
	}
	c := result(t, openLoopRun())
	c.Scenario, c.Fingerprint, c.RunID = a.Scenario, a.Fingerprint, "run-6"
	if m, err := results.MergeResults([]*results.Result{a, c}); err != nil || m.Detailed != nil {
		t.Errorf("merge with a part without arrays: %v, arrays %v; want none", err, m.Detailed)
	}
}

func TestResultVLLMKeys(t *testing.T) {
	run := openLoopRun()
	res, err := results.NewResult(run)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	s := run.Overall
	want := map[string]any{
		"date": "20261129-150405", "backend": "openai-chat", "label": "chat-smoke", "model_id": "llama-3-8b",
		"tokenizer_id": "llama3", "num_prompts": float64(s.Completed + s.Failed),
		"request_rate": 10.0, "burstiness": 1.0, "max_concurrency": 3.0,
		"duration": 1.5, "completed": 5.0, "failed": 2.0,
		"total_input_tokens": float64(s.TotalInputTokens), "total_output_tokens": float64(s.TotalOutputTokens),
		"request_throughput": s.RequestThroughput, "request_goodput": s.RequestGoodput,
		"output_throughput": s.OutputThroughput, "total_token_throughput": s.TotalTokenThroughput,
		"mean_ttft_ms": s.TTFT.Mean, "median_ttft_ms": s.TTFT.P50, "std_ttft_ms": s.TTFT.Stddev,
		"p99_ttft_ms": s.TTFT.P99, "p99.9_ttft_ms": s.TTFT.P999, "p90_ttft_ms": s.TTFT.P90,
		"mean_tpot_ms": s.TPOT.Mean, "p99_tpot_ms": s.TPOT.P99,
		"median_itl_ms": s.ITL.P50, "p95_itl_ms": s.ITL.P95,
		"std_e2el_ms": s.E2EL.Stddev, "p50_e2el_ms": s.E2EL.P50,
	}
	for k, v := range want {
		if !cmp.Equal(v, got[k]) {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	// vLLM's keys come first, in its order.
	if !bytes.HasPrefix(b, []byte(`{"date":"20261129-150405","backend":"openai-chat","label":"chat-smoke","model_id"`)) {
		t.Errorf("result does not start with vLLM's keys: %.80s", b)
	}
}

func TestRateJSON(t *testing.T) {
	tests := []struct {
		rate results.Rate
		json string
	}{{results.Rate(inf()), `"inf"`}, {0, "null"}, {2.5, "2.5"}}
	for _, tt := range tests {
		b, err := json.Marshal(tt.rate)
		if err != nil || string(b) != tt.json {
			t.Errorf("Marshal(%v) = %s, %v; want %s", tt.rate, b, err, tt.json)
		}
		var back results.Rate
		if err := json.Unmarshal(b, &back); err != nil || back != tt.rate {
			t.Errorf("Unmarshal(%s) = %v, %v; want %v", b, back, err, tt.rate)
		}
	}
	var r results.Rate
	if err := json.Unmarshal([]byte(`"fast"`), &r); err == nil {
		t.Error(`Unmarshal("fast") succeeded, want an error`)
	}
}

// TestAPIKeyNeverWritten: Run has no field for the key, and a resolved
// scenario that holds one in a json:"-" field does not leak it into the
// result files (report checks the console).
func TestAPIKeyNeverWritten(t *testing.T) {
	run := openLoopRun()
	if run.Config.(secretConfig).Target.APIKey != secret {
		t.Fatal("fixture lost its secret")
	}
	dir := t.TempDir()
	paths := writeFiles(t, dir, run, openLoopRequests())
	outputs := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		outputs[p] = b
	}
	for name, b := range outputs {
		if bytes.Contains(b, []byte(secret)) {
			t.Errorf("%s contains the API key", name)
		}
	}
	// The rest of the config is there, so the check above is meaningful.
	if !bytes.Contains(outputs[paths[0]], []byte(`"url": "http://127.0.0.1:8000"`)) {
		t.Errorf("%s lacks the resolved config", paths[0])
	}
}

func TestRequestLines(t *testing.T) {
	run := openLoopRun()
	dir := t.TempDir()
	reqs := openLoopRequests()
	paths := writeFiles(t, dir, run, reqs)
	data, err := os.ReadFile(paths[1])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != len(reqs) {
		t.Fatalf("%d lines, want %d", len(lines), len(reqs))
	}
	var got []results.RequestLine
	for i, l := range lines {
		var rl results.RequestLine
		dec := json.NewDecoder(strings.NewReader(l))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rl); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		got = append(got, rl)
	}
	ttft, e2e := 220.0, 327.0
	want := results.RequestLine{
		ID: 2, DatasetIndex: 2, RequestID: "req-c",
		SentAt:     zero.Add(104 * msec),
		IntendedMs: 100, DispatchedMs: 103, SentMs: 104, EndMs: 431, QueueMs: 4, LagMs: 3,
		TTFTMs: &ttft, ITLMs: []float64{22, 25, 60}, E2ELMs: &e2e,
		PromptTokens: 22, PromptSource: "usage", DatasetPrompt: 20, OutputTokens: 4, OutputSource: "usage", OutputEvents: 4,
		MaxTokens: 64, FinishReason: "stop",
	}
	if diff := cmp.Diff(want, got[2]); diff != "" {
		t.Errorf("line 3 (-want +got):\n%s", diff)
	}
	if got[6].TTFTMs != nil || got[6].Error != metrics.ErrHTTPStatus || got[6].Status != 503 {
		t.Errorf("failed request line = %+v; want null ttft, http_status, 503", got[6])
	}
	if !got[4].Truncated || !got[0].Warmup {
		t.Errorf("truncated=%v warmup=%v; want both true", got[4].Truncated, got[0].Warmup)
	}
}

func TestWriteFilesErrors(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"", "../x", "a/b", ".."} {
		run := openLoopRun()
		run.Scenario = name
		if _, err := results.WriteResult(dir, result(t, run)); err == nil {
			t.Errorf("WriteResult with scenario %q succeeded, want an error", name)
		}
		if _, err := results.CreateRequests(dir, name, false); err == nil {
			t.Errorf("CreateRequests with scenario %q succeeded, want an error", name)
		}
	}
	run := openLoopRun()
	run.Config = map[string]any{"bad": math.NaN()}
	if _, err := results.NewResult(run); err == nil || !strings.Contains(err.Error(), "resolved scenario") {
		t.Errorf("NewResult with an unencodable config: %v, want an error naming the resolved scenario", err)
	}
	// A file where the directory should be: found before any load is sent.
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := results.CreateRequests(file, "x", false); err == nil {
		t.Error("CreateRequests into a regular file succeeded, want an error")
	}
	if _, err := results.WriteResult(file, result(t, openLoopRun())); err == nil {
		t.Error("WriteResult into a regular file succeeded, want an error")
	}
}

func TestParseResultErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"syntax", "{\n\"date\": \"x\",\n\"completed\": }\n", "line 3"},
		{"type", "{\n\"completed\": \"five\"\n}", "line 2"},
		{"not ours", `{"date": "20250101-000000", "completed": 3}`, "no summary"},
		{"rate", `{"request_rate": "fast", "summary": {}}`, "request rate"},
		{"a newer format", `{"summary": {}, "tool_version": "v9", "result_format": 2}`, "result format 2, written by llmload v9; this llmload (format 1) would misread it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := results.ParseResult([]byte(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseResult error = %v, want one containing %q", err, tt.want)
			}
		})
	}
	if _, err := results.ReadResult(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("ReadResult of a missing file succeeded")
	}
}

func FuzzParseResult(f *testing.F) {
	for _, tt := range runs {
		if b, err := os.ReadFile(filepath.Join("testdata", tt.Name+".json.golden")); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"request_rate":"inf","summary":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := results.ParseResult(data)
		if err != nil {
			return
		}
		// Whatever parses must write back and parse again.
		b, err := json.Marshal(res)
		if err != nil {
			return // e.g. a decoded value JSON cannot encode; not a parser bug
		}
		if _, err := results.ParseResult(b); err != nil {
			t.Errorf("re-parsing a written result: %v", err)
		}
	})
}

func TestScheduleOf(t *testing.T) {
	at := func(intended, dispatched float64) *metrics.Request {
		return &metrics.Request{Intended: dur(intended), Dispatched: dur(dispatched), Sent: dur(dispatched), End: dur(dispatched)}
	}
	ms := time.Millisecond
	tests := []struct {
		name        string
		rate        float64
		late        time.Duration
		reqs        []*metrics.Request
		wantRate    float64
		wantSched   float64
		wantLate    int
		wantWarning bool
	}{
		{"on time", 10, ms, []*metrics.Request{at(0, 0), at(100, 100.5), at(200, 200.2)}, 2 / 0.2002, 10, 0, false},
		{"late dispatches", 10, ms, []*metrics.Request{at(0, 0), at(100, 102), at(200, 205)}, 2 / 0.205, 10, 2, true},
		{"slow rate within the threshold", 10, 200 * ms, []*metrics.Request{at(0, 0), at(100, 150), at(200, 300)}, 2 / 0.3, 10, 0, true},
		// A seeded Poisson sample's own rate differs from the configured one:
		// keeping to that schedule is no reason to warn.
		{"sample slower than configured", 10, ms, []*metrics.Request{at(0, 0), at(150, 150), at(300, 300)}, 2 / 0.3, 2 / 0.3, 0, false},
		{"warmup ignored", 0, ms, []*metrics.Request{{Warmup: true, Dispatched: dur(500), Intended: 0}, at(0, 0), at(1000, 1000)}, 1, 1, 0, false},
		{"inf rate, one request", inf(), ms, []*metrics.Request{at(0, 0)}, 0, 0, 0, false},
		// At rate inf there is no schedule to be late against, however long
		// dispatching took.
		{"inf rate, all at once", inf(), ms, []*metrics.Request{at(0, 0), at(0, 14.4)}, 1 / 0.0144, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := metrics.NewRecorder(metrics.Options{Scheduled: tt.rate > 0 && !math.IsInf(tt.rate, 1), LateThreshold: tt.late})
			for _, r := range tt.reqs {
				rec.Add(r)
			}
			s := results.ScheduleOf(tt.rate, rec.Summary())
			if math.Abs(s.AchievedRate-tt.wantRate) > 1e-6 || math.Abs(s.ScheduledRate-tt.wantSched) > 1e-6 || s.LateDispatches != tt.wantLate || (s.Warning != "") != tt.wantWarning {
				t.Errorf("ScheduleOf = %+v; want rate %v, scheduled %v, %d late, warning %v", s, tt.wantRate, tt.wantSched, tt.wantLate, tt.wantWarning)
			}
		})
	}
}

func dur(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }
