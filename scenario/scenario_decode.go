package scenario

import (
	"fmt"
	"math"
	"math/big"
	"net"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/llmload/llmload/compare"
	"github.com/llmload/llmload/metrics"
)

var scenarioSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "target"}, {Name: "targets"}, {Name: "interleave"}, {Name: "repeat"}, {Name: "cooldown"},
		{Name: "dataset", Required: true},
		{Name: "requests"}, {Name: "duration"}, {Name: "seed"}, {Name: "start_at"},
		{Name: "percentiles"}, {Name: "percentile_metrics"}, {Name: "result_filename"}, {Name: "save_detailed"}, {Name: "metrics_addr"},
		{Name: "verdict"}, {Name: "min_samples"}, {Name: "allow_inconclusive"},
		{Name: "preflight"}, {Name: "ready_timeout"},
		{Name: "baseline"}, {Name: "baseline_optional"},
		{Name: "history"}, {Name: "turn_think_time"},
	},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "open_loop"}, {Type: "closed_loop"}, {Type: "replay"}, {Type: "warmup"}, {Type: "sla"}, {Type: "goodput"}, {Type: "validity"}, {Type: "regression"},
		{Type: "abort_on"}, {Type: "abandon"},
		{Type: "assert", LabelNames: []string{"name"}}, {Type: "sweep"}, {Type: "capacity"},
	},
}

var openLoopSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "rate"}, {Name: "arrival"}, {Name: "burstiness"}, {Name: "max_concurrency"},
	},
}

var replaySchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "speed"}, {Name: "start"}, {Name: "window"}, {Name: "max_concurrency"}},
}

var closedLoopSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "users"}, {Name: "duration"}, {Name: "think_time"}, {Name: "backoff"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "stage"}},
}

var stageSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "users", Required: true}, {Name: "duration", Required: true}, {Name: "ramp"}},
}

var abandonSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "share", Required: true}, {Name: "after_tokens"}, {Name: "after"}},
}

var abortOnSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "error_rate", Required: true}, {Name: "min_requests"}},
}

var warmupSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "requests", Required: true}},
}

var goodputSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "ttft"}, {Name: "tpot"}, {Name: "itl"}, {Name: "e2el"}},
}

var validitySchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "max_rate_shortfall"}, {Name: "max_lag_p99"}, {Name: "max_client_cpu"}, {Name: "max_token_mismatch"}},
}

var assertSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "condition", Required: true}, {Name: "error_message"}},
}

var slaSchema = func() *hcl.BodySchema {
	s := &hcl.BodySchema{}
	for _, k := range slaKeys() {
		s.Attributes = append(s.Attributes, hcl.AttributeSchema{Name: k})
	}
	return s
}()

