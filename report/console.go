package report

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
)

// printer writes lines and keeps the first error.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

// center writes s centred in 50 columns of c, as Python's
// "{s:{c}^{n}}".format(n=50) does (odd padding goes to the right).
func (p *printer) center(s string, c string) {
	pad := max(50-len(s), 0)
	p.printf("%s%s%s\n", strings.Repeat(c, pad/2), s, strings.Repeat(c, pad-pad/2))
}

// Python's "{:<40} {:<10}" and "{:<40} {:<10.2f}".
func (p *printer) int(label string, v int)       { p.printf("%-40s %-10d\n", label, v) }
func (p *printer) float(label string, v float64) { p.printf("%-40s %-10.2f\n", label, v) }

// WriteConsole writes a result's report: the block vLLM's benchmark prints
// (same labels and layout, so both can be read side by side), our extra
// figures, the per-stage table and the checks. It reads only the result, so
// a saved result file renders exactly as the live run did.
func WriteConsole(w io.Writer, r *results.Result) error {
	p := &printer{w: w}
	s := r.Summary
	if s == nil {
		s = &metrics.Summary{}
	}
	if r.Interrupted {
		p.printf("INTERRUPTED: the run was stopped early; these are partial results.\n")
	}
	if r.Aborted != "" {
		p.printf("ABORTED: %s; these are partial results.\n", r.Aborted)
	}
	writeVLLMBlock(p, r, s)
	writeExtras(p, r, s)
	writeTurns(p, s)
	writeServer(p, s)
	writeStages(p, r.Stages, r.Capacity)
	writeShards(p, r)
	writeSweep(p, r.Sweep)
	writeRepeats(p, r.Repeat)
	writeAB(p, r.AB, s)
	writeValidity(p, r.Validity)
	writeChecks(p, r.Checks, s)
	writeRunVerdict(p, r)
	return p.err
}

func writeVLLMBlock(p *printer, r *results.Result, s *metrics.Summary) {
	p.center(" Serving Benchmark Result ", "=")
	p.int("Successful requests:", s.Completed)
	p.int("Failed requests:", s.Failed)
	if r.MaxConcurrency != nil {
		p.int("Maximum request concurrency:", *r.MaxConcurrency)
	}
	if rate := float64(r.RequestRate); rate > 0 && !math.IsInf(rate, 1) {
		p.float("Request rate configured (RPS):", rate)
	}
	p.float("Benchmark duration (s):", s.Duration)
	p.int("Total input tokens:", s.TotalInputTokens)
	p.int("Total generated tokens:", s.TotalOutputTokens)
	p.float("Request throughput (req/s):", s.RequestThroughput)
	if r.Goodput != nil {
		p.float("Request goodput (req/s):", s.RequestGoodput)
	}
	p.float("Output token throughput (tok/s):", s.OutputThroughput)
	p.float("Peak output token throughput (tok/s):", r.MaxOutputTokensPerS)
	p.float("Peak concurrent requests:", float64(s.PeakConcurrency))
	p.float("Total token throughput (tok/s):", s.TotalTokenThroughput)
	// As vLLM: Mean, Median, then P<p> of each chosen percentile, for the
	// chosen metrics in vLLM's order.
	for _, key := range metrics.VLLMPercentileMetrics() {
		if !slices.Contains(r.ChosenPercentileMetrics(), key) {
			continue
		}
		m, _ := metrics.Lookup(key)
		l := s.LatencyOf(key)
		p.center(m.VLLMHeader, "-")
		p.float("Mean "+m.Title+" (ms):", l.Mean)
		p.float("Median "+m.Title+" (ms):", l.P50)
		for _, pc := range r.ChosenPercentiles() {
			v, ok := r.VLLMLatencies[results.PercentileKey(pc, key)]
			if !ok {
				v, _ = results.StandardPercentile(l, pc)
			}
			p.float("P"+strconv.FormatFloat(pc, 'f', -1, 64)+" "+m.Title+" (ms):", v)
		}
	}
	p.printf("%s\n", strings.Repeat("=", 50))
}

