package results_test

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

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

func TestKneeOf(t *testing.T) {
	tests := []struct {
		name  string
		steps []results.Step
		share float64
		want  *results.Knee
	}{
		{
			// Shaped like the saturation table in docs/examples.md (rounded,
			// from an earlier run): 125 tok/s per user at 1 user; 50 -> 100
			// users adds 6.2 tok/s per user, under 12.5.
			name:  "saturating users",
			steps: steps([3]float64{1, 125, 1}, [3]float64{10, 1130, 1}, [3]float64{50, 3000, 0}, [3]float64{100, 3310, 0}, [3]float64{150, 3380, 0}),
			share: 0.1,
			want:  &results.Knee{Value: 50, Step: 3, InitialSlope: 125, Slope: 6.2, Share: 0.1},
		},
		{
			name:  "linear: no knee",
			steps: steps([3]float64{1, 100, 1}, [3]float64{2, 200, 1}, [3]float64{4, 400, 1}),
			share: 0.1,
		},
		{
			name:  "a larger share finds an earlier knee",
			steps: steps([3]float64{1, 100, 1}, [3]float64{2, 180, 1}, [3]float64{4, 260, 1}, [3]float64{8, 300, 1}),
			share: 0.5, // 100 -> 80 (ok) -> 40 (under 50): the knee is 2
			want:  &results.Knee{Value: 2, Step: 2, InitialSlope: 100, Slope: 40, Share: 0.5},
		},
		{
			name:  "falling throughput is past the knee",
			steps: steps([3]float64{2, 100, 1}, [3]float64{4, 190, 1}, [3]float64{8, 150, 1}),
			share: 0.1,
			want:  &results.Knee{Value: 4, Step: 2, InitialSlope: 50, Slope: -10, Share: 0.1},
		},
		{
			name:  "steps out of order (a search) are read by load",
			steps: steps([3]float64{4, 400, 1}, [3]float64{8, 420, 0}, [3]float64{1, 100, 1}, [3]float64{2, 200, 1}),
			share: 0.1,
			want:  &results.Knee{Value: 4, Step: 1, InitialSlope: 100, Slope: 5, Share: 0.1},
		},
		{name: "one step", steps: steps([3]float64{4, 400, 1}), share: 0.1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := results.KneeOf(tt.steps, tt.share)
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })); diff != "" {
				t.Errorf("knee (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCapacityOfSteps(t *testing.T) {
	unchecked := steps([3]float64{1, 1, 1})
	unchecked[0].SLAChecked = false
	notRun := steps([3]float64{1, 1, 1}, [3]float64{2, 2, 1})
	notRun[1].Summary = &metrics.Summary{}
	tests := []struct {
		name  string
		steps []results.Step
		want  *results.LoadCapacity
	}{
		{"highest passing", steps([3]float64{1, 1, 1}, [3]float64{10, 1, 1}, [3]float64{50, 1, 0}), &results.LoadCapacity{Value: 10, Step: 2}},
		{"a pass above a failure counts", steps([3]float64{1, 1, 1}, [3]float64{10, 1, 0}, [3]float64{50, 1, 1}), &results.LoadCapacity{Value: 50, Step: 3}},
		{"none passes", steps([3]float64{1, 1, 0}), nil},
		{"unchecked", unchecked, nil},
		{"a step that did not run does not pass", notRun, &results.LoadCapacity{Value: 1, Step: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, results.CapacityOfSteps(tt.steps)); diff != "" {
				t.Errorf("capacity (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFinishRepeatedSteps checks that the capacity of a sweep whose steps
// were repeated carries its step's runs and the spread of each checked
// figure (report checks that the findings say how many runs held).
func TestFinishRepeatedSteps(t *testing.T) {
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
	want := &results.LoadCapacity{Value: 4, Step: 2, Runs: 2, RunsPassed: 1, Spread: []results.Spread{p99}}
	if diff := cmp.Diff(want, sw.Capacity); diff != "" {
		t.Errorf("capacity (-want +got):\n%s", diff)
	}
}

// TestSweepConfiguredRate checks the rate a sweep or search over the rate
// configured over its whole run (what the pooled summary's schedule line
// shows: it is an open loop, not a closed one): each step's rate for as
// long as its schedule ran, over the run's span, pauses included as the
// run's scheduled rate counts them.
func TestSweepConfiguredRate(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(from, to float64) *metrics.Summary {
		return &metrics.Summary{Dispatches: 10, FirstIntended: t0.Add(dur(1000 * from)), LastIntended: t0.Add(dur(1000 * to))}
	}
	step := func(v float64, sum *metrics.Summary, runs ...*metrics.Summary) results.Step {
		st := results.Step{Value: v, Summary: sum}
		for _, r := range runs {
			st.Runs = append(st.Runs, results.StepRun{Summary: r})
		}
		return st
	}
	tests := []struct {
		name    string
		vary    string
		steps   []results.Step
		overall *metrics.Summary
		want    float64
	}{
		// 2 req/s for 10 s, a 1 s pause, 8 req/s for 5 s: 60 requests
		// offered in 16 s.
		{"two steps", results.VaryRate, []results.Step{step(2, at(0, 10)), step(8, at(11, 16))}, at(0, 16), 60.0 / 16},
		// A repeated step ran 4 req/s twice for 5 s, 2 s apart; its pooled
		// summary's span (12 s) holds the pause.
		{"repeated step", results.VaryRate, []results.Step{step(4, at(0, 12), at(0, 5), at(7, 12))}, at(0, 12), 40.0 / 12},
		{"one dispatch offers no span", results.VaryRate, []results.Step{step(4, &metrics.Summary{Dispatches: 1})}, &metrics.Summary{Dispatches: 1}, 0},
		{"a users sweep configures no rate", results.VaryUsers, []results.Step{step(2, at(0, 10))}, at(0, 10), 0},
		{"max_concurrency neither", results.VaryMaxConcurrency, []results.Step{step(2, at(0, 10))}, at(0, 10), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sw := &results.Sweep{Mode: results.ModeCapacity, Vary: tt.vary, Steps: tt.steps}
			if got := sw.ConfiguredRate(tt.overall); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("ConfiguredRate = %v, want %v", got, tt.want)
			}
		})
	}
}