func (l *loader) decodeScenario(d dec, filename string, b *hcl.Block) {
	name := b.Labels[0]
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") {
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError, Summary: "Invalid name",
			Detail:  "A scenario needs a non-empty name that can name its result files (<name>.json): no / or \\, and not . or ..",
			Subject: b.LabelRanges[0].Ptr(),
		})
		return
	}
	if first := l.cfg.Scenario(name); first != nil {
		l.duplicate(b, first.DeclRange)
		return
	}
	s := &Scenario{
		Name: name, DeclRange: b.DefRange, File: filename, Verdict: VerdictPoint, Validity: DefaultValidity, Preflight: true,
		Percentiles:       slices.Clone(DefaultPercentiles),
		PercentileMetrics: slices.Clone(DefaultPercentileMetrics),
	}
	l.cfg.Scenarios = append(l.cfg.Scenarios, s)

	content, diags := b.Body.Content(scenarioSchema)
	l.diags = append(l.diags, diags...)
	a := content.Attributes
	l.decodeArms(d, a, s, b)
	if attr, ok := a["dataset"]; ok {
		if n := l.reference(attr, "dataset", mapKeys(l.datasets)); n != "" {
			s.Dataset = l.datasets[n]
		}
	}
	d.integer(a, "requests", &s.Requests, 1)
	d.duration(a, "duration", &s.Duration, true)
	d.int64(a, "seed", &s.Seed, minInt64)
	if s.Dataset != nil && !s.Dataset.seedSet {
		// One seed for the prompts and the arrivals, as vLLM's --seed.
		s.Dataset = s.Dataset.withSeed(s.Seed)
	}
	l.decodeReportOptions(d, a, s)
	if attr := d.str(a, "metrics_addr", &s.MetricsAddr); attr != nil && s.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(s.MetricsAddr); err != nil {
			d.invalid(attr, "metrics_addr is host:port, such as \"127.0.0.1:9464\": %v.", err)
		}
	}
	d.oneOf(a, "verdict", &s.Verdict, VerdictPoint, VerdictStrict)
	d.integer(a, "min_samples", &s.MinSamples, 1)
	d.boolean(a, "allow_inconclusive", &s.AllowInconclusive)
	if attr := d.str(a, "baseline", &s.Baseline); attr != nil && s.Baseline != "" {
		s.Baseline = resolvePath(filepath.Dir(filename), s.Baseline)
	}
	d.boolean(a, "baseline_optional", &s.BaselineOptional)
	var startAt string
	if attr := d.str(a, "start_at", &startAt); attr != nil && startAt != "" {
		t, err := time.Parse(time.RFC3339Nano, startAt)
		if err != nil {
			d.invalid(attr, "start_at %q is not an RFC 3339 time: want one such as \"2026-12-01T10:00:00Z\".", startAt)
		} else {
			s.StartAt = t
		}
	}
	d.boolean(a, "preflight", &s.Preflight)
	if attr := d.duration(a, "ready_timeout", &s.ReadyTimeout, false); attr != nil && !s.Preflight {
		d.invalid(attr, "ready_timeout is how long the preflight probe waits for the target; it has no use with preflight = false.")
	}
	if ab := atMostOne(&l.diags, content.Blocks.OfType("abort_on"), "a scenario"); ab != nil {
		s.AbortOn = l.decodeAbortOn(d, ab)
	}
	if ab := atMostOne(&l.diags, content.Blocks.OfType("abandon"), "a scenario"); ab != nil {
		s.Abandon = l.decodeAbandon(d, ab)
	}

	sweep := atMostOne(&l.diags, content.Blocks.OfType("sweep"), "a scenario")
	capacity := atMostOne(&l.diags, content.Blocks.OfType("capacity"), "a scenario")
	var varied hcl.Range
	switch {
	case sweep != nil && capacity != nil:
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Conflicting blocks",
			Detail:   fmt.Sprintf("A scenario has at most one of sweep and capacity; a sweep block was declared at %s.", sweep.DefRange),
			Subject:  capacity.DefRange.Ptr(),
		})
		fallthrough
	case sweep != nil:
		s.Sweep = l.decodeSweep(d, sweep)
		varied = sweep.DefRange
	case capacity != nil:
		s.Capacity = l.decodeCapacity(d, capacity)
		varied = capacity.DefRange
	}
	vary := s.Varies()

	open := atMostOne(&l.diags, content.Blocks.OfType("open_loop"), "a scenario")
	closed := atMostOne(&l.diags, content.Blocks.OfType("closed_loop"), "a scenario")
	replay := atMostOne(&l.diags, content.Blocks.OfType("replay"), "a scenario")
	var loads []*hcl.Block
	for _, b := range []*hcl.Block{open, closed, replay} {
		if b != nil {
			loads = append(loads, b)
		}
	}
	sort.Slice(loads, func(i, j int) bool { return loads[i].DefRange.Start.Byte < loads[j].DefRange.Start.Byte })
	switch {
	case len(loads) > 1:
		for _, second := range loads[1:] {
			l.diags = append(l.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Conflicting load blocks",
				Detail:   fmt.Sprintf("A scenario has exactly one of open_loop, closed_loop and replay; %s was already declared at %s.", loads[0].Type, loads[0].DefRange),
				Subject:  second.DefRange.Ptr(),
			})
		}
	case replay != nil:
		s.Replay = l.decodeReplay(d, replay)
		switch {
		case s.Dataset == nil:
		case s.Dataset.Trace == nil:
			l.diags = append(l.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Replay without a trace",
				Detail:   fmt.Sprintf("A replay sends requests at the times a trace recorded; dataset %q is a %s source, which records none. Use a trace dataset, or an open_loop.", s.Dataset.Name, s.Dataset.Kind),
				Subject:  replay.DefRange.Ptr(),
			})
		default:
			// This scenario's copy of the dataset holds its slice, so that only
			// the slice's prompts are built.
			s.Dataset = s.Dataset.withSlice(s.Replay.Start, s.Replay.Window)
		}
	case open != nil:
		s.OpenLoop = l.decodeOpenLoop(d, open, vary)
	case closed != nil:
		s.ClosedLoop = l.decodeClosedLoop(d, closed, vary)
		s.closedRange = closed.DefRange.Ptr()
		if cl := s.ClosedLoop; vary == "" && len(cl.Stages) > 0 && cl.Duration == 0 && s.Requests == 0 && s.Duration == 0 {
			l.diags = append(l.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Closed loop without an end",
				Detail:   "Users send requests until something stops them: give closed_loop a duration, or the scenario a duration or requests.",
				Subject:  closed.DefRange.Ptr(),
			})
		}
	case sweep != nil || capacity != nil:
		// The sweep or capacity block makes the load block.
	default:
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Missing load block",
			Detail:   "A scenario needs one open_loop block (requests at a rate), one closed_loop block (users) or one replay block (a trace's own times).",
			Subject:  b.DefRange.Ptr(),
		})
	}

	switch {
	case vary != "" && replay != nil:
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Conflicting load",
			Detail:   fmt.Sprintf("The %s at %s varies %s; a replay sends a trace at its own times, so there is nothing to vary: use replay's speed, or an open_loop.", blockName(s), varied, vary),
			Subject:  replay.DefRange.Ptr(),
		})
	case vary != "":
		block := open
		if block == nil {
			block = closed
		}
		l.checkVaried(s, block, varied)
		l.checkStepLength(s)
	}

	l.decodeSessions(d, a, s)
	l.decodeRepeat(d, a, s)

	if w := atMostOne(&l.diags, content.Blocks.OfType("warmup"), "a scenario"); w != nil {
		c, diags := w.Body.Content(warmupSchema)
		l.diags = append(l.diags, diags...)
		d.integer(c.Attributes, "requests", &s.Warmup, 0)
	}
	if g := atMostOne(&l.diags, content.Blocks.OfType("goodput"), "a scenario"); g != nil {
		c, diags := g.Body.Content(goodputSchema)
		l.diags = append(l.diags, diags...)
		d.duration(c.Attributes, "ttft", &s.Goodput.TTFT, true)
		d.duration(c.Attributes, "tpot", &s.Goodput.TPOT, true)
		d.duration(c.Attributes, "itl", &s.Goodput.ITL, true)
		d.duration(c.Attributes, "e2el", &s.Goodput.E2EL, true)
		if len(c.Attributes) == 0 && !diags.HasErrors() {
			l.diags = append(l.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Empty goodput block",
				Detail:   "A goodput block sets at least one per-request objective: ttft, tpot, itl or e2el.",
				Subject:  g.DefRange.Ptr(),
			})
		}
	}
	if sb := atMostOne(&l.diags, content.Blocks.OfType("sla"), "a scenario"); sb != nil {
		l.decodeSLA(d, s, sb)
	}
	addDefaultChecks(s)
	if vb := atMostOne(&l.diags, content.Blocks.OfType("validity"), "a scenario"); vb != nil {
		l.decodeValidity(d, s, vb)
	}
	if rb := atMostOne(&l.diags, content.Blocks.OfType("regression"), "a scenario"); rb != nil {
		l.decodeRegression(d, s, rb)
	}
	for _, ab := range content.Blocks.OfType("assert") {
		l.decodeAssert(d, s, ab)
	}
}

