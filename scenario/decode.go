package scenario

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/agext/levenshtein"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// dec evaluates attributes in one file's evaluation context and collects
// diagnostics. Each typed helper leaves *dst alone when the attribute is
// absent, null, unknown (an error already reported) or invalid.
type dec struct {
	ctx   *hcl.EvalContext
	diags *hcl.Diagnostics
	// varNames are the declared variables, for "did you mean" on var.<name>.
	varNames []string
}

// eval evaluates an expression, first reporting references to undeclared
// variables with a suggestion. ok is false after an error, and for values
// that are not wholly known (they come from variables whose own errors are
// reported already).
func (d dec) eval(expr hcl.Expression) (v cty.Value, ok bool) {
	bad := false
	for _, tr := range expr.Variables() {
		if d.ctx.Variables == nil || tr.RootName() != "var" || len(tr) < 2 {
			continue
		}
		if name := attrName(tr[1]); name != "" && !slices.Contains(d.varNames, name) {
			detail := fmt.Sprintf("No variable named %q is declared.", name)
			if s := suggest(name, d.varNames); s != "" {
				detail += fmt.Sprintf(" Did you mean var.%s?", s)
			}
			d.add(&hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Reference to undeclared variable",
				Detail:   detail,
				Subject:  tr.SourceRange().Ptr(),
			})
			bad = true
		}
	}
	if bad {
		return cty.NilVal, false
	}
	v, diags := expr.Value(d.ctx)
	d.add(diags...)
	return v, !diags.HasErrors() && v.IsWhollyKnown()
}

func (d dec) add(diags ...*hcl.Diagnostic) { *d.diags = append(*d.diags, diags...) }

// invalid reports a bad value of an attribute.
func (d dec) invalid(attr *hcl.Attribute, format string, args ...any) {
	d.add(&hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Invalid " + attr.Name,
		Detail:   fmt.Sprintf(format, args...),
		Subject:  attr.Expr.Range().Ptr(),
	})
}

// value evaluates attrs[name] and converts it to ty. ok is false when the
// attribute is absent, null, unknown or wrong.
func (d dec) value(attrs hcl.Attributes, name string, ty cty.Type) (cty.Value, *hcl.Attribute, bool) {
	attr, ok := attrs[name]
	if !ok {
		return cty.NilVal, nil, false
	}
	v, ok := d.eval(attr.Expr)
	if !ok || v.IsNull() {
		return cty.NilVal, attr, false
	}
	cv, err := convert.Convert(v, ty)
	if err != nil {
		d.add(&hcl.Diagnostic{
			Severity:    hcl.DiagError,
			Summary:     "Incorrect attribute value type",
			Detail:      fmt.Sprintf("Inappropriate value for attribute %q: %s.", name, mismatch(v.Type(), ty, err)),
			Subject:     attr.Expr.Range().Ptr(),
			Expression:  attr.Expr,
			EvalContext: d.ctx,
		})
		return cty.NilVal, attr, false
	}
	return cv, attr, true
}

func mismatch(got, want cty.Type, err error) string {
	if want.IsPrimitiveType() {
		return want.FriendlyName() + " required"
	}
	if msg := convert.MismatchMessage(got, want); msg != "" {
		return msg
	}
	return err.Error()
}

func (d dec) str(attrs hcl.Attributes, name string, dst *string) *hcl.Attribute {
	v, attr, ok := d.value(attrs, name, cty.String)
	if ok {
		*dst = v.AsString()
	}
	return attr
}

// oneOf decodes a string that must be one of choices.
func (d dec) oneOf(attrs hcl.Attributes, name string, dst *string, choices ...string) {
	v, attr, ok := d.value(attrs, name, cty.String)
	if !ok {
		return
	}
	if s := v.AsString(); slices.Contains(choices, s) {
		*dst = s
		return
	}
	d.invalid(attr, "%s", choiceDetail(name, v.AsString(), choices))
}

func choiceDetail(name, got string, choices []string) string {
	msg := fmt.Sprintf("%s must be one of %s, not %q.", name, quoteList(choices), got)
	if s := suggest(got, choices); s != "" {
		msg += fmt.Sprintf(" Did you mean %q?", s)
	}
	return msg
}

func quoteList(items []string) string {
	s := ""
	for i, it := range items {
		switch {
		case i == 0:
		case i == len(items)-1:
			s += " or "
		default:
			s += ", "
		}
		s += strconv.Quote(it)
	}
	return s
}

// suggest returns the closest of choices to given, or "" when none is close
// (the same rule as hcl's own "Did you mean" suggestions).
func suggest(given string, choices []string) string {
	for _, c := range choices {
		if levenshtein.Distance(given, c, nil) < 3 {
			return c
		}
	}
	return ""
}

func (d dec) boolean(attrs hcl.Attributes, name string, dst *bool) {
	if v, _, ok := d.value(attrs, name, cty.Bool); ok {
		*dst = v.True()
	}
}

func (d dec) float(attrs hcl.Attributes, name string, dst *float64) *hcl.Attribute {
	v, attr, ok := d.value(attrs, name, cty.Number)
	if !ok {
		return nil
	}
	f, _ := v.AsBigFloat().Float64()
	*dst = f
	return attr
}

