package compare

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/llmload/llmload/metrics"
)

// savedRow is the row a result file's comparison has always stored
// (report.DeltaRow before Delta wrote itself), kept here to hold the JSON
// of a Delta to it byte for byte.
type savedRow struct {
	Key         string   `json:"key"`
	Metric      string   `json:"metric"`
	Stat        string   `json:"stat,omitempty"`
	Unit        string   `json:"unit"`
	Base        *float64 `json:"base"`
	New         *float64 `json:"new"`
	Delta       *float64 `json:"delta"`
	Percent     *float64 `json:"delta_pct"`
	Lower       *float64 `json:"lower,omitempty"`
	Upper       *float64 `json:"upper,omitempty"`
	Method      string   `json:"method"`
	BaseSamples int64    `json:"base_samples"`
	NewSamples  int64    `json:"new_samples"`
	Tolerance   *float64 `json:"tolerance,omitempty"`
	Absolute    bool     `json:"absolute,omitempty"`
	Verdict     string   `json:"verdict,omitempty"`
	Change      string   `json:"change"`
	Message     string   `json:"message,omitempty"`
}

// savedRowOf is the conversion the runner made (deltaRows).
func savedRowOf(d Delta) savedRow {
	ptr := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	r := savedRow{
		Key: d.Key, Metric: d.Metric, Stat: d.Stat, Unit: d.Unit,
		Method: d.Method, BaseSamples: d.BaseSamples, NewSamples: d.NewSamples,
		Verdict: d.Verdict, Change: d.Change, Message: d.Message,
	}
	if !d.Missing {
		r.Base, r.New, r.Delta, r.Percent = ptr(d.Base), ptr(d.New), ptr(d.Delta), ptr(d.Percent)
	}
	if d.HasInterval {
		r.Lower, r.Upper = ptr(d.Lower), ptr(d.Upper)
	}
	if d.Tolerance != nil {
		r.Tolerance, r.Absolute = ptr(d.Tolerance.Fraction), d.Tolerance.Absolute()
	}
	return r
}

// jsonDeltas are deltas of every shape: judged and not, with and without
// an interval, figures a run lacks, an error rate from 0 (no percentage),
// too few samples, and text JSON escapes in HTML.
func jsonDeltas(t *testing.T) []Delta {
	ms := time.Millisecond
	base := synth{n: 2000, ttft: 100 * ms, span: 20 * time.Second, tokens: 8, seed: 1}.summary()
	cand := synth{n: 2000, ttft: 130 * ms, span: 20 * time.Second, tokens: 8, failed: 100, seed: 2}.summary()
	small := synth{n: 50, ttft: 103 * ms, span: 5 * time.Second, tokens: 8, seed: 2}.summary()
	tols, err := ParseTolerances("ttft_p99=10%,error_rate=1%,request_goodput=5%")
	if err != nil {
		t.Fatal(err)
	}
	ds := Compare(base, cand, nil, tols, Options{})
	ds = append(ds, Compare(base, small, []Row{{"ttft", "p99"}}, tols[:1], Options{})...)
	// No interval for a count; a candidate that completed nothing lacks
	// every latency, judged or not.
	ds = append(ds, Measure(base, cand, "failed", "", Options{}))
	ds = append(ds, Compare(base, &metrics.Summary{}, []Row{{"itl", "p50"}}, tols[:1], Options{})...)
	odd := ds[0]
	odd.Message = `P99 TTFT <= 110 ms & "more"`
	return append(ds, odd)
}

// TestDeltaJSON: a Delta writes the row result files have always held,
// under either HTML escaping, and reads back to the same Delta.
func TestDeltaJSON(t *testing.T) {
	ds := jsonDeltas(t)
	var missing, noInterval, judged bool
	for _, d := range ds {
		missing = missing || d.Missing
		noInterval = noInterval || (!d.Missing && !d.HasInterval)
		judged = judged || d.Tolerance != nil
	}
	if !missing || !noInterval || !judged {
		t.Fatalf("the fixture lacks a shape: missing %v, no interval %v, judged %v", missing, noInterval, judged)
	}
	for _, d := range ds {
		for _, escape := range []bool{true, false} {
			encode := func(v any) string {
				var buf bytes.Buffer
				enc := json.NewEncoder(&buf)
				enc.SetEscapeHTML(escape)
				if err := enc.Encode(v); err != nil {
					t.Fatal(err)
				}
				return buf.String()
			}
			got, want := encode(d), encode(savedRowOf(d))
			if got != want {
				t.Errorf("%s (escape HTML %v):\n got %s\nwant %s", d.Key, escape, got, want)
			}
			var back Delta
			if err := json.Unmarshal([]byte(got), &back); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(d, back, cmpopts.EquateNaNs()); diff != "" {
				t.Errorf("%s read back (-wrote +read):\n%s", d.Key, diff)
			}
			if again := encode(back); again != got {
				t.Errorf("%s written again:\n got %s\nwant %s", d.Key, again, got)
			}
		}
	}
}