// decodeRegression reads a regression block: figure = "tolerance", the
// same rules as llmload compare's -max-regression.
func (l *loader) decodeRegression(d dec, s *Scenario, b *hcl.Block) {
	attrs, diags := b.Body.JustAttributes()
	l.diags = append(l.diags, diags...)
	for _, attr := range sortedAttrs(attrs) {
		var v string
		if d.str(attrs, attr.Name, &v) == nil {
			continue
		}
		t, err := compare.ParseTolerance(attr.Name, v)
		if err != nil {
			l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid regression tolerance", Detail: err.Error() + ".", Subject: attr.Range.Ptr()})
			continue
		}
		s.Regression = append(s.Regression, RegressionRule{Tolerance: t, Range: attr.Range})
	}
	if len(attrs) == 0 && !diags.HasErrors() {
		l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Empty regression block",
			Detail: "A regression block sets at least one tolerance, such as ttft_p99 = \"10%\".", Subject: b.DefRange.Ptr()})
	}
}

// decodeReportOptions reads what the scenario asks of its result: vLLM's
// percentile choices, the result file's name and the per-request arrays.
func (l *loader) decodeReportOptions(d dec, a hcl.Attributes, s *Scenario) {
	decodePercentiles(d, a, s)
	decodePercentileMetrics(d, a, s)
	if attr := d.str(a, "result_filename", &s.ResultFilename); attr != nil {
		n := s.ResultFilename
		switch {
		case n == "" || n == "." || n == ".." || n == ".json" || strings.ContainsAny(n, "/\\\x00"):
			d.invalid(attr, "result_filename is a file name (no directory: llmload run -out DIR chooses it), such as \"vllm-10qps.json\"; got %q.", n)
			s.ResultFilename = ""
		case strings.HasSuffix(n, ".requests.jsonl"):
			d.invalid(attr, "result_filename %q would be taken for a requests file; name the result file, such as \"run.json\".", n)
			s.ResultFilename = ""
		default:
			s.resultRange = attr.Expr.Range().Ptr()
		}
	}
	d.boolean(a, "save_detailed", &s.SaveDetailed)
}

// decodePercentiles reads vLLM's --metric-percentiles.
func decodePercentiles(d dec, a hcl.Attributes, s *Scenario) {
	v, attr, ok := d.value(a, "percentiles", cty.List(cty.Number))
	if !ok {
		return
	}
	var ps []float64
	for _, e := range v.AsValueSlice() {
		if e.IsNull() {
			continue
		}
		p, _ := e.AsBigFloat().Float64()
		if p < 0 || p > 100 {
			d.invalid(attr, "a percentile is from 0 to 100, not %g.", p)
			return
		}
		ps = append(ps, p)
	}
	if len(ps) == 0 {
		d.invalid(attr, "percentiles lists at least one percentile, such as [50, 90, 99].")
		return
	}
	s.Percentiles = ps
}

// decodePercentileMetrics reads vLLM's --percentile-metrics.
func decodePercentileMetrics(d dec, a hcl.Attributes, s *Scenario) {
	v, attr, ok := d.value(a, "percentile_metrics", cty.List(cty.String))
	if !ok {
		return
	}
	var ms []string
	for _, e := range v.AsValueSlice() {
		if e.IsNull() {
			continue
		}
		m := e.AsString()
		if !slices.Contains(DefaultPercentileMetrics, m) {
			d.invalid(attr, "%s", choiceDetail("a percentile metric", m, DefaultPercentileMetrics))
			return
		}
		ms = append(ms, m)
	}
	if len(ms) == 0 {
		d.invalid(attr, `percentile_metrics lists at least one of "ttft", "tpot", "itl" and "e2el".`)
		return
	}
	s.PercentileMetrics = ms
}