// latencyRows are the console's latency table: the catalogue's Console
// rows, the reasoning ones only when a request streamed reasoning.
func latencyRows(s *metrics.Summary) []struct {
	name string
	l    *metrics.Latency
} {
	var out []struct {
		name string
		l    *metrics.Latency
	}
	for _, m := range metrics.ConsoleLatencies(s.TTFTReasoning.Count > 0) {
		if l := s.LatencyOf(m.Name); l != nil {
			out = append(out, struct {
				name string
				l    *metrics.Latency
			}{m.Label, l})
		}
	}
	return out
}

func writeExtras(p *printer, r *results.Result, s *metrics.Summary) {
	p.printf("\n")
	p.printf("%-20s %8s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n",
		"Latency (ms)", "n", "mean", "stddev", "min", "p50", "p90", "p95", "p99", "p99.9", "max")
	for _, row := range latencyRows(s) {
		l := row.l
		if l.Count == 0 {
			p.printf("%-20s %8d %9s\n", row.name, 0, "-")
			continue
		}
		p.printf("%-20s %8d %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f\n",
			row.name, l.Count, l.Mean, l.Stddev, l.Min, l.P50, l.P90, l.P95, l.P99, l.P999, l.Max)
	}
	for _, row := range latencyRows(s) {
		if row.l.Outliers > 0 {
			p.printf("Note: %d %s samples were outside the histogram range (0 to 1 h) and were clamped for percentiles.\n", row.l.Outliers, row.name)
		}
	}

	p.printf("\n")
	if r.Goodput != nil {
		p.printf("Goodput: %d of %d requests met the SLO (%s): %.2f req/s, %.2f tok/s\n",
			s.GoodRequests, s.Completed, describeSLO(*r.Goodput), s.RequestGoodput, s.TokenGoodput)
	}
	if s.ServerInputTokens > 0 && s.ServerInputTokens != s.TotalInputTokens {
		p.printf("Input tokens: %d by the dataset's count (vLLM's figure, used above); the server counted %d (usage.prompt_tokens, chat template included)\n",
			s.TotalInputTokens, s.ServerInputTokens)
	}
	sch := r.Schedule
	switch {
	case sch.ConfiguredRate == 0:
		p.printf("Schedule: closed loop, dispatch rate %.2f req/s", sch.AchievedRate)
	case math.IsInf(sch.ConfiguredRate, 1):
		p.printf("Schedule: all requests at t=0 (rate inf)")
	default:
		p.printf("Schedule: configured %.2f req/s (this seed's arrivals: %.2f), achieved %.2f req/s", sch.ConfiguredRate, sch.ScheduledRate, sch.AchievedRate)
	}
	p.printf("; dispatch lag p50 %.3f ms, p99 %.3f ms, max %.3f ms; %s (lag > %g ms)\n",
		sch.LagP50, sch.LagP99, sch.LagMax, count(sch.LateDispatches, "late dispatch", "late dispatches"), sch.LateThreshold)
	if sch.Warning != "" {
		p.printf("WARNING: %s\n", sch.Warning)
	}
	writeConnections(p, r, s)
	if s.StaleRetries > 0 {
		p.printf("Stale connections: %s sent again on a new connection after the server closed the reused one before answering (keep-alive connections closed while idle: their latencies include the failed attempt; new_connection_per_request = true avoids it)\n",
			count(s.StaleRetries, "request", "requests"))
	}
	if s.Failed > 0 {
		var parts []string
		for _, kind := range metrics.ErrorKinds {
			if n := s.Errors[kind]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", kind, n))
			}
		}
		p.printf("Errors: %d of %d requests (%.2f%%): %s\n", s.Failed, s.Completed+s.Failed, 100*s.ErrorRate(), strings.Join(parts, ", "))
	} else {
		p.printf("Errors: none\n")
	}
	if s.Canceled > 0 {
		why := "the interruption"
		if r.Aborted != "" {
			why = "abort_on"
		}
		p.printf("Canceled by %s: %s in flight (not counted as failed)\n", why, count(s.Canceled, "request", "requests"))
	}
	if s.Abandoned > 0 {
		p.printf("Abandoned: %s closed part-way by the client as the scenario asked (not failures, never good; their %d tokens count in throughput, their TTFT and ITL in the latencies, not their E2EL or TPOT)\n",
			count(s.Abandoned, "request", "requests"), s.AbandonedTokens)
	}
	if s.Truncated > 0 {
		p.printf("Truncated: %s stopped at max_tokens with ignore_eos off: output incomplete, not good for goodput.\n", count(s.Truncated, "request", "requests"))
	}
	writeStreamNotes(p, s)
	writeOutputNotes(p, s)
	writeToolCalls(p, s)
	if s.Images > 0 {
		p.printf("Images: %s in the completed prompts (%s of prompt bytes, text and images inline).\n", count(s.Images, "image", "images"), byteSize(s.PromptBytes))
	}
	writeOutputLength(p, s)
	writeAgreement(p, s)
	writeExpected(p, s)
	writeEngineNotes(p, s)
	if s.ShortOutputs > 0 {
		p.printf("Short outputs: %s asked to ignore EOS but got fewer tokens than max_tokens (by the server's usage): the server did not honour ignore_eos.\n", count(s.ShortOutputs, "request", "requests"))
	}
	if s.ApproxOutputCounts > 0 {
		p.printf("Note: output tokens of %s counted as stream events (no usage, no tokenizer): token figures are approximate.\n", count(s.ApproxOutputCounts, "request", "requests"))
	}
	switch {
	case r.TokenizerApproximate && simulated(r):
		p.printf("Note: the tokenizer is approximate for this model; the simulator counts with the same approximation: figures are consistent.\n")
	case r.TokenizerApproximate:
		p.printf("Note: the tokenizer is approximate for this model: token counts from it are estimates.\n")
	}
}

