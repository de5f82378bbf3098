package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/llmload/llmload/results"
)

// reference is one row of the public reference: closed-loop users without
// think time on ShareGPT-like prompts.
type reference struct {
	users     int
	scenario  string
	outTokS   float64 // output tokens/s
	tolerance float64 // relative; 0 = not checked against the reference directly
}

var references = []reference{
	{1, "users_1", 115, 0.15},
	{100, "users_100", 3100, 0.15},
	{200, "users_200", 3150, 0}, // checked against 100 users instead (below)
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: calibrate RESULT_DIR")
		os.Exit(2)
	}
	os.Exit(run(os.Args[1], os.Stdout))
}

type row struct {
	ref    reference
	res    *results.Result
	simRaw json.RawMessage
}

func run(dir string, w io.Writer) int {
	var rows []row
	for _, ref := range references {
		res, err := results.ReadResult(filepath.Join(dir, ref.scenario+".json"))
		if err != nil {
			fmt.Fprintf(os.Stderr, "calibrate: %v\n", err)
			return 2
		}
		rows = append(rows, row{ref: ref, res: res, simRaw: res.Simulator})
	}
	failed := false
	fmt.Fprintln(w, "Simulator calibration: a100-llama3-8b vs Llama-3-8B on one A100 80GB (closed loop, no think time)")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "| users | reference tok/s | measured tok/s | diff | P50 TTFT (ms) | P99 TTFT (ms) | P50 ITL (ms) | P99 ITL (ms) | requests | verdict |\n")
	fmt.Fprintf(w, "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n")
	for _, r := range rows {
		s := r.res.Summary
		diff := (s.OutputThroughput - r.ref.outTokS) / r.ref.outTokS
		verdict := "ok"
		if r.ref.tolerance > 0 && (diff > r.ref.tolerance || diff < -r.ref.tolerance) {
			verdict = fmt.Sprintf("OFF (tolerance ±%.0f%%)", 100*r.ref.tolerance)
			failed = true
		}
		if r.ref.tolerance == 0 {
			verdict = "see below"
		}
		fmt.Fprintf(w, "| %d | %.0f | %.0f | %+.1f%% | %.0f | %.0f | %.1f | %.1f | %d | %s |\n",
			r.ref.users, r.ref.outTokS, s.OutputThroughput, 100*diff, s.TTFT.P50, s.TTFT.P99, s.ITL.P50, s.ITL.P99, s.Completed, verdict)
	}
	s100, s200 := rows[1].res.Summary, rows[2].res.Summary
	fmt.Fprintln(w)
	growth := s200.OutputThroughput/s100.OutputThroughput - 1
	ok := growth <= 0.10
	failed = failed || !ok
	fmt.Fprintf(w, "200 users vs 100: throughput %+.1f%% (must be at most +10%%): %s\n", 100*growth, verdict(ok))
	ratio := s200.TTFT.P99 / s100.TTFT.P99
	ok = ratio >= 5
	failed = failed || !ok
	fmt.Fprintf(w, "200 users vs 100: P99 TTFT x%.1f (must be at least x5): %s\n", ratio, verdict(ok))
	// The reference says ITL "passes 55 ms" at 200 users without naming a
	// statistic: shown, not gated.
	fmt.Fprintf(w, "200 users: ITL P50 %.1f ms, P99 %.1f ms (reference: above 55 ms)\n", s200.ITL.P50, s200.ITL.P99)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "The simulator's own scheduling (how late its steps fired against their plan):")
	for _, r := range rows {
		var st struct {
			Steps  int64   `json:"steps"`
			P50    float64 `json:"scheduler_jitter_p50"`
			P99    float64 `json:"scheduler_jitter_p99"`
			Max    float64 `json:"scheduler_jitter_max"`
			Preemp int64   `json:"preemptions"`
		}
		if len(r.simRaw) == 0 || json.Unmarshal(r.simRaw, &st) != nil {
			fmt.Fprintf(w, "  %d users: no simulator statistics in the result\n", r.ref.users)
			continue
		}
		fmt.Fprintf(w, "  %3d users: %d steps, jitter p50 %.2f ms, p99 %.2f ms, max %.2f ms; %d preemptions\n",
			r.ref.users, st.Steps, st.P50, st.P99, st.Max, st.Preemp)
	}
	if failed {
		return 1
	}
	return 0
}

func verdict(ok bool) string {
	if ok {
		return "ok"
	}
	return "OFF"
}