// checkResultFiles reports scenarios that would write the same result file
// into one output directory.
func (l *loader) checkResultFiles() {
	first := map[string]*Scenario{}
	for _, s := range l.cfg.Scenarios {
		name := resultFile(s)
		o, dup := first[name]
		if !dup {
			first[name] = s
			continue
		}
		subject := s.DeclRange.Ptr()
		if s.resultRange != nil {
			subject = s.resultRange
		} else if o.resultRange != nil {
			subject = o.resultRange
		}
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Duplicate result file",
			Detail:   fmt.Sprintf("Scenarios %q and %q would both write %s into the output directory; give one of them another result_filename.", o.Name, s.Name, name),
			Subject:  subject,
		})
	}
}

// resultFile is the name of a scenario's result file.
func resultFile(s *Scenario) string {
	if s.ResultFilename != "" {
		return s.ResultFilename
	}
	return s.Name + ".json"
}

// ResultFile is the name of the scenario's result file in the output
// directory: result_filename, else <name>.json.
func (s *Scenario) ResultFile() string { return resultFile(s) }

// RequestsFile is the name of the scenario's requests file: the result
// file's name without ".json", then ".requests.jsonl".
func (s *Scenario) RequestsFile() string {
	return strings.TrimSuffix(resultFile(s), ".json") + ".requests.jsonl"
}

func mapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// reference resolves `target = target.<name>` by name, without evaluating
// it. It returns "" after reporting a problem.
func (l *loader) reference(attr *hcl.Attribute, kind string, names []string) string {
	tr, diags := hcl.AbsTraversalForExpr(attr.Expr)
	if diags.HasErrors() || len(tr) != 2 || tr.RootName() != kind || attrName(tr[1]) == "" {
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid reference",
			Detail:   fmt.Sprintf("The %s argument refers to a %s block by name, as %s.<name>.", kind, kind, kind),
			Subject:  attr.Expr.Range().Ptr(),
		})
		return ""
	}
	name := attrName(tr[1])
	if !slices.Contains(names, name) {
		detail := fmt.Sprintf("No %s block named %q is declared.", kind, name)
		if s := suggest(name, names); s != "" {
			detail += fmt.Sprintf(" Did you mean %s.%s?", kind, s)
		}
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Reference to undeclared " + kind,
			Detail:   detail,
			Subject:  attr.Expr.Range().Ptr(),
		})
		return ""
	}
	return name
}

func (l *loader) decodeOpenLoop(d dec, b *hcl.Block, vary string) *OpenLoop {
	o := &OpenLoop{Arrival: ArrivalPoisson, Burstiness: 1}
	c, diags := b.Body.Content(openLoopSchema)
	l.diags = append(l.diags, diags...)
	a := c.Attributes
	if attr, ok := a["rate"]; ok {
		o.Rate = l.decodeRate(d, attr)
	} else if vary != VaryRate && vary != VaryMaxConcurrency {
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Missing required argument",
			Detail:   `The argument "rate" is required, but no definition was found.`,
			Subject:  b.Body.MissingItemRange().Ptr(),
		})
	}
	d.oneOf(a, "arrival", &o.Arrival, ArrivalPoisson, ArrivalGamma, ArrivalConstant)
	if attr := d.float(a, "burstiness", &o.Burstiness); attr != nil {
		switch {
		case o.Burstiness <= 0:
			d.invalid(attr, "burstiness (the gamma shape) must be more than 0, not %g.", o.Burstiness)
		case o.Burstiness != 1 && o.Arrival != ArrivalGamma:
			d.invalid(attr, "burstiness is the shape of gamma arrivals: set arrival = %q to use it (%q is burstiness 1).", ArrivalGamma, o.Arrival)
		}
	}
	d.integer(a, "max_concurrency", &o.MaxConcurrency, 1)
	return o
}

func (l *loader) decodeReplay(d dec, b *hcl.Block) *Replay {
	r := &Replay{Speed: 1}
	c, diags := b.Body.Content(replaySchema)
	l.diags = append(l.diags, diags...)
	a := c.Attributes
	if attr := d.float(a, "speed", &r.Speed); attr != nil && !(r.Speed > 0) {
		d.invalid(attr, "speed divides the recorded times (2 replays twice as fast); it must be more than 0, not %g.", r.Speed)
	}
	d.duration(a, "start", &r.Start, false)
	d.duration(a, "window", &r.Window, true)
	d.integer(a, "max_concurrency", &r.MaxConcurrency, 1)
	return r
}

// decodeSessions reads how multi-turn sessions run: history and
// turn_think_time, which need a multi-turn dataset, and the chat API.
func (l *loader) decodeSessions(d dec, a hcl.Attributes, s *Scenario) {
	multi := s.Dataset != nil && s.Dataset.MultiTurn()
	if attr := d.str(a, "history", &s.History); attr != nil {
		switch {
		case s.History != HistoryGenerated && s.History != HistoryRecorded:
			d.invalid(attr, "%s", choiceDetail("history", s.History, []string{HistoryGenerated, HistoryRecorded}))
			s.History = ""
		case !multi && s.Dataset != nil:
			d.invalid(attr, "history says what multi-turn sessions send as earlier replies; dataset %q has none (set multi_turn = true on its sharegpt or jsonl source).", s.Dataset.Name)
		}
	}
	if attr, ok := a["turn_think_time"]; ok {
		s.TurnThinkMin, s.TurnThinkMax = l.decodeThinkTime(d, attr)
		if !multi && s.Dataset != nil {
			d.invalid(attr, "turn_think_time is the pause between the turns of multi-turn sessions; dataset %q has none (set multi_turn = true on its sharegpt or jsonl source).", s.Dataset.Name)
		}
	}
	if multi && s.History == "" {
		s.History = HistoryGenerated
	}
	if multi && s.Target != nil && s.Target.API != APIChat {
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Multi-turn sessions need the chat API",
			Detail:   fmt.Sprintf("Dataset %q replays conversations, which only the chat API (api = %q) can send; target %q uses %q.", s.Dataset.Name, APIChat, s.Target.Name, s.Target.API),
			Subject:  s.Dataset.multiTurn,
		})
	}
}