// simulated reports whether the run's target was the built-in simulator
// (a sim:// URL; the simulator's statistics for results written before the
// URL said so).
func simulated(r *results.Result) bool {
	return strings.HasPrefix(r.TargetURL, "sim://") || len(r.Simulator) > 0
}

// count writes n with the singular or plural noun.
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// describeSLO renders the set SLO fields, e.g. "ttft <= 200ms, itl <= 50ms".
func describeSLO(slo results.SLOms) string {
	var parts []string
	for _, f := range []struct {
		name  string
		limit float64
	}{{"ttft", slo.TTFT}, {"tpot", slo.TPOT}, {"itl", slo.ITL}, {"e2el", slo.E2EL}} {
		if f.limit > 0 {
			parts = append(parts, f.name+" <= "+time.Duration(f.limit*float64(time.Millisecond)).String())
		}
	}
	return strings.Join(parts, ", ")
}

// writeTurns prints the per-turn table of multi-turn sessions: how TTFT
// holds up as the history grows.
func writeTurns(p *printer, s *metrics.Summary) {
	if len(s.Turns) == 0 {
		return
	}
	p.printf("\nMulti-turn sessions: TTFT by turn (first turns %d, last turns %d)\n", s.TTFTFirstTurn.Count, s.TTFTLastTurn.Count)
	p.printf("%-6s %8s %13s %12s %12s\n", "turn", "n", "prompt (tok)", "TTFT p50", "TTFT p99")
	for _, t := range s.Turns {
		if t.Completed == 0 {
			p.printf("%-6d %8d %13s\n", t.Turn, 0, "-")
			continue
		}
		p.printf("%-6d %8d %13.1f %12.2f %12.2f\n", t.Turn, t.Completed, t.MeanPromptTokens(), t.TTFT.P50, t.TTFT.P99)
	}
	writeSessions(p, s)
}

// writeSessions prints the per-session figures: how long a session took,
// how much of it waited on the server, and what it did.
func writeSessions(p *printer, s *metrics.Summary) {
	if s.Sessions == 0 {
		return
	}
	d := s.SessionDuration
	p.printf("Sessions: %d ended, %d whole; duration P50 %.2f s, P99 %.2f s; per session %.1f turns",
		s.Sessions, s.SessionsComplete, d.P50/1000, d.P99/1000, s.SessionTurns.Mean)
	if s.SessionToolRounds.Sum > 0 {
		p.printf(", %.1f tool round trips", s.SessionToolRounds.Mean)
	}
	if s.SessionSubAgents.Sum > 0 {
		p.printf(", %.1f sub-agents", s.SessionSubAgents.Mean)
	}
	if d.Sum > 0 {
		p.printf("; waiting on the server %.0f%%, thinking %.0f%% of session time (session_wait_share)", 100*s.SessionWaiting.Sum/d.Sum, 100*s.SessionThinking.Sum/d.Sum)
	}
	p.printf(".\n")
}

