package report

import (
	"fmt"
	"math"
	"time"

	"github.com/llmload/llmload/results"
)

// StoppingLines render how a budget or stop_early ended a run: where it
// stopped, what it saved or still needs.
func StoppingLines(r *results.Stopping) []string {
	if r == nil {
		return nil
	}
	var out []string
	switch r.Stopped {
	case results.StoppedDecided:
		out = append(out, fmt.Sprintf("Stopped early: the verdict rests on %d of %d %ss (%s); the whole schedule would have taken about %s.",
			r.Ran, r.Scheduled, r.Unit, dur(r.ElapsedSeconds), dur(r.FullSeconds)))
	case results.StoppedBudget:
		out = append(out, fmt.Sprintf("Stopped at the budget (%s): the verdict rests on %d of %d %ss (%s).", r.Budget, r.Ran, r.Scheduled, r.Unit, dur(r.ElapsedSeconds)))
	case results.StoppedCut:
		out = append(out, fmt.Sprintf("Cut short after %s of %d (%s): the run was interrupted or could not go on, so the gate did not finish.", plural(r.Ran, r.Unit), r.Scheduled, dur(r.ElapsedSeconds)))
	default:
		if r.StopEarly && r.Ran >= r.Scheduled {
			out = append(out, fmt.Sprintf("Ran all %s (%s): the regression block was not decided earlier.", plural(r.Ran, r.Unit), dur(r.ElapsedSeconds)))
		}
	}
	if r.GPUMinutes > 0 {
		out = append(out, fmt.Sprintf("GPU time: %.1f gpu-minutes (the whole schedule: about %.1f).", r.GPUMinutes, r.FullGPUMinutes))
	}
	for _, m := range r.MoreNeeded {
		if m.Undecidable {
			out = append(out, fmt.Sprintf("%s is inconclusive and its delta sits on the tolerance: more %ss would not decide it soon.", m.Key, r.Unit))
		} else {
			out = append(out, fmt.Sprintf("%s is inconclusive: about %d more %s would decide it if the observed effect holds.", m.Key, m.More, noun(m.More, r.Unit)))
		}
	}
	return out
}

func dur(s float64) string {
	if math.IsNaN(s) || s <= 0 {
		return "0s"
	}
	return (time.Duration(s * float64(time.Second))).Round(time.Second).String()
}

// writeStopping prints the lines under an A/B run's or a repeat's table.
func writeStopping(p *printer, r *results.Stopping) {
	for _, l := range StoppingLines(r) {
		p.printf("%s\n", l)
	}
}

// plural renders a count of a unit: "1 block", "3 blocks".
func plural(n int, unit string) string { return fmt.Sprintf("%d %s", n, noun(n, unit)) }

// noun is the unit in the number n asks for.
func noun(n int, unit string) string {
	if n == 1 {
		return unit
	}
	return unit + "s"
}