// decodeRate accepts a number > 0 or "inf".
func (l *loader) decodeRate(d dec, attr *hcl.Attribute) float64 {
	v, ok := d.eval(attr.Expr)
	if !ok || v.IsNull() {
		return 0
	}
	if v.Type() == cty.String && v.AsString() == "inf" {
		return math.Inf(1)
	}
	if v.Type() == cty.String {
		// An untyped variable set by -var or LLMLOAD_VAR_ is a string, as
		// for every other number attribute.
		if n, err := convert.Convert(v, cty.Number); err == nil {
			v = n
		}
	}
	if v.Type() != cty.Number {
		d.invalid(attr, `rate is a number of requests per second, or "inf" to send every request at once.`)
		return 0
	}
	f, _ := v.AsBigFloat().Float64()
	if f <= 0 || math.IsInf(f, 0) {
		d.invalid(attr, `rate must be more than 0 requests per second, not %g; use "inf" to send every request at once.`, f)
		return 0
	}
	return f
}

func (l *loader) decodeAbortOn(d dec, b *hcl.Block) *AbortOn {
	ab := &AbortOn{MinRequests: DefaultAbortOnMinRequests, DeclRange: b.DefRange}
	c, diags := b.Body.Content(abortOnSchema)
	l.diags = append(l.diags, diags...)
	if attr := d.float(c.Attributes, "error_rate", &ab.ErrorRate); attr != nil && (ab.ErrorRate < 0 || ab.ErrorRate >= 1) {
		d.invalid(attr, "error_rate is the fraction of failed requests over which the run stops, from 0 (any failure) up to but not including 1; not %g.", ab.ErrorRate)
	}
	d.integer(c.Attributes, "min_requests", &ab.MinRequests, 1)
	return ab
}

// decodeAbandon reads the abandon block: a share in (0, 1] and exactly one
// range, after_tokens (two whole numbers of tokens, at least 1) or after
// (two durations).
func (l *loader) decodeAbandon(d dec, b *hcl.Block) *Abandon {
	ab := &Abandon{DeclRange: b.DefRange}
	c, diags := b.Body.Content(abandonSchema)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return nil
	}
	if attr := d.float(c.Attributes, "share", &ab.Share); attr != nil && !(ab.Share > 0 && ab.Share <= 1) {
		d.invalid(attr, "share is the fraction of requests abandoned, more than 0 and at most 1; not %g.", ab.Share)
	}
	tokens, after := c.Attributes["after_tokens"], c.Attributes["after"]
	if (tokens == nil) == (after == nil) {
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid abandon block",
			Detail:   `An abandon block says when a reader leaves with exactly one of after_tokens (a range of output tokens, [20, 200]) and after (a range of time since the request was sent, ["1s", "5s"]).`,
			Subject:  b.DefRange.Ptr(),
		})
		return ab
	}
	pair := func(attr *hcl.Attribute, what string) []cty.Value {
		v, ok := d.eval(attr.Expr)
		if !ok || v.IsNull() {
			return nil
		}
		ty := v.Type()
		if !(ty.IsTupleType() || ty.IsListType()) || v.LengthInt() != 2 {
			d.invalid(attr, "%s is a range of two values, the least and the most, such as %s.", attr.Name, what)
			return nil
		}
		return v.AsValueSlice()
	}
	if tokens != nil {
		bad := func() {
			d.invalid(tokens, "after_tokens is a range of two whole numbers of output tokens, at least 1 and the least first, such as [20, 200].")
		}
		vs := pair(tokens, "[20, 200]")
		if vs == nil {
			return ab
		}
		for i, v := range vs {
			if v.IsNull() || v.Type() != cty.Number {
				bad()
				return ab
			}
			n, acc := v.AsBigFloat().Int64()
			if acc != big.Exact || n < 1 || n > math.MaxInt32 {
				bad()
				return ab
			}
			ab.AfterTokens[i] = int(n)
		}
		if ab.AfterTokens[0] > ab.AfterTokens[1] {
			bad()
		}
		return ab
	}
	vs := pair(after, `["1s", "5s"]`)
	if vs == nil {
		return ab
	}
	for i, v := range vs {
		if v.IsNull() || v.Type() != cty.String {
			d.invalid(after, `after is a range of two durations since the request was sent, such as ["1s", "5s"].`)
			return ab
		}
		dur, ok := d.parseDuration(after, v.AsString(), after.Expr.Range())
		if !ok || !d.checkDuration(after, dur, true) {
			return ab
		}
		ab.After[i] = dur
	}
	if ab.After[0] > ab.After[1] {
		d.invalid(after, "after's range runs from %s down to %s; give the shorter first.", ab.After[0], ab.After[1])
	}
	return ab
}