func writeStages(p *printer, stages []results.Stage, capacity *results.Capacity) {
	if len(stages) == 0 {
		return
	}
	checked := false
	for _, st := range stages {
		checked = checked || st.SLAChecked
	}
	p.printf("\nStages (closed loop; where req/s stops rising while TTFT climbs is the saturation knee)\n")
	p.printf("%5s %6s %6s %9s %8s %10s %10s %10s %10s %9s %9s %7s",
		"stage", "users", "mean", "time (s)", "req/s", "out tok/s", "tok/s/user", "TTFT p50", "TTFT p99", "ITL p50", "ITL p99", "errors")
	if checked {
		p.printf("  %s", "sla")
	}
	p.printf("\n")
	for _, st := range stages {
		s := st.Summary
		if s == nil {
			s = &metrics.Summary{}
		}
		if s.Completed+s.Failed == 0 {
			// The run ended (duration, requests, Ctrl-C) before this stage.
			p.printf("%5d %6d   not run\n", st.Stage, st.Users)
			continue
		}
		mean := cmpOr(st.MeanUsers, float64(st.Users))
		p.printf("%5d %6d %6.1f %9.1f %8.2f %10.2f %10.2f %10.2f %10.2f %9.2f %9.2f %7d",
			st.Stage, st.Users, mean, st.Duration, s.RequestThroughput, s.OutputThroughput, perUnit(s.OutputThroughput, mean),
			s.TTFT.P50, s.TTFT.P99, s.ITL.P50, s.ITL.P99, s.Failed)
		if checked {
			p.printf("  %s", slaVerdict(st.SLAChecked, st.SLAFailed, st.SLAInconclusive))
		}
		p.printf("\n")
	}
	p.printf("(latencies in ms; mean: users active while the stage dispatched, which tok/s/user divides by)\n")
	if checked {
		if capacity != nil {
			p.printf("Most users meeting every sla check on their own: %d (stage %d)\n", capacity.Users, capacity.Stage)
		} else {
			p.printf("No stage met every sla check on its own.\n")
		}
	}
}

func writeChecks(p *printer, checks []results.Check, s *metrics.Summary) {
	if len(checks) == 0 {
		return
	}
	thresholdText := func(c results.Check) string {
		t := c.ThresholdText()
		if c.Default {
			t += " (default)"
		}
		return t
	}
	nameW, thrW, resW := len("check"), len("threshold"), len("result")
	passed, failed, inconclusive, skipped := 0, 0, 0, 0
	latency := false
	for _, c := range checks {
		nameW = max(nameW, len(c.Name))
		thrW = max(thrW, len(thresholdText(c)))
		resW = max(resW, len(verdictLabel(c)))
		switch verdictLabel(c) {
		case "PASS":
			passed++
		case "FAIL":
			failed++
		case "SKIPPED":
			skipped++
		default:
			inconclusive++
		}
		if m, ok := metrics.Lookup(c.Metric); ok && m.Kind == metrics.Distribution {
			latency = true
		}
	}
	p.printf("\nChecks: %d passed, %d failed", passed, failed)
	if inconclusive > 0 {
		p.printf(", %d inconclusive", inconclusive)
	}
	if skipped > 0 {
		p.printf(", %d skipped", skipped)
	}
	p.printf("\n")
	p.printf("  %-*s %-*s %-*s %s\n", resW, "result", nameW, "check", thrW, "threshold", "measured")
	for _, c := range checks {
		verdict := verdictLabel(c)
		if c.Kind == "assert" {
			// An assert's condition and values do not fit the columns: they
			// go on lines of their own.
			p.printf("  %-*s %-*s %s\n", resW, verdict, nameW, c.Name, "(assert)")
			indent := strings.Repeat(" ", resW+3)
			p.printf("%scondition: %s\n", indent, c.Description)
			if m := c.MeasuredText(); m != "" {
				p.printf("%svalues:    %s\n", indent, m)
			}
			continue
		}
		measured := c.MeasuredText()
		if c.Samples > 0 && c.Stat != "" {
			measured += fmt.Sprintf(" (n=%d", c.Samples)
			if c.Lower != nil && c.Upper != nil {
				measured += fmt.Sprintf("; %s CI %s to %s", checkConfidence(c), metrics.Format(c.Metric, c.Stat, *c.Lower), metrics.Format(c.Metric, c.Stat, *c.Upper))
			}
			measured += ")"
		}
		p.printf("  %-*s %-*s %-*s %s\n", resW, verdict, nameW, c.Name, thrW, thresholdText(c), measured)
	}
	if latency {
		p.printf("Latency checks rest on the n samples shown: the %s that completed (ITL on their gaps between events);", count(s.Completed, "request", "requests"))
		if s.Failed > 0 {
			p.printf(" the %s that failed are excluded from every latency figure.\n", count(s.Failed, "request", "requests"))
		} else {
			p.printf(" failed requests would be excluded.\n")
		}
	}
	for _, c := range checks {
		if !c.Passed && c.Message != "" {
			msg := strings.ReplaceAll(strings.TrimRight(c.Message, "\n"), "\n", "\n    ")
			p.printf("%s %s (%s): %s\n", verdictLabel(c), c.Name, c.Kind, msg)
		}
	}
}

