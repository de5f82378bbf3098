package runner

// What `llmload plan` prints: what a run of a scenario will do, computed
// by the code the run uses (the same schedule, the same first request),
// sending nothing.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/executor"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/scenario"
)

// WriteRequestPlan prints the first request a run of s sends (dataset
// entry 0: the first warmup request, or the first measured one), built by
// the code the run uses, with every credential redacted.
func WriteRequestPlan(w io.Writer, s *scenario.Scenario, ds *dataset.Dataset) error {
	t := s.Target
	p, err := executor.PreviewRequest(ExecutorTarget(t), ds.Requests[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "  Request: the first one, as it will be sent (credentials redacted; the body indented)\n")
	fmt.Fprintf(w, "           %s %s\n", p.Method, RedactURL(p.URL))
	for _, k := range sortedKeys(p.Header) {
		for _, v := range p.Header[k] {
			switch {
			case k == "Authorization" && strings.HasPrefix(v, "Bearer "):
				v = "Bearer <redacted>"
			case scenario.SecretHeader(k):
				v = "<redacted>"
			}
			fmt.Fprintf(w, "           %s: %s\n", k, v)
		}
	}
	body := p.Body
	if t.APIKey != "" {
		// An api key has no business in a body; if extra_body put it there,
		// it is not printed either.
		body = bytes.ReplaceAll(body, []byte(t.APIKey), []byte("<redacted>"))
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, body, "           ", "  "); err != nil {
		return err
	}
	fmt.Fprintf(w, "           %s\n", buf.String())
	return nil
}

// WritePlan describes what a run of s will do: its target, dataset,
// load and schedule, faults, report, checks and verdict rules, and the
// steps of a sweep, capacity search or A/B run.
func WritePlan(w io.Writer, cfg *scenario.Config, s *scenario.Scenario, ds *dataset.Dataset) {
	fmt.Fprintf(w, "Scenario %q (%s:%d)\n", s.Name, s.DeclRange.Filename, s.DeclRange.Start.Line)
	t := s.Target
	fmt.Fprintf(w, "  Target:  %s at %s, api %s, model %q\n", t.Name, RedactURL(t.BaseURL), t.API, t.Model)
	if n, _ := simReplicas(t); strings.HasPrefix(t.BaseURL, SimScheme) && n > 1 {
		fmt.Fprintf(w, "           (the built-in simulator: %d replicas, each on a free loopback port, behind a round-robin balancer, started in-process)\n", n)
	} else if strings.HasPrefix(t.BaseURL, SimScheme) {
		fmt.Fprintln(w, "           (the built-in simulator, started in-process on a free loopback port)")
	}
	fmt.Fprintf(w, "           timeout %v, stall timeout %v, ignore_eos %v (%s)\n", t.Timeout, t.StallTimeout, t.IgnoreEOS, ignoreEOSMeaning(t.IgnoreEOS))
	fmt.Fprintf(w, "           prompt cache: %s\n", promptCacheMeaning(t.PromptCache))
	writeDatasetPlan(w, s.Dataset, ds)
	fmt.Fprintf(w, "           sampled with %s\n", datasetSeed(s))
	if s.Varies() != "" {
		writeSweepPlan(w, s)
		writeRepeatPlan(w, s, nil)
		writeChecksPlan(w, cfg, s)
		return
	}
	// The arrivals come from the function the run dispatches from, so plan
	// and run agree on every request.
	arrivals := executor.Arrivals(OfflinePlan(s, ds))
	writeLoadPlan(w, s, len(ds.Requests), arrivals)
	writeRepeatPlan(w, s, arrivals)
	if s.Dataset.MultiTurn() {
		fmt.Fprintf(w, "  Sessions: each arrival or user runs one whole session (requests count sessions); %s history, %s\n", s.History, turnThink(s))
		if s.History == scenario.HistoryGenerated && s.MaxToolRounds > 0 {
			fmt.Fprintf(w, "  Tool calls (when the dataset offers tools): an answer that calls tools gets each call's result back (%d words) at once, at most %d round trips a turn; the history holds the server's own calls and replies\n", s.ToolResultTokens, s.MaxToolRounds)
		}
		if f := s.FanOut; f != nil {
			sees := "the session's system messages and the step's answer (context fresh)"
			if f.Context == scenario.ContextShared {
				sees = "the session's whole history (context shared)"
			}
			reach := 0
			for _, r := range ds.Requests {
				if len(r.Turns) >= f.AfterTurn {
					reach++
				}
			}
			fmt.Fprintf(w, "  Fan-out: after turn %d (%d of the dataset's %d sessions reach it), %d sub-agents at once (at most %d tokens each), each seeing %s; their replies, as the server gave them, open the next turn's prompt (after a last turn, a join request of its own)\n",
				f.AfterTurn, reach, len(ds.Requests), f.SubAgents, f.OutputLen, sees)
		}
	}
	writeReportPlan(w, s)
	writeFaultsPlan(w, s)
	writeChecksPlan(w, cfg, s)
}

// writeReportPlan says what the run will write: the vLLM block's rows and
// the result files' names.
func writeReportPlan(w io.Writer, s *scenario.Scenario) {
	ps := make([]string, len(s.Percentiles))
	for i, p := range s.Percentiles {
		ps[i] = "P" + strconv.FormatFloat(p, 'f', -1, 64)
	}
	fmt.Fprintf(w, "  Report:  vLLM block with mean, median, %s of %s\n", strings.Join(ps, ", "), strings.Join(s.PercentileMetrics, ", "))
	fmt.Fprintf(w, "           writes <out>/%s and <out>/%s", s.ResultFile(), s.RequestsFile())
	if s.SaveDetailed {
		fmt.Fprint(w, "; the result holds vLLM's per-request arrays (save_detailed)")
	}
	fmt.Fprintln(w)
	if s.KeepOutputs > 0 {
		fmt.Fprintf(w, "           and the generated text of the first %d requests to <out>/%s (secrets scrubbed)\n", s.KeepOutputs,
			strings.TrimSuffix(s.RequestsFile(), ".requests.jsonl")+".outputs.jsonl")
	}
}

// ignoreEOSMeaning says what the target's ignore_eos does to the replies.
func ignoreEOSMeaning(on bool) string {
	if on {
		return "sent with every request: replies run to their max_tokens"
	}
	return "not sent: the server may end a reply before its max_tokens"
}

// datasetSeed returns the seed a dataset is sampled with and whose it is.
func datasetSeed(s *scenario.Scenario) string {
	d := s.Dataset
	var seed int64
	switch {
	case d.ShareGPT != nil:
		seed = d.ShareGPT.Seed
	case d.Random != nil:
		seed = d.Random.Seed
	case d.JSONL != nil:
		seed = d.JSONL.Seed
	case d.Trace != nil:
		seed = d.Trace.Seed
	}
	if d.SeedSet() {
		return fmt.Sprintf("seed %d, the dataset's", seed)
	}
	return fmt.Sprintf("seed %d, the scenario's", seed)
}

// writeFaultsPlan says what the run does about a failing target.
func writeFaultsPlan(w io.Writer, s *scenario.Scenario) {
	var parts []string
	switch {
	case !s.Preflight:
		parts = append(parts, "no preflight probe")
	case s.ReadyTimeout > 0:
		parts = append(parts, fmt.Sprintf("preflight probe, retried for up to %v", s.ReadyTimeout))
	default:
		parts = append(parts, "preflight probe (one try)")
	}
	if c := s.ClosedLoop; c != nil {
		if c.BackoffMax > 0 {
			parts = append(parts, fmt.Sprintf("users back off %v to %v after failures", c.BackoffMin, c.BackoffMax))
		} else {
			parts = append(parts, "no backoff after failures")
		}
	}
	if a := s.AbortOn; a != nil {
		parts = append(parts, fmt.Sprintf("abort when the error rate exceeds %g after %d requests", a.ErrorRate, a.MinRequests))
	}
	fmt.Fprintf(w, "  Faults:  %s\n", strings.Join(parts, "; "))
}

func writeDatasetPlan(w io.Writer, d *scenario.Dataset, ds *dataset.Dataset) {
	st := ds.Stats
	fmt.Fprintf(w, "  Dataset: %s (%s", d.Name, st.Source)
	if st.Path != "" {
		fmt.Fprintf(w, " %s", st.Path)
	}
	fmt.Fprintln(w, ")")
	tok := st.Tokenizer
	if st.Approximate {
		tok += " (APPROXIMATE token counts)"
	}
	if d.Tokenizer == "server" {
		tok += `; the run asks the target's /tokenize (tokenizer = "server"), which plan does not call`
	}
	fmt.Fprintf(w, "           tokenizer: %s\n", tok)
	switch {
	case st.Source == "random":
		fmt.Fprintf(w, "           generated %d prompts", st.Sampled)
	case st.Source == "trace":
		fmt.Fprintf(w, "           %s trace: records read %d, replayed %d over %v of recorded time", d.Trace.Format, st.Read, st.Sampled, st.Span.Round(time.Millisecond))
	default:
		fmt.Fprintf(w, "           entries read %d, examined %d, sampled %d", st.Read, st.Examined, st.Sampled)
	}
	if st.Oversampled > 0 {
		fmt.Fprintf(w, " (%d of them oversampled)", st.Oversampled)
	}
	fmt.Fprintln(w)
	if st.Sessions > 0 {
		fmt.Fprintf(w, "           multi-turn: %d sessions, %d turns (%.1f per session)\n", st.Sessions, st.Turns, float64(st.Turns)/float64(st.Sessions))
	}
	if len(st.Skipped) > 0 {
		var parts []string
		for _, k := range sortedKeys(st.Skipped) {
			parts = append(parts, fmt.Sprintf("%s %d", k, st.Skipped[k]))
		}
		fmt.Fprintf(w, "           skipped: %s\n", strings.Join(parts, ", "))
	}
	fmt.Fprintf(w, "           %-14s %6s %8s %6s %6s %6s %6s\n", "tokens", "min", "mean", "p50", "p90", "p99", "max")
	for _, row := range []struct {
		name string
		l    dataset.LengthStats
	}{{"prompt", st.PromptLen}, {"output", st.OutputLen}} {
		fmt.Fprintf(w, "           %-14s %6d %8.1f %6d %6d %6d %6d\n", row.name, row.l.Min, row.l.Mean, row.l.P50, row.l.P90, row.l.P99, row.l.Max)
	}
}

func writeLoadPlan(w io.Writer, s *scenario.Scenario, nPrompts int, sched []time.Duration) {
	if s.Warmup > 0 {
		fmt.Fprintf(w, "  Warmup:  %d requests first, not measured\n", s.Warmup)
	}
	if r := s.Replay; r != nil {
		writeReplayPlan(w, s, r, sched)
		return
	}
	if o := s.OpenLoop; o != nil {
		fmt.Fprintf(w, "  Load:    open loop, %s arrivals", o.Arrival)
		if math.IsInf(o.Rate, 1) {
			fmt.Fprint(w, ", all at once (rate inf)")
		} else {
			fmt.Fprintf(w, " at %g req/s", o.Rate)
			if o.Arrival == "gamma" || o.Arrival == "poisson" {
				fmt.Fprintf(w, " (burstiness %g)", o.Burstiness)
			}
		}
		if o.MaxConcurrency > 0 {
			fmt.Fprintf(w, ", at most %d in flight", o.MaxConcurrency)
		}
		fmt.Fprintln(w)
		if s.Duration > 0 {
			fmt.Fprintf(w, "           stops dispatching after %v\n", s.Duration)
		}
		last := time.Duration(0)
		if len(sched) > 0 {
			last = sched[len(sched)-1]
		}
		fmt.Fprintf(w, "           %d requests over %s of arrivals (seed %d), from %d sampled prompts\n", len(sched), last.Round(time.Millisecond), s.Seed, nPrompts)
		return
	}
	c := s.ClosedLoop
	fmt.Fprintf(w, "  Load:    closed loop, %d stage(s)", len(c.Stages))
	if c.ThinkMax > 0 {
		if c.ThinkMin == c.ThinkMax {
			fmt.Fprintf(w, ", think time %v", c.ThinkMin)
		} else {
			fmt.Fprintf(w, ", think time %v to %v", c.ThinkMin, c.ThinkMax)
		}
	} else {
		fmt.Fprint(w, ", no think time")
	}
	fmt.Fprintln(w)
	var total time.Duration
	for i, st := range c.Stages {
		ramp := ""
		if st.Ramp > 0 {
			ramp = fmt.Sprintf(" (ramp %v)", st.Ramp)
		}
		length := "until the run stops"
		if st.Duration > 0 {
			length = "for " + st.Duration.String()
		}
		fmt.Fprintf(w, "           stage %d: %4d users %s%s, from t=%v\n", i+1, st.Users, length, ramp, total)
		total += st.Duration
	}
	if s.Duration > 0 && (total == 0 || s.Duration < total) {
		if total > 0 {
			fmt.Fprintf(w, "           cut at %v by the scenario's duration: later stages do not run\n", s.Duration)
		}
		total = s.Duration
	}
	var stops []string
	if total > 0 {
		stops = append(stops, total.String())
	}
	if s.Requests > 0 {
		stops = append(stops, fmt.Sprintf("%d requests", s.Requests))
	}
	fmt.Fprintf(w, "           stops after %s", strings.Join(stops, " or "))
	if len(stops) > 1 {
		fmt.Fprint(w, ", whichever comes first")
	}
	fmt.Fprintln(w)
}

// writeReplayPlan says what a replay sends: the slice, the speed and the
// arrival-rate profile of the schedule, in requests per minute of replayed
// time.
func writeReplayPlan(w io.Writer, s *scenario.Scenario, r *scenario.Replay, sched []time.Duration) {
	fmt.Fprintf(w, "  Load:    replay of the trace's recorded times at speed %g", r.Speed)
	if r.MaxConcurrency > 0 {
		fmt.Fprintf(w, ", at most %d in flight", r.MaxConcurrency)
	}
	fmt.Fprintln(w)
	slice := fmt.Sprintf("from %v", r.Start)
	if r.Window > 0 {
		slice += fmt.Sprintf(" for %v", r.Window)
	} else {
		slice += " to the end"
	}
	fmt.Fprintf(w, "           slice of the trace %s (recorded time)\n", slice)
	if s.Duration > 0 {
		fmt.Fprintf(w, "           stops dispatching after %v\n", s.Duration)
	}
	if len(sched) == 0 {
		fmt.Fprintln(w, "           no request to send")
		return
	}
	last := sched[len(sched)-1]
	fmt.Fprintf(w, "           %d requests over %s of arrivals\n", len(sched), last.Round(time.Millisecond))
	lo, mean, hi, whole := rateProfile(sched)
	if whole {
		fmt.Fprintf(w, "           arrival rate per minute of the replay: min %.0f, mean %.1f, max %.0f\n", lo, mean, hi)
	} else {
		fmt.Fprintf(w, "           arrival rate per minute of the replay: mean %.1f (no whole minute for a min and max)\n", mean)
	}
}

// rateProfile counts a schedule's arrivals in each minute from 0: the
// smallest and largest count of a whole minute (whole is false when the
// schedule ends within its first minute), and the mean rate per minute
// over the schedule's span.
func rateProfile(sched []time.Duration) (lo, mean, hi float64, whole bool) {
	last := sched[len(sched)-1]
	counts := make([]int, int(last/time.Minute)+1)
	for _, at := range sched {
		counts[int(at/time.Minute)]++
	}
	counts = counts[:len(counts)-1] // the last minute is partial
	lo = math.Inf(1)
	for _, c := range counts {
		lo, hi = min(lo, float64(c)), max(hi, float64(c))
	}
	mean = 60 * executor.MeanRate(sched)
	if mean == 0 {
		mean = float64(len(sched)) // all at once
	}
	return lo, mean, hi, len(counts) > 0
}

func writeChecksPlan(w io.Writer, cfg *scenario.Config, s *scenario.Scenario) {
	g := s.Goodput
	var slo []string
	for _, x := range []struct {
		name string
		d    time.Duration
	}{{"TTFT", g.TTFT}, {"TPOT", g.TPOT}, {"every ITL", g.ITL}, {"E2EL", g.E2EL}} {
		if x.d > 0 {
			slo = append(slo, fmt.Sprintf("%s <= %v", x.name, x.d))
		}
	}
	if len(slo) > 0 {
		fmt.Fprintf(w, "  Goodput: a request is good when it succeeds, is not truncated, and %s\n", strings.Join(slo, " and "))
	}
	if len(s.SLA) == 0 && len(s.Asserts) == 0 {
		fmt.Fprintln(w, "  Checks:  none (the run always passes unless no request completes)")
		return
	}
	fmt.Fprintln(w, "  Checks:")
	keyWidth := 18 // the widest key, at least as wide as the goldens' column
	for _, c := range s.SLA {
		keyWidth = max(keyWidth, len(c.Key))
	}
	for _, c := range s.SLA {
		note := ""
		switch {
		case c.Default && c.Metric == "error_rate":
			note = " (the default error budget)"
		case c.Default:
			note = " (by default; not with ignore_eos)"
		}
		if p, ok := metrics.StatPercentile(c.Stat); ok {
			need := int64(s.MinSamples)
			if need == 0 {
				need = metrics.MinSamples(p)
			}
			note += fmt.Sprintf(" (inconclusive under %d samples)", need)
		}
		fmt.Fprintf(w, "           sla %-*s %s%s\n", keyWidth, c.Key, c.Describe(), note)
	}
	for _, a := range s.Asserts {
		fmt.Fprintf(w, "           assert %q: %s\n", a.Name, exprSource(cfg, a))
	}
	judged := "by the measured figure"
	if s.Verdict == scenario.VerdictStrict {
		judged = `by the whole 95% interval of each percentile (verdict = "strict")`
	}
	exit := "3"
	if s.AllowInconclusive {
		exit = "0 (allow_inconclusive)"
	}
	fmt.Fprintf(w, "  Verdict: %s; an inconclusive check exits %s\n", judged, exit)
	v := s.Validity
	fmt.Fprintf(w, "  Valid when: achieved rate at most %g%% under the schedule's, dispatch lag p99 <= %v, client CPU <= %g%%, token counts differing on <= %g%% of requests, answers from another model on <= %g%%, output over max_tokens on <= %g%%, no request failed for the client's own limits\n",
		100*v.MaxRateShortfall, v.MaxLagP99, 100*v.MaxClientCPU, 100*v.MaxTokenMismatch, 100*v.MaxOtherModel, 100*v.MaxOverMaxTokens)
}

// exprSource returns an assert condition as written in its file.
func exprSource(cfg *scenario.Config, a *scenario.Assert) string {
	r := a.Condition.Range()
	if f, ok := cfg.Files[r.Filename]; ok && r.End.Byte <= len(f.Bytes) && r.Start.Byte <= r.End.Byte {
		return strings.Join(strings.Fields(string(f.Bytes[r.Start.Byte:r.End.Byte])), " ")
	}
	return r.String()
}

// writeSweepPlan describes a sweep's steps or a capacity search's probes.
func writeSweepPlan(w io.Writer, s *scenario.Scenario) {
	if s.Warmup > 0 {
		fmt.Fprintf(w, "  Warmup:  %d requests before the first step, not measured\n", s.Warmup)
	}
	var shape string
	switch s.Varies() {
	case scenario.VaryUsers:
		shape = "closed loop"
		if c := s.ClosedLoop; c.ThinkMax > 0 && c.ThinkMax > c.ThinkMin {
			shape += fmt.Sprintf(", think time %v to %v", c.ThinkMin, c.ThinkMax)
		} else if c.ThinkMax > 0 {
			shape += fmt.Sprintf(", think time %v", c.ThinkMin)
		} else {
			shape += ", no think time"
		}
	default:
		o := s.OpenLoop
		shape = "open loop, " + o.Arrival + " arrivals"
		if s.Varies() == scenario.VaryMaxConcurrency {
			if math.IsInf(o.Rate, 1) {
				shape += ", all at once"
			} else {
				shape += fmt.Sprintf(" at %g req/s", o.Rate)
			}
		}
	}
	length := func(d time.Duration, n int) string {
		var parts []string
		if d > 0 {
			parts = append(parts, d.String())
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d requests", n))
		}
		return strings.Join(parts, " or ")
	}
	if sw := s.Sweep; sw != nil {
		vals := make([]string, len(sw.Values))
		for i, v := range sw.Values {
			vals[i] = fmt.Sprintf("%g", v)
		}
		fmt.Fprintf(w, "  Load:    sweep over %s: %s (%s)\n", sw.Vary, strings.Join(vals, ", "), shape)
		fmt.Fprintf(w, "           each step runs for %s", length(sw.Duration, sw.Requests))
		if sw.Cooldown > 0 {
			fmt.Fprintf(w, ", %v apart", sw.Cooldown)
		}
		fmt.Fprintf(w, "; the knee is where output tok/s per added unit falls under %g%% of the first step's\n", 100*sw.KneeShare)
		return
	}
	c := s.Capacity
	fmt.Fprintf(w, "  Load:    capacity search over %s from %g to %g (%s): doubling from %g until a probe fails, then bisection to %g%%\n",
		c.Vary, c.Min, c.Max, shape, c.Min, 100*c.Precision)
	fmt.Fprintf(w, "           each probe runs for %s", length(c.Duration, c.Requests))
	if c.MinRequests > 0 {
		fmt.Fprintf(w, ", and at least %d requests", c.MinRequests)
	}
	if c.MaxProbes > 0 {
		fmt.Fprintf(w, "; at most %d probes", c.MaxProbes)
	}
	fmt.Fprintln(w)
}

// writeRepeatPlan says how plan's schedule is repeated or interleaved.
func writeRepeatPlan(w io.Writer, s *scenario.Scenario, arrivals []time.Duration) {
	switch {
	case s.Repeats() > 1 && s.Varies() != "":
		fmt.Fprintf(w, "  Repeat:  %d runs of each step, %v apart; checks judge each step's runs pooled, and each run alone for the spread\n", s.Repeats(), s.Cooldown)
	case s.Repeats() > 1:
		fmt.Fprintf(w, "  Repeat:  %d runs, %v apart; checks judge them pooled, compare uses their spread\n", s.Repeats(), s.Cooldown)
	}
	unit := "run"
	if s.AB() {
		b := s.BaselineTarget
		fmt.Fprintf(w, "  A/B:     baseline arm %s at %s; candidate arm %s (the target above)\n", b.Name, RedactURL(b.BaseURL), s.Target.Name)
		fmt.Fprintf(w, "           %d blocks of %s of the schedule, each sent to both arms, alternating which goes first; baseline.* and the regression block read the baseline arm\n",
			ABBlocks(arrivals, s.Interleave), s.Interleave)
		unit = "block"
	}
	if s.Budget != nil {
		fmt.Fprintf(w, "  Budget:  %s: the run stops before a %s that would not fit\n", s.Budget, unit)
	}
	if s.StopEarly {
		fmt.Fprintf(w, "  Stop:    early: after every %s from the second, the regression block is judged by a sequential gate (alpha spending, 95%% over all looks) and the run stops once it is decided\n", unit)
	}
}

// promptCacheMeaning says what a target's prompt_cache does.
func promptCacheMeaning(policy string) string {
	switch policy {
	case scenario.PromptCacheIsolate:
		return `isolate, a cache_salt of each run's own: prompts share prefixes within a run, never across runs, repeats or A/B arms (vLLM; refused on llama.cpp and Ollama)`
	case scenario.PromptCacheOff:
		return `off, no request served from the cache (cache_prompt = false on llama.cpp, a cache_salt of each request's own elsewhere; refused on Ollama)`
	}
	return `shared, the engine's default: a run, repeat or A/B arm may find the prompts of the ones before it cached (prompt_cache = "isolate" or "off")`
}

// turnThink says how long a session pauses between its turns.
func turnThink(s *scenario.Scenario) string {
	switch s.TurnThink {
	case scenario.ThinkRecorded:
		return "turn think time as the dataset recorded it"
	case scenario.ThinkExponential:
		t := fmt.Sprintf("turn think time exponential, mean %v", s.TurnThinkMean)
		if s.TurnThinkMin > 0 {
			t += fmt.Sprintf(", from %v", s.TurnThinkMin)
		}
		if s.TurnThinkMax > 0 {
			t += fmt.Sprintf(", at most %v", s.TurnThinkMax)
		}
		return t
	}
	switch {
	case s.TurnThinkMax == 0:
		return "no think time"
	case s.TurnThinkMax > s.TurnThinkMin:
		return fmt.Sprintf("turn think time %v to %v", s.TurnThinkMin, s.TurnThinkMax)
	}
	return fmt.Sprintf("turn think time %v", s.TurnThinkMin)
}
