package scenario

// Decoding the load blocks: open_loop, closed_loop (its stages, think time
// and backoff), replay, sessions, abort_on and abandon.

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/llmload/llmload/internal/apis"
)

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
// turn_think_time, which need a multi-turn dataset, and an API that
// carries conversations (the chat API).
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
		l.decodeTurnThink(d, attr, s)
		if !multi && s.Dataset != nil {
			d.invalid(attr, "turn_think_time is the pause between the turns of multi-turn sessions; dataset %q has none (set multi_turn = true on its sharegpt or jsonl source).", s.Dataset.Name)
		}
	}
	for _, k := range []struct {
		name     string
		dst      *int
		min, def int
	}{{"max_tool_rounds", &s.MaxToolRounds, 0, DefaultMaxToolRounds}, {"tool_result_tokens", &s.ToolResultTokens, 1, DefaultToolResultTokens}} {
		attr := d.integer(a, k.name, k.dst, k.min)
		switch {
		case attr != nil && !multi && s.Dataset != nil:
			d.invalid(attr, "%s applies to the tool calls of multi-turn sessions; dataset %q has none (set multi_turn = true on its jsonl source).", k.name, s.Dataset.Name)
		case attr == nil && multi:
			*k.dst = k.def
		}
	}
	if multi && s.History == "" {
		s.History = HistoryGenerated
		if s.Dataset.Trace != nil {
			// A trace's sessions replay as recorded: its prompts, tool
			// calls and results exactly.
			s.History = HistoryRecorded
		}
	}
	if _, set := a["turn_think_time"]; multi && !set && s.Dataset.Trace != nil {
		s.TurnThink = ThinkRecorded // the trace's delays
	}
	if multi && s.Target != nil && !carriesConversations(s.Target.API) {
		titles, names := conversational()
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Multi-turn sessions need the " + titles + " API",
			Detail:   fmt.Sprintf("Dataset %q replays conversations, which only %s can send; target %q uses %q.", s.Dataset.Name, names, s.Target.Name, s.Target.API),
			Subject:  s.Dataset.multiTurn,
		})
	}
}

// A session's tool round trips, unless the scenario says otherwise: after
// an answer that called tools, each call's synthetic result of
// DefaultToolResultTokens words is sent back, at most DefaultMaxToolRounds
// times a turn.
const (
	DefaultMaxToolRounds    = 4
	DefaultToolResultTokens = 64
)

// carriesConversations says whether the API table's api can send a
// conversation's messages.
func carriesConversations(api string) bool {
	a, _ := apis.Lookup(api)
	return a.Conversations
}

// conversational names the APIs that carry conversations, from the API
// table: their titles ("chat", "chat or Messages") and each with its api
// value (`the chat API (api = "openai-chat")`).
func conversational() (titles, names string) {
	var t, n []string
	for _, a := range apis.All() {
		if a.Conversations {
			t = append(t, a.Title)
			n = append(n, fmt.Sprintf("the %s API (api = %q)", a.Title, a.Name))
		}
	}
	return orList(t), orList(n)
}

// orList joins words as "a", "a or b", "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
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