// writeEngineNotes says what the engine reported of its requests, when it
// did: its own TTFT, queueing, prefill and time per output token, the
// part of TTFT outside it, and how much of the prompts its prefix cache
// served.
func writeEngineNotes(p *printer, s *metrics.Summary) {
	var parts []string
	for _, d := range []struct {
		title string
		l     metrics.Latency
	}{{"TTFT", s.EngineTTFT}, {"queue", s.EngineQueue}, {"prefill", s.EnginePrefill}, {"TPOT", s.EngineTPOT}} {
		if d.l.Count > 0 {
			parts = append(parts, fmt.Sprintf("%s p50 %.2f ms", d.title, d.l.P50))
		}
	}
	if o := s.ClientOverhead; o.Count > 0 {
		parts = append(parts, fmt.Sprintf("TTFT outside the engine p50 %.2f ms, p99 %.2f ms", o.P50, o.P99))
	}
	if f, ok := s.CachedFraction(); ok {
		parts = append(parts, fmt.Sprintf("%d of %d prompt tokens (%.1f%%) from its prefix cache", s.CachedTokens, s.CacheReportedPrompt, 100*f))
		if r := s.PrefixReuse(); !math.IsNaN(r) {
			parts = append(parts, fmt.Sprintf("prefix reuse %.0f%% of an ideal cache's %d tokens", 100*r, s.IdealCachedTokens))
		}
	} else if r := s.PrefixReuse(); !math.IsNaN(r) {
		parts = append(parts, fmt.Sprintf("prefix reuse %.0f%% of an ideal cache's %d tokens, by the server's %s counter (no answer reported its cached tokens)", 100*r, s.IdealUnreported, s.PrefixReuseSource()))
	}
	if a := s.SpecAcceptance(); !math.IsNaN(a) {
		parts = append(parts, fmt.Sprintf("speculative decoding: %d of %d draft tokens accepted (%.1f%%)", s.AcceptedDraftTokens, s.DraftTokens, 100*a))
	}
	if len(parts) > 0 {
		p.printf("Engine (as it reported): %s.\n", strings.Join(parts, "; "))
	}
}

// writeOutputNotes says which answers said nothing usable, however fast.
func writeOutputNotes(p *printer, s *metrics.Summary) {
	var parts []string
	for _, k := range metrics.DefectKeys {
		if n := s.OutputDefects[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, strings.ReplaceAll(k, "_", " ")))
		}
	}
	if len(parts) > 0 {
		p.printf("Outputs: %s of %d completed answers (blank: white space only; degenerate: a few strings repeated; bad text: invalid UTF-8 or replacement characters; bad tool call: no function name, or arguments that are not a JSON object). Fast is not right: metrics.output_defects.<kind> gates them.\n",
			strings.Join(parts, ", "), s.Completed)
	}
}

