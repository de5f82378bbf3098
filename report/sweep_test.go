package report

import (
	"strings"
	"testing"

	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
)

// steps builds steps from (load, output tok/s, passed) triples.
func steps(rows ...[3]float64) []results.Step {
	var out []results.Step
	for i, r := range rows {
		st := results.Step{Step: i + 1, Value: r[0], Summary: &metrics.Summary{Completed: 10, OutputThroughput: r[1]}, SLAChecked: true}
		if r[2] == 0 {
			st.SLAFailed = []string{"itl_p99"}
		}
		out = append(out, st)
	}
	return out
}

// TestSweepFindingsRepeatedSteps checks that the findings of a sweep whose
// steps were repeated say how many runs held at the capacity, and the
// runs' spread of its checked figure.
func TestSweepFindingsRepeatedSteps(t *testing.T) {
	p99 := results.NewSpread("ttft_p99", "ttft", "p99", "ms", []float64{30, 45}, 37.5, 30, 45, 0.28)
	tput := results.NewSpread("output_throughput", "output_throughput", "", "tok/s", []float64{100, 110}, 105, 100, 110, 0.07)
	sw := &results.Sweep{Mode: results.ModeSweep, Vary: results.VaryUsers, Steps: steps([3]float64{1, 50, 1}, [3]float64{4, 150, 1}, [3]float64{8, 160, 0})}
	for i := range sw.Steps {
		st := &sw.Steps[i]
		st.Checks = []results.Check{{Name: "ttft_p99", Kind: "sla", Metric: "ttft", Stat: "p99"}}
		st.Runs = []results.StepRun{{Run: 1, Passed: true}, {Run: 2, Passed: i == 0}}
		st.RunsPassed = 1 + map[bool]int{true: 1}[i == 0]
		st.Spread = []results.Spread{tput, p99}
	}
	sw.Finish(nil)
	findings := SweepFindings(sw)
	var line string
	for _, f := range findings {
		if strings.HasPrefix(f, "Capacity:") {
			line = f
		}
	}
	for _, w := range []string{"[runs 30.00 to 45.00]", "pooled over 2 runs, 1 of which met every sla check alone", "the capacity held in 1 of 2 runs"} {
		if !strings.Contains(line, w) {
			t.Errorf("capacity line lacks %q: %s", w, line)
		}
	}
}