// decodeBackoff accepts a pair of durations [min, max] or "off".
func (l *loader) decodeBackoff(d dec, attr *hcl.Attribute, cl *ClosedLoop) {
	v, ok := d.eval(attr.Expr)
	if !ok || v.IsNull() {
		return
	}
	if v.Type() == cty.String && v.AsString() == "off" {
		cl.BackoffMin, cl.BackoffMax = 0, 0
		return
	}
	bad := func() {
		d.invalid(attr, `backoff is the wait after a failed request, a range of two durations (["100ms", "5s"]: doubling from the first to the second), or "off".`)
	}
	ty := v.Type()
	if !(ty.IsTupleType() || ty.IsListType()) || v.LengthInt() != 2 {
		bad()
		return
	}
	var ds [2]time.Duration
	for i, p := range v.AsValueSlice() {
		if p.IsNull() || p.Type() != cty.String {
			bad()
			return
		}
		dur, ok := d.parseDuration(attr, p.AsString(), attr.Expr.Range())
		if !ok || !d.checkDuration(attr, dur, true) {
			return
		}
		ds[i] = dur
	}
	if ds[0] > ds[1] {
		d.invalid(attr, "backoff's range runs from %s down to %s; give the shorter first.", ds[0], ds[1])
		return
	}
	cl.BackoffMin, cl.BackoffMax = ds[0], ds[1]
}

func (l *loader) decodeClosedLoop(d dec, b *hcl.Block, vary string) *ClosedLoop {
	cl := &ClosedLoop{BackoffMin: DefaultBackoffMin, BackoffMax: DefaultBackoffMax}
	c, diags := b.Body.Content(closedLoopSchema)
	l.diags = append(l.diags, diags...)
	a := c.Attributes
	if attr, ok := a["backoff"]; ok {
		l.decodeBackoff(d, attr, cl)
	}
	if attr, ok := a["think_time"]; ok {
		cl.ThinkMin, cl.ThinkMax = l.decodeThinkTime(d, attr)
	}
	stages := c.Blocks.OfType("stage")
	users, hasUsers := a["users"]
	switch {
	case hasUsers && len(stages) > 0:
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Conflicting closed_loop arguments",
			Detail:   "Give either users (and duration) or stage blocks, not both.",
			Subject:  users.NameRange.Ptr(),
		})
	case len(stages) > 0:
		if attr, ok := a["duration"]; ok {
			l.diags = append(l.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Conflicting closed_loop arguments",
				Detail:   "With stage blocks each stage has its own duration; remove this one.",
				Subject:  attr.NameRange.Ptr(),
			})
		}
		for _, sb := range stages {
			st := Stage{}
			sc, diags := sb.Body.Content(stageSchema)
			l.diags = append(l.diags, diags...)
			d.integer(sc.Attributes, "users", &st.Users, 1)
			d.duration(sc.Attributes, "duration", &st.Duration, true)
			if ramp := d.duration(sc.Attributes, "ramp", &st.Ramp, false); ramp != nil && st.Duration > 0 && st.Ramp > st.Duration {
				d.invalid(ramp, "ramp (%s) is longer than the stage's duration (%s).", st.Ramp, st.Duration)
			}
			cl.Stages = append(cl.Stages, st)
		}
	case hasUsers:
		st := Stage{}
		d.integer(a, "users", &st.Users, 1)
		d.duration(a, "duration", &st.Duration, true)
		cl.Stages = []Stage{st}
	case vary == VaryUsers:
		// Each step of the sweep or search sets the users.
	default:
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Missing users",
			Detail:   "A closed_loop block needs users (with an optional duration) or stage blocks.",
			Subject:  b.DefRange.Ptr(),
		})
	}
	for _, st := range cl.Stages {
		cl.Users = max(cl.Users, st.Users)
		cl.Duration += st.Duration
	}
	return cl
}

// decodeThinkTime accepts a duration or a [min, max] pair of durations.
func (l *loader) decodeThinkTime(d dec, attr *hcl.Attribute) (lo, hi time.Duration) {
	v, ok := d.eval(attr.Expr)
	if !ok || v.IsNull() {
		return 0, 0
	}
	bad := func() (time.Duration, time.Duration) {
		d.invalid(attr, `%s is a duration ("2s") or a range of two durations (["1s", "3s"]).`, attr.Name)
		return 0, 0
	}
	var parts []cty.Value
	switch ty := v.Type(); {
	case ty == cty.String:
		parts = []cty.Value{v, v}
	case ty.IsTupleType() || ty.IsListType():
		parts = v.AsValueSlice()
		if len(parts) != 2 {
			return bad()
		}
	default:
		return bad()
	}
	var ds [2]time.Duration
	for i, p := range parts {
		if p.IsNull() || p.Type() != cty.String {
			return bad()
		}
		dur, ok := d.parseDuration(attr, p.AsString(), attr.Expr.Range())
		if !ok || !d.checkDuration(attr, dur, false) {
			return 0, 0
		}
		ds[i] = dur
	}
	if ds[0] > ds[1] {
		d.invalid(attr, "%s's range runs from %s down to %s; give the shorter first.", attr.Name, ds[0], ds[1])
		return 0, 0
	}
	return ds[0], ds[1]
}

