package scenario

// Repeats and interleaved A/B runs: a scenario's repeat and cooldown, and
// its targets (baseline and candidate) with interleave.

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Interleave is how an A/B run alternates its arms: blocks of Requests
// measured requests, or of the arrivals in Duration of the schedule.
// Exactly one is set on an A/B scenario.
type Interleave struct {
	Duration time.Duration `json:"duration,omitempty"`
	Requests int           `json:"requests,omitempty"`
}

// DefaultInterleave is an A/B scenario's interleave when it sets none.
var DefaultInterleave = Interleave{Requests: 50}

// String renders the interleave as written: "30s", "50 requests".
func (i Interleave) String() string {
	if i.Duration > 0 {
		return i.Duration.String()
	}
	return fmt.Sprintf("%d requests", i.Requests)
}

// AB reports whether the scenario is an interleaved A/B run: Target is
// then the candidate arm's target and BaselineTarget the baseline arm's.
func (s *Scenario) AB() bool { return s.BaselineTarget != nil }

// Repeats is how many times the scenario runs (at least 1).
func (s *Scenario) Repeats() int { return max(s.Repeat, 1) }

// decodeTargets reads targets = { baseline = target.a, candidate =
// target.b }.
func (l *loader) decodeTargets(attr *hcl.Attribute, s *Scenario) {
	pairs, diags := hcl.ExprMap(attr.Expr)
	if diags.HasErrors() {
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError, Summary: "Invalid targets",
			Detail:  "targets names the two arms of an A/B run: targets = { baseline = target.old, candidate = target.new }.",
			Subject: attr.Expr.Range().Ptr(),
		})
		return
	}
	arms := map[string]*Target{}
	for _, p := range pairs {
		key := hcl.ExprAsKeyword(p.Key)
		if key == "" {
			if v, d := p.Key.Value(nil); !d.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
				key = v.AsString()
			}
		}
		if key != "baseline" && key != "candidate" {
			detail := fmt.Sprintf("The arms of an A/B run are baseline and candidate, not %q.", key)
			if sg := suggest(key, []string{"baseline", "candidate"}); sg != "" {
				detail += fmt.Sprintf(" Did you mean %s?", sg)
			}
			l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown arm", Detail: detail, Subject: p.Key.Range().Ptr()})
			continue
		}
		if _, dup := arms[key]; dup {
			l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate arm", Detail: fmt.Sprintf("The %s arm is named twice.", key), Subject: p.Key.Range().Ptr()})
			continue
		}
		arms[key] = nil
		ref := &hcl.Attribute{Name: "targets", Expr: p.Value, Range: p.Value.Range(), NameRange: p.Key.Range()}
		if n := l.reference(ref, "target", mapKeys(l.targets)); n != "" {
			arms[key] = l.targets[n]
		}
	}
	for _, arm := range []string{"baseline", "candidate"} {
		if _, ok := arms[arm]; !ok {
			l.diags = append(l.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Missing arm",
				Detail:  fmt.Sprintf("An A/B run needs both arms, baseline and candidate; %s is missing.", arm),
				Subject: attr.Expr.Range().Ptr(),
			})
		}
	}
	b, c := arms["baseline"], arms["candidate"]
	if b != nil && c != nil {
		if b == c {
			l.diags = append(l.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "One target in both arms",
				Detail:  fmt.Sprintf("Both arms name target %q: an A/B run compares two targets (two servers, or one server under two configurations).", b.Name),
				Subject: attr.Expr.Range().Ptr(),
			})
		}
		s.Target, s.BaselineTarget = c, b
	}
}

