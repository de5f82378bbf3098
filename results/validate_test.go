package results_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/results/resultstest"
)

// TestParseResultValidates: the one loader refuses a result whose counts
// or histograms cannot be true, naming what is wrong, so that merge,
// compare and a baseline never compute from it.
func TestParseResultValidates(t *testing.T) {
	good, err := json.Marshal(resultstest.Result(t, resultstest.ClosedLoopRun()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := results.ParseResult(good); err != nil {
		t.Fatalf("a good result: %v", err)
	}
	tests := []struct {
		name string
		edit func(m map[string]any)
		want string
	}{
		{"negative completed", func(m map[string]any) { sum(m)["completed"] = -1000 }, "completed is -1000"},
		{"negative throughput", func(m map[string]any) { sum(m)["output_throughput"] = -3.5 }, "output_throughput is -3.5"},
		{"negative error count", func(m map[string]any) { sum(m)["errors"] = map[string]any{"stall": -2} }, "errors.stall is -2"},
		{"more defects than answers", func(m map[string]any) { sum(m)["defective_outputs"] = 1e6 }, "defective_outputs is 1000000, more than the"},
		{"histogram count disagrees", func(m map[string]any) { sum(m)["ttft"].(map[string]any)["count"] = 999 }, "ttft: histogram holds"},
		{"corrupt histogram", func(m map[string]any) { sum(m)["itl"].(map[string]any)["histogram"] = "bm90IGEgaGlzdG9ncmFt" }, "itl: decoding histogram"},
		{"a stage's count", func(m map[string]any) {
			m["stages"].([]any)[0].(map[string]any)["summary"].(map[string]any)["failed"] = -1
		}, "stage 1: failed is -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal(good, &m); err != nil {
				t.Fatal(err)
			}
			tt.edit(m)
			bad, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			_, err = results.ParseResult(bad)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "not a valid llmload result") {
				t.Errorf("ParseResult: %v, want an error saying %q", err, tt.want)
			}
		})
	}
}

func sum(m map[string]any) map[string]any { return m["summary"].(map[string]any) }