func (l *loader) decodeSLA(d dec, s *Scenario, b *hcl.Block) {
	c, diags := b.Body.Content(slaSchema)
	l.diags = append(l.diags, diags...)
	for _, attr := range sortedAttrs(c.Attributes) {
		sla := SLA{Key: attr.Name, Range: attr.Range}
		k := slaKeyTable[attr.Name]
		sla.Metric, sla.Stat, sla.Upper = k.metric, k.stat, k.upper
		if k.duration {
			var dur time.Duration
			if d.duration(c.Attributes, attr.Name, &dur, true) == nil {
				continue
			}
			sla.Bound = float64(dur) / float64(time.Millisecond)
		} else {
			a := d.float(c.Attributes, attr.Name, &sla.Bound)
			if a == nil {
				continue
			}
			if m, _ := metrics.Lookup(sla.Metric); m.Unit == "fraction" && (sla.Bound < 0 || sla.Bound > 1) {
				d.invalid(a, "%s is a fraction from 0 to 1 (0.01 is 1%%), not %g.", attr.Name, sla.Bound)
				continue
			}
			if sla.Bound < 0 {
				d.invalid(a, "%s may not be negative.", attr.Name)
				continue
			}
			if (sla.Metric == "request_goodput" || sla.Metric == "token_goodput") && s.Goodput.IsZero() {
				d.invalid(a, "%s needs a goodput block saying which requests are good.", attr.Name)
				continue
			}
		}
		s.SLA = append(s.SLA, sla)
	}
}

func (l *loader) decodeValidity(d dec, s *Scenario, b *hcl.Block) {
	c, diags := b.Body.Content(validitySchema)
	l.diags = append(l.diags, diags...)
	v := &s.Validity
	for _, f := range []struct {
		name string
		dst  *float64
	}{{"max_rate_shortfall", &v.MaxRateShortfall}, {"max_client_cpu", &v.MaxClientCPU}, {"max_token_mismatch", &v.MaxTokenMismatch}} {
		if a := d.float(c.Attributes, f.name, f.dst); a != nil && (*f.dst < 0 || *f.dst > 1) {
			d.invalid(a, "%s is a fraction from 0 to 1 (0.05 is 5%%), not %g.", f.name, *f.dst)
		}
	}
	d.duration(c.Attributes, "max_lag_p99", &v.MaxLagP99, true)
}

func (l *loader) decodeAssert(d dec, s *Scenario, b *hcl.Block) {
	name := b.Labels[0]
	for _, a := range s.Asserts {
		if a.Name == name {
			l.duplicate(b, a.DeclRange)
			return
		}
	}
	a := &Assert{Name: name, DeclRange: b.DefRange}
	s.Asserts = append(s.Asserts, a)
	c, diags := b.Body.Content(assertSchema)
	l.diags = append(l.diags, diags...)
	d.str(c.Attributes, "error_message", &a.ErrorMessage)
	if attr, ok := c.Attributes["condition"]; ok {
		a.Condition = attr.Expr
		if f := l.cfg.Files[attr.Expr.Range().Filename]; f != nil {
			a.Source = string(attr.Expr.Range().SliceBytes(f.Bytes))
		}
		l.diags = append(l.diags, CheckCondition(attr.Expr)...)
		if s.Target != nil {
			for _, raw := range RawServerRefs(attr.Expr) {
				if !slices.Contains(s.Target.ScrapeMetrics, raw) {
					l.diags = append(l.diags, &hcl.Diagnostic{
						Severity: hcl.DiagError,
						Summary:  "Unknown server metric",
						Detail:   fmt.Sprintf("server[%q] is not a known server figure; to read an engine metric of that name, list it in target %q's scrape_metrics.", raw, s.Target.Name),
						Subject:  attr.Expr.Range().Ptr(),
					})
				}
			}
		}
		if s.Goodput.IsZero() {
			for _, tr := range attr.Expr.Variables() {
				if len(tr) >= 2 && tr.RootName() == "metrics" {
					if name, ok := stepName(tr[1]); ok && name == "request_goodput" {
						l.diags = append(l.diags, &hcl.Diagnostic{
							Severity: hcl.DiagError,
							Summary:  "Goodput without a goodput block",
							Detail:   "metrics.request_goodput counts the requests that met the scenario's goodput objectives; add a goodput block saying which requests are good.",
							Subject:  tr.SourceRange().Ptr(),
						})
					}
				}
			}
		}
	}
}

// CheckCondition validates an assert condition before any load is sent:
// it may refer only to metrics in the catalogue and call only
// ConditionFunctions, and it must be a bool expression.
func CheckCondition(expr hcl.Expression) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, tr := range expr.Variables() {
		if d := checkMetricRef(tr); d != nil {
			diags = append(diags, d)
		}
	}
	if diags.HasErrors() {
		return diags
	}
	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{"metrics": metricsPlaceholder, "baseline": metricsPlaceholder, "server": ServerObject(nil, RawServerRefs(expr))},
		Functions: ConditionFunctions(),
	}
	v, more := expr.Value(ctx)
	diags = append(diags, more...)
	if !more.HasErrors() && v.Type() != cty.Bool && v.Type() != cty.DynamicPseudoType {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid condition",
			Detail:   fmt.Sprintf("A condition must be true or false, such as metrics.ttft.p99 <= 500; this one is a %s.", v.Type().FriendlyName()),
			Subject:  expr.Range().Ptr(),
		})
	}
	return diags
}