// writeToolCalls says how often the answers called a tool, and how long
// an agent waited for the call.
func writeToolCalls(p *printer, s *metrics.Summary) {
	if s.ToolCalls == 0 {
		return
	}
	line := fmt.Sprintf("Tool calls: %s in %d of %d completed answers (tool_call_rate %.1f%%)",
		count(s.ToolCalls, "call", "calls"), s.ToolCallRequests, s.Completed, 100*float64(s.ToolCallRequests)/float64(max(s.Completed, 1)))
	if l := s.TTFTToolCall; l.Count > 0 {
		line += fmt.Sprintf("; first tool-call token P50 %s, P99 %s", metrics.Format("ttft_tool_call", "p50", l.P50), metrics.Format("ttft_tool_call", "p99", l.P99))
	}
	if s.ToolRounds > 0 {
		line += fmt.Sprintf("; %s sent tool results back", count(s.ToolRounds, "request", "requests"))
	}
	if n := s.OutputDefects["bad_tool_call"]; n > 0 {
		line += fmt.Sprintf("; %d malformed (metrics.output_defects.bad_tool_call)", n)
	}
	p.printf("%s.\n", line)
}

// writeOutputLength holds the answers' length against the dataset's
// recorded answers', when it recorded some.
func writeOutputLength(p *printer, s *metrics.Summary) {
	if s.ReferenceTokens == 0 {
		return
	}
	p.printf("Output length: %s to prompts with an answer in the dataset gave %d tokens against its %d (output_length_ratio %.1f%%).\n",
		count(s.ReferencedAnswers, "answer", "answers"), s.ReferencedOutputTokens, s.ReferenceTokens, 100*s.OutputLengthRatio())
}

// writeExpected says how many answers met their expected ones.
func writeExpected(p *printer, s *metrics.Summary) {
	if s.ExpectedJudged == 0 {
		return
	}
	p.printf("Expected answers: %d of %d answers met their prompt's expected answer (pass_rate %.1f%%).\n",
		s.ExpectedPassed, s.ExpectedJudged, 100*s.PassRate())
}

// writeAgreement says how the answers agree with the baseline's, prompt
// by prompt.
func writeAgreement(p *printer, s *metrics.Summary) {
	a := s.Agreement
	if a == nil {
		return
	}
	switch {
	case a.Sampled:
		p.printf("Agreement with %s: not judged: the requests sample (temperature above 0, no seed), so the same prompt need not get the same answer.\n", a.Against)
	case a.Pairs == 0:
		p.printf("Agreement with %s: no prompt was answered on both sides.\n", a.Against)
	default:
		lo, hi := a.ExactMatchInterval()
		p.printf("Agreement with %s: %d of %d prompts answered alike (exact_match %.1f%%, 95%% interval %.1f-%.1f%%)",
			a.Against, a.Exact, a.Pairs, 100*a.ExactMatch(), 100*lo, 100*hi)
		if a.Scored > 0 {
			p.printf("; over the %d pairs with both texts kept, prefix_agreement %.1f%%, answer_similarity %.1f%%", a.Scored, 100*a.PrefixAgreement(), 100*a.Similarity())
		} else {
			p.printf("; no pair kept both texts, so prefix_agreement and answer_similarity are not given and the default agreement check does not run (outputs { keep } on both runs)")
		}
		p.printf(".\n")
	}
}

// runVerdictWhy says why a run's own verdict overrides its checks'.
var runVerdictWhy = map[string]string{
	results.VerdictInterrupted: "the run did not finish, so its checks prove nothing either way",
	results.VerdictInvalid:     "the load was not what the scenario said, so its checks prove nothing",
	results.VerdictNoResult:    "no request completed",
}

// writeRunVerdict closes the report with the run's verdict when it is not
// its checks' (interrupted, invalid, no result), so that a run whose
// checks all passed never reads as a pass when it proves nothing.
func writeRunVerdict(p *printer, r *results.Result) {
	v := r.Verdict()
	if why, ok := runVerdictWhy[v]; ok {
		p.printf("\nVerdict: %s: %s.\n", lookOf(v).Label, why)
	}
}

