package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// plan -show-request prints the first request as the run sends it: vLLM's
// body with the target's ignore_eos and extra body, the headers with every
// credential redacted. The golden file is the whole plan.
func TestPlanShowRequest(t *testing.T) {
	code, out, errOut := call(t, context.Background(), "plan", "-show-request", "testdata/knobs.hcl")
	if code != exitOK {
		t.Fatalf("plan: exit %d\n%s", code, errOut)
	}
	if strings.Contains(out, "SECRET") {
		t.Errorf("plan -show-request printed a credential:\n%s", out)
	}
	for _, want := range []string{
		"POST sim://tiny/v1/completions",
		"Authorization: Bearer <redacted>",
		"X-Api-Token: <redacted>",
		"X-Team: serving",
		`"temperature": 0.0,`,
		`"ignore_eos": true,`,
		`"top_p": 0.9`,
		"sampled with seed 11, the scenario's",
		"P50, P75, P99.9 of ttft, e2el",
		"<out>/tiny-10qps.json and <out>/tiny-10qps.requests.jsonl",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `"logprobs"`) {
		t.Errorf("logprobs = null in extra_body should remove the field:\n%s", out)
	}
	golden := filepath.Join("testdata", "knobs.plan.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), out); diff != "" {
		t.Errorf("plan output (-want +got):\n%s", diff)
	}
}

// A run with vLLM's knobs: the result file and the requests file take the
// scenario's result_filename; the vLLM block and the pNN keys follow the
// chosen percentiles and metrics; save_detailed adds vLLM's per-request
// arrays in seconds, in dispatch order, matching the requests file.
func TestRunKnobs(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, "testdata/knobs.hcl")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{"tiny-10qps.json", "tiny-10qps.requests.jsonl"}, names); diff != "" {
		t.Errorf("files written (-want +got):\n%s", diff)
	}

	// The vLLM block: TTFT and E2EL only, Mean, Median, P50, P75, P99.9.
	block := stdout[:strings.Index(stdout, "\n=====")]
	for _, want := range []string{"P50 TTFT (ms):", "P75 TTFT (ms):", "P99.9 TTFT (ms):", "P75 E2EL (ms):", "Mean E2EL (ms):"} {
		if !strings.Contains(block, want) {
			t.Errorf("vLLM block lacks %q:\n%s", want, block)
		}
	}
	for _, absent := range []string{"ITL (ms):", "TPOT (ms):", "P99 TTFT"} {
		if strings.Contains(block, absent) {
			t.Errorf("vLLM block has %q:\n%s", absent, block)
		}
	}
	if !strings.Contains(stdout, "the simulator counts with the same approximation: figures are consistent") {
		t.Errorf("the approximate-tokenizer note does not speak of the simulator:\n%s", stdout)
	}

	res := resultFile(t, filepath.Join(out, "tiny-10qps.json"))
	for _, k := range []string{"p75_ttft_ms", "p75_e2el_ms", "p99_itl_ms", "p99.9_tpot_ms", "p50_ttft_ms"} {
		if _, ok := res[k]; !ok {
			t.Errorf("result lacks %s", k)
		}
	}
	for _, k := range []string{"p75_itl_ms", "p75_tpot_ms"} {
		if _, ok := res[k]; ok {
			t.Errorf("result has %s for a metric not chosen", k)
		}
	}

	// The arrays against the requests file: same requests, same order as
	// the ids, seconds for milliseconds.
	var lines []requestLine
	f, err := os.ReadFile(filepath.Join(out, "tiny-10qps.requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(f))
	for sc.Scan() {
		var l requestLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		if !l.Warmup {
			lines = append(lines, l)
		}
	}
	slices.SortFunc(lines, func(a, b requestLine) int {
		return int(a.ID - b.ID)
	})
	var d struct {
		InputLens      []int       `json:"input_lens"`
		OutputLens     []int       `json:"output_lens"`
		TTFTs          []float64   `json:"ttfts"`
		ITLs           [][]float64 `json:"itls"`
		GeneratedTexts []string    `json:"generated_texts"`
		Errors         []string    `json:"errors"`
	}
	raw, _ := json.Marshal(res)
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 20 {
		t.Fatalf("%d measured requests in the requests file, want 20", len(lines))
	}
	for _, n := range []int{len(d.InputLens), len(d.OutputLens), len(d.TTFTs), len(d.ITLs), len(d.GeneratedTexts), len(d.Errors)} {
		if n != len(lines) {
			t.Fatalf("arrays of %d, %d, %d, %d, %d, %d entries; want %d each",
				len(d.InputLens), len(d.OutputLens), len(d.TTFTs), len(d.ITLs), len(d.GeneratedTexts), len(d.Errors), len(lines))
		}
	}
	near := func(sec, msec float64) bool { return math.Abs(sec*1000-msec) < 1e-6 }
	for i, l := range lines {
		if l.TTFT == nil || !near(d.TTFTs[i], *l.TTFT) {
			t.Errorf("request %d: ttfts %v s, requests file %v ms", l.ID, d.TTFTs[i], l.TTFT)
		}
		if len(d.ITLs[i]) != len(l.ITL) {
			t.Errorf("request %d: %d itls, requests file %d", l.ID, len(d.ITLs[i]), len(l.ITL))
		} else {
			for j := range l.ITL {
				if !near(d.ITLs[i][j], l.ITL[j]) {
					t.Errorf("request %d gap %d: %v s, requests file %v ms", l.ID, j, d.ITLs[i][j], l.ITL[j])
				}
			}
		}
		if d.InputLens[i] != l.Prompt || d.OutputLens[i] != l.Output || d.OutputLens[i] != 8 {
			t.Errorf("request %d: input %d output %d; requests file %d, %d (ignore_eos: want 8 out)", l.ID, d.InputLens[i], d.OutputLens[i], l.Prompt, l.Output)
		}
		if d.GeneratedTexts[i] == "" || d.Errors[i] != "" {
			t.Errorf("request %d: text %q, error %q; want a text and no error", l.ID, d.GeneratedTexts[i], d.Errors[i])
		}
	}
}

// requestLine is the part of a requests file line the knobs test reads.
type requestLine struct {
	ID     int64     `json:"id"`
	Warmup bool      `json:"warmup"`
	TTFT   *float64  `json:"ttft_ms"`
	ITL    []float64 `json:"itl_ms"`
	Prompt int       `json:"dataset_prompt_tokens"`
	Output int       `json:"output_tokens"`
}