// metricsPlaceholder has the catalogue's shape with unknown values.
var metricsPlaceholder = MetricsObject(nil)

// checkMetricRef checks one reference of a condition against the catalogue.
func checkMetricRef(tr hcl.Traversal) *hcl.Diagnostic {
	bad := func(rng hcl.Range, summary, detail string) *hcl.Diagnostic {
		return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: rng.Ptr()}
	}
	if tr.RootName() == "server" {
		return checkServerRef(tr)
	}
	root := tr.RootName()
	if root != "metrics" && root != "baseline" {
		return bad(tr.SourceRange(), "Invalid reference in condition",
			fmt.Sprintf("A condition can refer only to the run's metrics (metrics.<name>), the baseline run's (baseline.<name>) and the server's (server.<name>), not to %q.", tr.RootName()))
	}
	if len(tr) < 2 {
		return nil // the whole object; evaluation checks its use
	}
	name, ok := stepName(tr[1])
	if !ok {
		return nil
	}
	m, known := metrics.Lookup(name)
	if !known {
		all := metrics.Names()
		detail := fmt.Sprintf("There is no metric named %q.", name)
		if s := suggest(name, all); s != "" {
			detail += fmt.Sprintf(" Did you mean %s.%s?", root, s)
		}
		detail += " docs/metrics.md lists every metric."
		return bad(tr[1].SourceRange(), "Unknown metric", detail)
	}
	if len(tr) < 3 {
		return nil
	}
	stat, ok := stepName(tr[2])
	if !ok {
		return nil
	}
	var keys []string
	switch m.Kind {
	case metrics.Scalar:
		return bad(tr[2].SourceRange(), "Unknown metric",
			fmt.Sprintf("%s.%s is a number (%s); it has no %q.", root, name, m.Unit, stat))
	case metrics.Distribution:
		keys = metrics.Stats
	case metrics.Counts:
		keys = metrics.CountKeys()
	}
	if !slices.Contains(keys, stat) {
		detail := fmt.Sprintf("%s.%s has no %q.", root, name, stat)
		if s := suggest(stat, keys); s != "" {
			detail += fmt.Sprintf(" Did you mean %s.%s.%s?", root, name, s)
		}
		detail += " It has " + quoteList(keys) + "."
		return bad(tr[2].SourceRange(), "Unknown metric", detail)
	}
	return nil
}

// serverNames are the short names of the catalogue's server figures.
func serverNames() []string {
	var out []string
	for _, m := range metrics.ServerFigures() {
		out = append(out, strings.TrimPrefix(m.Name, metrics.ServerPrefix))
	}
	return out
}

// checkServerRef checks a server.<name>.<stat> reference. A name that is
// not a known figure, nor close to one, is a raw engine metric (it must be
// listed in the target's scrape_metrics; decodeAssert checks that).
func checkServerRef(tr hcl.Traversal) *hcl.Diagnostic {
	bad := func(rng hcl.Range, detail string) *hcl.Diagnostic {
		return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown server metric", Detail: detail, Subject: rng.Ptr()}
	}
	if len(tr) < 2 {
		return nil
	}
	name, ok := stepName(tr[1])
	if !ok {
		return nil
	}
	stats := metrics.ServerStatNames
	if m, known := metrics.Lookup(metrics.ServerPrefix + name); known && m.Kind == metrics.Server {
		stats = metrics.ServerStats(m.Series)
	} else if s := suggest(name, serverNames()); s != "" && !strings.Contains(name, ":") {
		return bad(tr[1].SourceRange(), fmt.Sprintf("There is no server figure named %q. Did you mean server.%s? docs/metrics.md lists every server figure; an engine metric of another name is read as server[\"<name>\"] once the target lists it in scrape_metrics.", name, s))
	}
	if len(tr) < 3 {
		return nil
	}
	stat, ok := stepName(tr[2])
	if !ok || slices.Contains(stats, stat) {
		return nil
	}
	detail := fmt.Sprintf("server.%s has no %q.", name, stat)
	if s := suggest(stat, stats); s != "" {
		detail += fmt.Sprintf(" Did you mean server.%s.%s?", name, s)
	}
	return bad(tr[2].SourceRange(), detail+" It has "+quoteList(stats)+".")
}

// RawServerRefs lists the server metrics a condition names that are not
// catalogue figures: raw engine metrics from scrape_metrics.
func RawServerRefs(expr hcl.Expression) []string {
	var out []string
	for _, tr := range expr.Variables() {
		if tr.RootName() != "server" || len(tr) < 2 {
			continue
		}
		name, ok := stepName(tr[1])
		if !ok {
			continue
		}
		if m, known := metrics.Lookup(metrics.ServerPrefix + name); known && m.Kind == metrics.Server {
			continue
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// stepName returns the name an attribute or string-index step selects.
func stepName(step hcl.Traverser) (string, bool) {
	switch s := step.(type) {
	case hcl.TraverseAttr:
		return s.Name, true
	case hcl.TraverseIndex:
		if s.Key.Type() == cty.String && s.Key.IsKnown() && !s.Key.IsNull() {
			return s.Key.AsString(), true
		}
	}
	return "", false
}