// writeStreamNotes says what the stream sanity counts found.
func writeStreamNotes(p *printer, s *metrics.Summary) {
	if s.BufferedStreams > 0 {
		p.printf("Streams: %d of %d responses carried no per-token timing (all tokens in one event, or every event within %v after a first token at least as slow: a buffering proxy?)",
			s.BufferedStreams, s.TokenStreams, metrics.BufferedSpan)
		if s.UntimedFraction() > 0.5 {
			p.printf("; more than half, so ITL, TPOT and user TPS checks are inconclusive")
		}
		p.printf(".\n")
	}
	if s.CoalescedStreams > 0 {
		p.printf("Streams: %d of %d responses came in bursts (several events read at once, then a wait: a proxy flushing events together?), so their ITL is the proxy's",
			s.CoalescedStreams, s.TokenStreams)
		if s.UntimedFraction() > 0.5 {
			p.printf("; with the buffered ones, more than half, so ITL, TPOT and user TPS checks are inconclusive")
		}
		p.printf(".\n")
	}
	if len(s.Fingerprints) > 1 {
		keys := slices.Sorted(maps.Keys(s.Fingerprints))
		var parts []string
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%q (%d)", k, s.Fingerprints[k]))
		}
		p.printf("Servers: answers carried %d system fingerprints, %s: several builds or configurations answered this run.\n", len(keys), strings.Join(parts, ", "))
	}
	if s.OtherModel > 0 {
		p.printf("Model: %s answered by another model than the target's (served_model in the requests file names it). If that name is an alias of the same model (vLLM answers with its first --served-model-name, a gateway with the deployment's model), set validity { max_other_model = 1 }.\n", count(s.OtherModel, "request was", "requests were"))
	}
	if s.OverMaxTokens > 0 {
		p.printf("Length: %s more output than max_tokens allowed: the server ignored the cap.\n", count(s.OverMaxTokens, "request got", "requests got"))
	}
	if s.MultiTokenStreams > 0 {
		p.printf("Note: %s carried several tokens per event (more tokens than events): ITL there is per event, not per token.\n", count(s.MultiTokenStreams, "response", "responses"))
	}
	if s.TokenCountMismatches > 0 {
		p.printf("Token counts: the server's usage is disputed by what it streamed or by the tokenizer (beyond the margin of non-canonical output) on %d of %d requests.\n", s.TokenCountMismatches, s.TokenCountsCompared)
	}
}

// writeValidity prints each validity figure against its bound.
func writeValidity(p *printer, v *results.Validity) {
	if v == nil {
		return
	}
	if v.Valid {
		p.printf("\nRun validity: valid (the load generator did what the scenario said)\n")
	} else {
		var names []string
		for _, r := range v.Broken() {
			names = append(names, r.Name)
		}
		p.printf("\nRun validity: INVALID (%s): the load was not what the scenario said, so no verdict can be drawn\n", strings.Join(names, ", "))
	}
	format := func(r results.Rule, x float64) string {
		if r.Unit == "ms" {
			return strconv.FormatFloat(roundTo(x, 3), 'f', -1, 64) + " ms"
		}
		return strconv.FormatFloat(roundTo(100*x, 2), 'f', -1, 64) + "%"
	}
	w := 0
	for _, r := range v.Rules {
		w = max(w, len(r.Name))
	}
	for _, r := range v.Rules {
		if !r.Applies {
			p.printf("  %-*s  %-9s %s\n", w, r.Name, "n/a", r.Why)
			continue
		}
		state := "ok"
		if !r.Valid {
			state = "BROKEN"
		}
		line := fmt.Sprintf("  %-*s  %-9s <= %-9s %-6s %s", w, r.Name, format(r, r.Value), format(r, r.Bound), state, r.Description)
		if r.Why != "" {
			line += " (" + r.Why + ")"
		}
		p.printf("%s\n", line)
	}
}

func roundTo(v float64, digits int) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', digits, 64), 64)
	return f
}

// slaVerdict renders a stage's or step's sla verdict: "ok", "FAIL a, b",
// "inconclusive c", or both; "" when it was not checked.
func slaVerdict(checked bool, failed, inconclusive []string) string {
	if !checked {
		return ""
	}
	var parts []string
	if len(failed) > 0 {
		parts = append(parts, "FAIL "+strings.Join(failed, ", "))
	}
	if len(inconclusive) > 0 {
		parts = append(parts, "inconclusive "+strings.Join(inconclusive, ", "))
	}
	if len(parts) == 0 {
		return "ok"
	}
	return strings.Join(parts, "; ")
}

// byteSize renders a byte count: "812 B", "14.2 KiB", "3.1 MiB".
func byteSize(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
