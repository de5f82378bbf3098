package scenario

import (
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
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
		{Name: "history"}, {Name: "turn_think_time"}, {Name: "max_tool_rounds"}, {Name: "tool_result_tokens"},
		{Name: "budget"}, {Name: "gpus"}, {Name: "stop_early"},
	},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "open_loop"}, {Type: "closed_loop"}, {Type: "replay"}, {Type: "warmup"}, {Type: "outputs"}, {Type: "sla"}, {Type: "goodput"}, {Type: "validity"}, {Type: "regression"},
		{Type: "abort_on"}, {Type: "abandon"}, {Type: "fan_out"},
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

var fanOutSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "sub_agents", Required: true}, {Name: "after_turn"}, {Name: "prompt"}, {Name: "output_len"}, {Name: "context"}},
}

var abortOnSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "error_rate", Required: true}, {Name: "min_requests"}},
}

var warmupSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "requests", Required: true}},
}

var outputsSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "keep", Required: true}},
}

var goodputSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "ttft"}, {Name: "tpot"}, {Name: "itl"}, {Name: "e2el"}},
}

var validitySchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "max_rate_shortfall"}, {Name: "max_lag_p99"}, {Name: "max_client_cpu"}, {Name: "max_token_mismatch"}, {Name: "max_other_model"}, {Name: "max_over_max_tokens"}, {Name: "max_client_overhead"}},
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
	if attr := d.integer(a, "requests", &s.Requests, 1); attr != nil {
		s.requestsRange = attr.Range.Ptr()
	}
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
			if !t.After(now()) {
				// Refused here, by validate too, rather than once the
				// preflight probe and warmup have reached the target.
				d.invalid(attr, "start_at %s has passed (it is %s now): a common start must lie ahead; set a later one, or remove it.", startAt, now().UTC().Format(time.RFC3339))
			}
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
	if vary != "" {
		s.variedRange = varied.Ptr()
	}

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
	if f := atMostOne(&l.diags, content.Blocks.OfType("fan_out"), "a scenario"); f != nil {
		s.FanOut = l.decodeFanOut(d, f, s)
	}
	l.decodeRepeat(d, a, s)

	if w := atMostOne(&l.diags, content.Blocks.OfType("warmup"), "a scenario"); w != nil {
		c, diags := w.Body.Content(warmupSchema)
		l.diags = append(l.diags, diags...)
		d.integer(c.Attributes, "requests", &s.Warmup, 0)
	}
	if o := atMostOne(&l.diags, content.Blocks.OfType("outputs"), "a scenario"); o != nil {
		c, diags := o.Body.Content(outputsSchema)
		l.diags = append(l.diags, diags...)
		d.integer(c.Attributes, "keep", &s.KeepOutputs, 0)
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
	l.decodeBudget(d, a, s)
	for _, ab := range content.Blocks.OfType("assert") {
		l.decodeAssert(d, s, ab)
	}
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