// decodeInterleave reads interleave = "30s" or interleave = 50.
func (l *loader) decodeInterleave(d dec, attr *hcl.Attribute, s *Scenario) {
	v, ok := d.eval(attr.Expr)
	if !ok || v.IsNull() {
		return
	}
	switch v.Type() {
	case cty.Number:
		var n int64
		if d.int64(hcl.Attributes{attr.Name: attr}, attr.Name, &n, 1) != nil {
			s.Interleave = Interleave{Requests: int(n)}
		}
	case cty.String:
		if n, err := strconv.Atoi(strings.TrimSpace(v.AsString())); err == nil {
			// A number in a string (a -var value): a count of requests.
			if n < 1 {
				d.invalid(attr, "interleave must be at least 1 request, not %d.", n)
				return
			}
			s.Interleave = Interleave{Requests: n}
			return
		}
		if dur, ok := d.parseDuration(attr, v.AsString(), attr.Expr.Range()); ok && d.checkDuration(attr, dur, true) {
			s.Interleave = Interleave{Duration: dur}
		}
	default:
		d.invalid(attr, "interleave is a block's length: a duration of the schedule (\"30s\") or a number of requests (50).")
	}
}

// decodeArms reads target, or targets and interleave (an A/B run).
func (l *loader) decodeArms(d dec, a hcl.Attributes, s *Scenario, b *hcl.Block) {
	targets, interleave := a["targets"], a["interleave"]
	target, hasTarget := a["target"]
	switch {
	case targets != nil && hasTarget:
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError, Summary: "Conflicting arguments",
			Detail:  "A scenario has either target (one server) or targets (the two arms of an A/B run), not both: the candidate arm is the target of an A/B run.",
			Subject: targets.NameRange.Ptr(),
		})
	case targets != nil:
		l.decodeTargets(targets, s)
		s.targetsRange = targets.Range.Ptr()
	case hasTarget:
		if n := l.reference(target, "target", mapKeys(l.targets)); n != "" {
			s.Target = l.targets[n]
		}
	default:
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError, Summary: "Missing required argument",
			Detail:  "The argument \"target\" is required, but no definition was found.",
			Subject: b.Body.MissingItemRange().Ptr(),
		})
	}
	switch {
	case interleave == nil:
	case targets == nil:
		d.invalid(interleave, "interleave is the block length of an A/B run; it needs targets = { baseline = ..., candidate = ... }.")
	default:
		l.decodeInterleave(d, interleave, s)
	}
	if s.AB() && s.Interleave == (Interleave{}) {
		s.Interleave = DefaultInterleave
	}
}

// decodeRepeat reads repeat and cooldown, and refuses what an A/B run or
// a repeat does not combine with (called once the load is decoded). With
// a sweep or a capacity search, repeat runs each step N times.
func (l *loader) decodeRepeat(d dec, a hcl.Attributes, s *Scenario) {
	repeat := d.integer(a, "repeat", &s.Repeat, 1)
	if repeat != nil {
		s.repeatRange = repeat.Range.Ptr()
	}
	cooldown := d.duration(a, "cooldown", &s.Cooldown, false)
	if cooldown != nil && s.Repeats() < 2 {
		d.invalid(cooldown, "cooldown is the pause between repeated runs; set repeat to 2 or more, or remove it.")
	}
	if !s.AB() {
		return
	}
	refuse := func(what string, rng hcl.Range) {
		l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Not with an A/B run", Detail: what, Subject: rng.Ptr()})
	}
	at := a["targets"].NameRange
	if repeat != nil && s.Repeats() > 1 {
		refuse("An A/B run already alternates its arms block after block; repeat it with another run, or remove repeat.", repeat.NameRange)
	}
	if attr, ok := a["baseline"]; ok {
		refuse("In an A/B run, baseline.* is the baseline arm of the same run; a baseline result file does not apply. Remove baseline, or targets.", attr.NameRange)
	}
	switch {
	case s.Sweep != nil || s.Capacity != nil:
		refuse(fmt.Sprintf("A %s varies the load step by step; an A/B run of each step is not supported yet: compare two runs with llmload compare.", blockName(s)), at)
	case s.ClosedLoop != nil:
		refuse("An A/B run sends one schedule of arrivals to both arms; a closed loop has none (its users follow the server). Use an open_loop or a replay.", at)
	}
	if b, c := s.BaselineTarget, s.Target; c != nil && b.API != c.API {
		refuse(fmt.Sprintf("Both arms send the same requests, so they speak one API; target %q uses %q and target %q %q.", b.Name, b.API, c.Name, c.API), at)
	}
	if attr, ok := a["start_at"]; ok {
		refuse("start_at lines up the shards of a split run; an A/B run cannot be split.", attr.NameRange)
	}
}
