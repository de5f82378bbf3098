package scenario

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// The loads a sweep or a capacity search can vary.
const (
	VaryUsers          = "users"           // closed-loop users
	VaryRate           = "rate"            // open-loop requests per second
	VaryMaxConcurrency = "max_concurrency" // open-loop cap on requests in flight
)

// Sweep defaults.
const (
	DefaultKneeShare = 0.1  // the knee: marginal throughput under 10% of the initial slope
	DefaultPrecision = 0.05 // a capacity search stops when its bracket is within 5%
)

// Sweep runs the scenario once per load value, in order, and reports each
// step as a stage-like summary.
type Sweep struct {
	Vary   string    `json:"vary"` // VaryUsers, VaryRate or VaryMaxConcurrency
	Values []float64 `json:"values"`
	// Each step runs for Duration and/or Requests measured requests,
	// whichever ends it first; Cooldown is an idle pause between steps.
	Duration time.Duration `json:"duration"`
	Requests int           `json:"requests"`
	Cooldown time.Duration `json:"cooldown"`
	// KneeShare is the share of the initial slope (output tok/s per unit of
	// load) under which the marginal slope marks the knee.
	KneeShare float64   `json:"knee_share"`
	DeclRange hcl.Range `json:"-"`
}

// CapacitySearch looks for the highest load at which every sla check
// holds: probes at Min, doubling until one fails or Max is reached, then
// bisection until the bracket is within Precision.
type CapacitySearch struct {
	Vary string  `json:"vary"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	// Precision is the bracket width at which the search stops, as a
	// fraction of the last passing load (0.05 for "5%").
	Precision float64 `json:"precision"`
	// Each probe runs for Duration and/or Requests; MinRequests raises a
	// probe's length so that its checks rest on at least that many
	// requests (the open loop sends that many, a closed-loop probe that
	// measured fewer is run again, longer).
	Duration    time.Duration `json:"duration"`
	Requests    int           `json:"requests"`
	MinRequests int           `json:"min_requests"`
	Cooldown    time.Duration `json:"cooldown"`
	// MaxProbes bounds the number of probes (0: no bound but the
	// precision).
	MaxProbes int       `json:"max_probes"`
	DeclRange hcl.Range `json:"-"`
}

// Varies returns what a sweep or capacity search varies ("" when the
// scenario has neither).
func (s *Scenario) Varies() string {
	switch {
	case s.Sweep != nil:
		return s.Sweep.Vary
	case s.Capacity != nil:
		return s.Capacity.Vary
	}
	return ""
}

var sweepSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: VaryUsers}, {Name: VaryRate}, {Name: VaryMaxConcurrency},
		{Name: "duration"}, {Name: "requests"}, {Name: "cooldown"}, {Name: "knee_share"},
	},
}

var capacitySchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "vary", Required: true}, {Name: "min", Required: true}, {Name: "max", Required: true},
		{Name: "precision"}, {Name: "duration"}, {Name: "requests"}, {Name: "min_requests"},
		{Name: "cooldown"}, {Name: "max_probes"},
	},
}

// integral reports whether a varied load takes whole values.
func integral(vary string) bool { return vary != VaryRate }

func (l *loader) decodeSweep(d dec, b *hcl.Block) *Sweep {
	sw := &Sweep{KneeShare: DefaultKneeShare, DeclRange: b.DefRange}
	c, diags := b.Body.Content(sweepSchema)
	l.diags = append(l.diags, diags...)
	a := c.Attributes
	var list *hcl.Attribute
	for _, name := range []string{VaryUsers, VaryRate, VaryMaxConcurrency} {
		attr, ok := a[name]
		if !ok {
			continue
		}
		if list != nil {
			d.add(&hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Conflicting sweep arguments",
				Detail:   fmt.Sprintf("A sweep varies one load: %s is already given at %s.", list.Name, list.NameRange),
				Subject:  attr.NameRange.Ptr(),
			})
			continue
		}
		list = attr
	}
	if list == nil {
		d.add(&hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Missing sweep values",
			Detail:   "A sweep needs the values of one load: users = [...], rate = [...] or max_concurrency = [...].",
			Subject:  b.DefRange.Ptr(),
		})
	} else {
		sw.Vary = list.Name
		sw.Values = d.loadValues(list)
	}
	d.duration(a, "duration", &sw.Duration, true)
	d.integer(a, "requests", &sw.Requests, 1)
	d.duration(a, "cooldown", &sw.Cooldown, false)
	if attr := d.float(a, "knee_share", &sw.KneeShare); attr != nil && (sw.KneeShare <= 0 || sw.KneeShare >= 1) {
		d.invalid(attr, "knee_share is a fraction of the initial slope, between 0 and 1 (0.1 is 10%%), not %g.", sw.KneeShare)
	}
	return sw
}

// loadValues decodes a sweep's list: positive, increasing, whole for users
// and max_concurrency.
func (d dec) loadValues(attr *hcl.Attribute) []float64 {
	v, ok := d.eval(attr.Expr)
	if !ok || v.IsNull() {
		return nil
	}
	if !(v.Type().IsTupleType() || v.Type().IsListType()) || v.LengthInt() == 0 {
		d.invalid(attr, "%s is a non-empty list of numbers, such as [1, 10, 50].", attr.Name)
		return nil
	}
	var out []float64
	for i, e := range v.AsValueSlice() {
		if e.IsNull() || e.Type() != cty.Number {
			d.invalid(attr, "%s is a list of numbers; element %d is not a number.", attr.Name, i+1)
			return nil
		}
		f, _ := e.AsBigFloat().Float64()
		switch {
		case !(f > 0) || math.IsInf(f, 0):
			d.invalid(attr, "%s: every value must be more than 0; element %d is %g.", attr.Name, i+1, f)
			return nil
		case integral(attr.Name) && f != math.Trunc(f):
			d.invalid(attr, "%s: every value must be a whole number; element %d is %g.", attr.Name, i+1, f)
			return nil
		case len(out) > 0 && f <= out[len(out)-1]:
			d.invalid(attr, "%s: the values must increase (the knee is read along them); element %d (%g) is not above %g.", attr.Name, i+1, f, out[len(out)-1])
			return nil
		}
		out = append(out, f)
	}
	return out
}

func (l *loader) decodeCapacity(d dec, b *hcl.Block) *CapacitySearch {
	cs := &CapacitySearch{Precision: DefaultPrecision, DeclRange: b.DefRange}
	c, diags := b.Body.Content(capacitySchema)
	l.diags = append(l.diags, diags...)
	a := c.Attributes
	d.oneOf(a, "vary", &cs.Vary, VaryUsers, VaryRate, VaryMaxConcurrency)
	minAttr := d.float(a, "min", &cs.Min)
	maxAttr := d.float(a, "max", &cs.Max)
	whole := func(attr *hcl.Attribute, f float64) {
		if attr != nil && cs.Vary != "" && integral(cs.Vary) && f != math.Trunc(f) {
			d.invalid(attr, "%s counts %s: a whole number, not %g.", attr.Name, cs.Vary, f)
		}
	}
	if minAttr != nil && !(cs.Min > 0) {
		d.invalid(minAttr, "min must be more than 0, not %g.", cs.Min)
	}
	whole(minAttr, cs.Min)
	whole(maxAttr, cs.Max)
	if minAttr != nil && maxAttr != nil && cs.Max <= cs.Min {
		d.invalid(maxAttr, "max (%g) must be above min (%g).", cs.Max, cs.Min)
	}
	if attr, ok := a["precision"]; ok {
		if p, ok := d.fraction(attr); ok {
			if !(p > 0 && p < 1) {
				d.invalid(attr, `precision is a share of the capacity between 0 and 1 ("5%%" or 0.05), not %g.`, p)
			} else {
				cs.Precision = p
			}
		}
	}
	d.duration(a, "duration", &cs.Duration, true)
	d.integer(a, "requests", &cs.Requests, 1)
	d.integer(a, "min_requests", &cs.MinRequests, 0)
	d.duration(a, "cooldown", &cs.Cooldown, false)
	d.integer(a, "max_probes", &cs.MaxProbes, 1)
	return cs
}

// fraction decodes "5%" or 0.05.
func (d dec) fraction(attr *hcl.Attribute) (float64, bool) {
	v, ok := d.eval(attr.Expr)
	if !ok || v.IsNull() {
		return 0, false
	}
	switch v.Type() {
	case cty.Number:
		f, _ := v.AsBigFloat().Float64()
		return f, true
	case cty.String:
		s := strings.TrimSpace(v.AsString())
		if num, ok := strings.CutSuffix(s, "%"); ok {
			if f, err := strconv.ParseFloat(strings.TrimSpace(num), 64); err == nil {
				return f / 100, true
			}
		}
	}
	d.invalid(attr, `%s is a percentage ("5%%") or a fraction (0.05).`, attr.Name)
	return 0, false
}

// checkVaried reconciles the load block with what a sweep or capacity
// search varies: the varied attribute must be left to it, and a missing
// load block is made from the varied load (users: a closed loop without
// think time; rate: Poisson arrivals; max_concurrency: every request at
// once, capped).
func (l *loader) checkVaried(s *Scenario, block *hcl.Block, varied hcl.Range) {
	vary := s.Varies()
	conflict := func(what string) {
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Conflicting load",
			Detail:   fmt.Sprintf("The %s at %s varies %s; %s.", blockName(s), varied, vary, what),
			Subject:  block.DefRange.Ptr(),
		})
	}
	switch vary {
	case VaryUsers:
		switch {
		case s.OpenLoop != nil:
			conflict("varying users needs a closed_loop block (or none), not open_loop")
		case s.ClosedLoop == nil:
			s.ClosedLoop = &ClosedLoop{BackoffMin: DefaultBackoffMin, BackoffMax: DefaultBackoffMax}
		case len(s.ClosedLoop.Stages) > 0:
			conflict("leave users, duration and stages out of closed_loop: each step sets them")
		}
	case VaryRate, VaryMaxConcurrency:
		switch {
		case s.ClosedLoop != nil:
			conflict(fmt.Sprintf("varying %s needs an open_loop block (or none), not closed_loop", vary))
		case s.OpenLoop == nil:
			s.OpenLoop = &OpenLoop{Arrival: ArrivalPoisson, Burstiness: 1}
			if vary == VaryMaxConcurrency {
				s.OpenLoop.Rate = math.Inf(1)
			}
		case vary == VaryRate && s.OpenLoop.Rate != 0:
			conflict("leave rate out of open_loop: each step sets it")
		case vary == VaryMaxConcurrency && s.OpenLoop.MaxConcurrency != 0:
			conflict("leave max_concurrency out of open_loop: each step sets it")
		case vary == VaryMaxConcurrency && s.OpenLoop.Rate == 0:
			s.OpenLoop.Rate = math.Inf(1)
		}
	}
}

func blockName(s *Scenario) string {
	if s.Sweep != nil {
		return "sweep block"
	}
	return "capacity block"
}

// checkStepLength makes sure each step or probe has an end: its own
// duration or requests, else the scenario's.
func (l *loader) checkStepLength(s *Scenario) {
	var dur *time.Duration
	var reqs *int
	var rng hcl.Range
	switch {
	case s.Sweep != nil:
		dur, reqs, rng = &s.Sweep.Duration, &s.Sweep.Requests, s.Sweep.DeclRange
	case s.Capacity != nil:
		dur, reqs, rng = &s.Capacity.Duration, &s.Capacity.Requests, s.Capacity.DeclRange
	default:
		return
	}
	if *dur == 0 && *reqs == 0 {
		*dur, *reqs = s.Duration, s.Requests
	}
	if *dur == 0 && *reqs == 0 {
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Steps without an end",
			Detail:   fmt.Sprintf("Each step of the %s needs a length: give the block a duration or requests (or the scenario one).", blockName(s)),
			Subject:  rng.Ptr(),
		})
	}
}