// int64 decodes a whole number of at least min.
func (d dec) int64(attrs hcl.Attributes, name string, dst *int64, min int64) *hcl.Attribute {
	v, attr, ok := d.value(attrs, name, cty.Number)
	if !ok {
		return nil
	}
	bf := v.AsBigFloat()
	if !bf.IsInt() {
		d.invalid(attr, "%s must be a whole number, not %s.", name, bf.Text('g', -1))
		return nil
	}
	i, acc := bf.Int64()
	if acc != big.Exact {
		d.invalid(attr, "%s is out of range.", name)
		return nil
	}
	if i < min {
		d.invalid(attr, "%s must be at least %d, not %d.", name, min, i)
		return nil
	}
	*dst = i
	return attr
}

func (d dec) integer(attrs hcl.Attributes, name string, dst *int, min int) *hcl.Attribute {
	var i int64
	attr := d.int64(attrs, name, &i, int64(min))
	if attr != nil {
		*dst = int(i)
	}
	return attr
}

// duration decodes a Go duration string; negative durations are errors,
// and so is zero when positive is set.
func (d dec) duration(attrs hcl.Attributes, name string, dst *time.Duration, positive bool) *hcl.Attribute {
	v, attr, ok := d.value(attrs, name, cty.String)
	if !ok {
		return nil
	}
	dur, ok := d.parseDuration(attr, v.AsString(), attr.Expr.Range())
	if !ok {
		return nil
	}
	if !d.checkDuration(attr, dur, positive) {
		return nil
	}
	*dst = dur
	return attr
}

func (d dec) checkDuration(attr *hcl.Attribute, dur time.Duration, positive bool) bool {
	switch {
	case positive && dur <= 0:
		d.invalid(attr, "%s must be longer than 0s, not %s.", attr.Name, dur)
		return false
	case dur < 0:
		d.invalid(attr, "%s may not be negative (%s).", attr.Name, dur)
		return false
	}
	return true
}

func (d dec) parseDuration(attr *hcl.Attribute, s string, rng hcl.Range) (time.Duration, bool) {
	dur, err := parseDuration(s)
	if err != nil {
		d.add(&hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid duration",
			Detail:   fmt.Sprintf("Invalid value for %q: %s.", attr.Name, err),
			Subject:  rng.Ptr(),
		})
		return 0, false
	}
	return dur, true
}

func (d dec) stringMap(attrs hcl.Attributes, name string, dst *map[string]string) *hcl.Attribute {
	v, attr, ok := d.value(attrs, name, cty.Map(cty.String))
	if !ok {
		return nil
	}
	m := map[string]string{}
	for k, e := range v.AsValueMap() {
		if !e.IsNull() {
			m[k] = e.AsString()
		}
	}
	*dst = m
	return attr
}

// stringList decodes a list of strings.
func (d dec) stringList(attrs hcl.Attributes, name string, dst *[]string) {
	v, _, ok := d.value(attrs, name, cty.List(cty.String))
	if !ok {
		return
	}
	var out []string
	for _, e := range v.AsValueSlice() {
		if !e.IsNull() {
			out = append(out, e.AsString())
		}
	}
	*dst = out
}

// jsonObject decodes an object into plain JSON values (numbers as float64).
func (d dec) jsonObject(attrs hcl.Attributes, name string, dst *map[string]any) *hcl.Attribute {
	v, attr, ok := d.value(attrs, name, cty.DynamicPseudoType)
	if !ok {
		return nil
	}
	if !v.Type().IsObjectType() && !v.Type().IsMapType() {
		d.invalid(attr, "%s must be an object, such as { temperature = 0 }.", name)
		return nil
	}
	var m map[string]any
	if err := toJSON(v, &m); err != nil {
		d.invalid(attr, "%s cannot be turned into JSON: %s.", name, err)
		return nil
	}
	*dst = m
	return attr
}

// now is the clock a decode reads (start_at must lie ahead); tests set it.
var now = time.Now

// toJSON turns a cty value into plain Go JSON values.
func toJSON(v cty.Value, dst any) error {
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return err
	}
	return json.Unmarshal(b, dst)
}

// sortedAttrs returns attributes in source order.
func sortedAttrs(attrs hcl.Attributes) []*hcl.Attribute {
	list := make([]*hcl.Attribute, 0, len(attrs))
	for _, a := range attrs {
		list = append(list, a)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Range.Start.Byte < list[j].Range.Start.Byte })
	return list
}

// atMostOne reports every block of blocks after the first as a duplicate.
func atMostOne(diags *hcl.Diagnostics, blocks hcl.Blocks, where string) *hcl.Block {
	if len(blocks) == 0 {
		return nil
	}
	for _, b := range blocks[1:] {
		*diags = append(*diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  fmt.Sprintf("Duplicate %s block", b.Type),
			Detail: fmt.Sprintf("Only one %s block is allowed in %s; the first was declared at %s.",
				b.Type, where, blocks[0].DefRange),
			Subject: b.DefRange.Ptr(),
		})
	}
	return blocks[0]
}
