package report

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/llmload/llmload/results"
)

// TestStoppingLines: each way a budget or stop_early ends a run reads as
// what happened, a cut run never as a finished gate, and counts agree in
// number.
func TestStoppingLines(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   results.Stopping
		want []string
	}{
		{"decided", results.Stopping{Unit: "block", Scheduled: 20, Ran: 6, Stopped: results.StoppedDecided, StopEarly: true, ElapsedSeconds: 30, FullSeconds: 100},
			[]string{"Stopped early: the verdict rests on 6 of 20 blocks (30s); the whole schedule would have taken about 1m40s."}},
		{"budget", results.Stopping{Unit: "run", Scheduled: 8, Ran: 3, Stopped: results.StoppedBudget, Budget: "10m0s", ElapsedSeconds: 540},
			[]string{"Stopped at the budget (10m0s): the verdict rests on 3 of 8 runs (9m0s)."}},
		{"cut after one", results.Stopping{Unit: "block", Scheduled: 20, Ran: 1, Stopped: results.StoppedCut, StopEarly: true, ElapsedSeconds: 5},
			[]string{"Cut short after 1 block of 20 (5s): the run was interrupted or could not go on, so the gate did not finish."}},
		{"ran all", results.Stopping{Unit: "block", Scheduled: 4, Ran: 4, Stopped: results.StoppedSchedule, StopEarly: true, ElapsedSeconds: 20,
			MoreNeeded: []results.MoreNeeded{{Key: "ttft_p50", More: 1}, {Key: "itl_p50", More: 12}, {Key: "itl_p99", Undecidable: true}}},
			[]string{"Ran all 4 blocks (20s): the regression block was not decided earlier.",
				"ttft_p50 is inconclusive: about 1 more block would decide it if the observed effect holds.",
				"itl_p50 is inconclusive: about 12 more blocks would decide it if the observed effect holds.",
				"itl_p99 is inconclusive and its delta sits on the tolerance: more blocks would not decide it soon."}},
		{"budget only, to the end", results.Stopping{Unit: "block", Scheduled: 4, Ran: 4, Stopped: results.StoppedSchedule, ElapsedSeconds: 20, GPUMinutes: 2.5, FullGPUMinutes: 2.5},
			[]string{"GPU time: 2.5 gpu-minutes (the whole schedule: about 2.5)."}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := StoppingLines(&tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			for _, l := range got {
				if strings.Contains(l, "Ran all") && tt.in.Ran < tt.in.Scheduled {
					t.Errorf("%q for %d of %d", l, tt.in.Ran, tt.in.Scheduled)
				}
			}
		})
	}
}

// TestCheckTextConfidence: a check's text (JUnit, annotations) states its
// interval's confidence: 95% unless a sequential gate's look judged it at
// another.
func TestCheckTextConfidence(t *testing.T) {
	lo, hi, base := 126.0, 134.0, 100.0
	c := results.Check{Name: "ttft_p50", Kind: "regression", Metric: "ttft", Stat: "p50", Samples: 6, Lower: &lo, Upper: &hi, Baseline: &base}
	for conf, want := range map[float64]string{0: "; 95% interval 126 ms to 134 ms", 0.9971: "; 99.7% interval 126 ms to 134 ms"} {
		c.Confidence = conf
		if got := CheckText(c); !strings.Contains(got, want) {
			t.Errorf("confidence %g: %q lacks %q", conf, got, want)
		}
	}
}