// decodeTurnThink reads turn_think_time: a duration or a range (uniform),
// "recorded" (the dataset's recorded pauses), or an object naming a
// distribution: { distribution = "exponential", mean = "2s" } (min shifts
// it, max caps it) or { distribution = "uniform", min = "1s", max = "3s" }.
func (l *loader) decodeTurnThink(d dec, attr *hcl.Attribute, s *Scenario) {
	v, ok := d.eval(attr.Expr)
	if !ok || v.IsNull() {
		return
	}
	switch ty := v.Type(); {
	case ty == cty.String && v.AsString() == ThinkRecorded:
		if s.Dataset != nil && s.Dataset.Trace == nil {
			d.invalid(attr, `turn_think_time = "recorded" waits the delays an agent trace recorded; dataset %q is not a trace (its turns record none). Give a duration, a range or a distribution.`, s.Dataset.Name)
			return
		}
		s.TurnThink = ThinkRecorded
		return
	case !ty.IsObjectType() && !ty.IsMapType():
		s.TurnThinkMin, s.TurnThinkMax = l.decodeThinkTime(d, attr)
		return
	}
	bad := func(format string, args ...any) {
		d.invalid(attr, "turn_think_time "+format+` Forms: "2s", ["1s", "3s"], "recorded", { distribution = "exponential", mean = "2s" } (min and max optional), { distribution = "uniform", min = "1s", max = "3s" }.`, args...)
	}
	fields := map[string]*time.Duration{"min": &s.TurnThinkMin, "max": &s.TurnThinkMax, "mean": &s.TurnThinkMean}
	dist := ""
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		name := k.AsString()
		if e.IsNull() || e.Type() != cty.String {
			bad("%s must be a string.", name)
			return
		}
		if name == "distribution" {
			dist = e.AsString()
			continue
		}
		dst, known := fields[name]
		if !known {
			hint := ""
			if sg := suggest(name, []string{"distribution", "min", "max", "mean"}); sg != "" {
				hint = fmt.Sprintf(" Did you mean %q?", sg)
			}
			bad("has no %q.%s", name, hint)
			return
		}
		dur, ok := d.parseDuration(attr, e.AsString(), attr.Expr.Range())
		if !ok || !d.checkDuration(attr, dur, false) {
			return
		}
		*dst = dur
	}
	switch dist {
	case ThinkExponential:
		if s.TurnThinkMean <= 0 {
			bad("needs a mean longer than 0s for an exponential distribution.")
		}
		if s.TurnThinkMax > 0 && s.TurnThinkMax < s.TurnThinkMin {
			bad("runs from min %s down to max %s.", s.TurnThinkMin, s.TurnThinkMax)
		}
	case ThinkUniform:
		if s.TurnThinkMean > 0 {
			bad("takes min and max for a uniform distribution, not a mean.")
		}
		if s.TurnThinkMax < s.TurnThinkMin {
			bad("runs from min %s down to max %s.", s.TurnThinkMin, s.TurnThinkMax)
		}
	default:
		bad("%s", choiceDetail("distribution", dist, []string{ThinkUniform, ThinkExponential}))
		return
	}
	s.TurnThink = dist
}

// decodeFanOut reads a fan_out block: a turn of every multi-turn session
// that fans out to sub-agents, whose replies the next turn joins.
func (l *loader) decodeFanOut(d dec, b *hcl.Block, s *Scenario) *FanOut {
	c, diags := b.Body.Content(fanOutSchema)
	l.diags = append(l.diags, diags...)
	a := c.Attributes
	f := &FanOut{AfterTurn: 1, Prompt: "Work on this part of the task and report what you found.", OutputLen: DefaultFanOutOutputLen, Context: ContextFresh}
	if attr := d.integer(a, "sub_agents", &f.SubAgents, 1); attr != nil && f.SubAgents > MaxSubAgents {
		d.invalid(attr, "sub_agents is at most %d: each is a request sent at once.", MaxSubAgents)
	}
	d.integer(a, "after_turn", &f.AfterTurn, 1)
	d.integer(a, "output_len", &f.OutputLen, 1)
	if attr := d.str(a, "prompt", &f.Prompt); attr != nil && strings.TrimSpace(f.Prompt) == "" {
		d.invalid(attr, "prompt is what each sub-agent is asked; it must not be blank.")
	}
	if attr := d.str(a, "context", &f.Context); attr != nil && f.Context != ContextFresh && f.Context != ContextShared {
		d.invalid(attr, "%s", choiceDetail("context", f.Context, []string{ContextFresh, ContextShared}))
	}
	switch {
	case s.Dataset != nil && !s.Dataset.MultiTurn():
		l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "fan_out needs multi-turn sessions",
			Detail:  fmt.Sprintf("A fan-out step is a turn of a session; dataset %q has none (set multi_turn = true on its sharegpt or jsonl source).", s.Dataset.Name),
			Subject: b.DefRange.Ptr()})
	case s.History == HistoryRecorded:
		l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "fan_out needs generated history",
			Detail:  `The sub-agents are briefed with the step's answer and their replies are joined into the next turn: that is the server's own text, so fan_out needs history = "generated".`,
			Subject: b.DefRange.Ptr()})
	}
	return f
}

// DefaultFanOutOutputLen is a sub-agent's max_tokens unless fan_out says;
// MaxSubAgents bounds a step (as dataset.MaxSubAgents does a dataset's).
const (
	DefaultFanOutOutputLen = 64
	MaxSubAgents           = 64
)
