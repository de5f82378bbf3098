package scenario

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Sources of a variable's value, from the highest precedence down.
const (
	SourceVar     = "-var"
	SourceVarFile = "-var-file"
	SourceEnv     = "environment"
	SourceDefault = "default"
)

// variable is a variable block being resolved.
type variable struct {
	decl        *Variable
	ty          cty.Type
	def         cty.Value // cty.NilVal when there is no default, unknown when it is invalid
	defRange    *hcl.Range
	validations []validation
	value       cty.Value
	valueRange  *hcl.Range // where the value was written, when in a file
	fromCLI     bool       // set by -var, which outranks -var-file
}

type validation struct {
	condition    hcl.Expression
	errorMessage string
}

var variableSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "default"}, {Name: "type"}, {Name: "description"}, {Name: "sensitive"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "validation"}},
}

var validationSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "condition", Required: true}, {Name: "error_message", Required: true}},
}

// declareVariable decodes a variable block (its default is evaluated with
// functions but no variables).
func (l *loader) declareVariable(b *hcl.Block) {
	name := b.Labels[0]
	if !l.checkName(b) {
		return
	}
	if first := l.variable(name); first != nil {
		l.duplicate(b, first.decl.DeclRange)
		return
	}
	v := &variable{
		decl: &Variable{Name: name, Type: "any", DeclRange: b.DefRange},
		ty:   cty.DynamicPseudoType,
	}
	l.variables = append(l.variables, v)
	l.cfg.Variables = append(l.cfg.Variables, v.decl)

	content, diags := b.Body.Content(variableSchema)
	l.diags = append(l.diags, diags...)
	d := dec{
		ctx:   &hcl.EvalContext{Functions: configFunctions(filepath.Dir(b.DefRange.Filename), l.environ, l.envRead)},
		diags: &l.diags,
	}
	d.str(content.Attributes, "description", &v.decl.Description)
	d.boolean(content.Attributes, "sensitive", &v.decl.Sensitive)
	if attr, ok := content.Attributes["type"]; ok {
		ty, diags := typeexpr.TypeConstraint(attr.Expr)
		l.diags = append(l.diags, diags...)
		if !diags.HasErrors() {
			v.ty = ty
			v.decl.Type = typeexpr.TypeString(ty)
		}
	}
	if attr, ok := content.Attributes["default"]; ok {
		val, ok := d.eval(attr.Expr)
		v.def = cty.DynamicVal // unknown until it proves valid: no "required" error
		if ok {
			if cv, err := convert.Convert(val, v.ty); err != nil {
				l.diags = append(l.diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Invalid default value for variable",
					Detail:   fmt.Sprintf("This default value is not compatible with the variable's type constraint: %s.", err),
					Subject:  attr.Expr.Range().Ptr(),
				})
			} else {
				v.def, v.defRange = cv, attr.Expr.Range().Ptr()
			}
		}
	}
	for _, vb := range content.Blocks.OfType("validation") {
		vc, diags := vb.Body.Content(validationSchema)
		l.diags = append(l.diags, diags...)
		cond, ok := vc.Attributes["condition"]
		if !ok {
			continue
		}
		val := validation{condition: cond.Expr}
		if d.str(vc.Attributes, "error_message", &val.errorMessage) == nil {
			continue
		}
		selfOnly := true
		for _, tr := range cond.Expr.Variables() {
			if tr.RootName() != "var" || len(tr) < 2 || attrName(tr[1]) != name {
				selfOnly = false
				l.diags = append(l.diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Invalid reference in variable validation",
					Detail:   fmt.Sprintf("The condition of a validation rule may refer only to the variable itself, var.%s.", name),
					Subject:  tr.SourceRange().Ptr(),
				})
			}
		}
		if selfOnly {
			v.validations = append(v.validations, val)
		}
	}
}

func attrName(step hcl.Traverser) string {
	if a, ok := step.(hcl.TraverseAttr); ok {
		return a.Name
	}
	return ""
}

func (l *loader) variable(name string) *variable {
	for _, v := range l.variables {
		if v.decl.Name == name {
			return v
		}
	}
	return nil
}

func (l *loader) variableNames() []string {
	names := make([]string, len(l.variables))
	for i, v := range l.variables {
		names[i] = v.decl.Name
	}
	return names
}

// undeclared reports a value given for a variable that no block declares.
func (l *loader) undeclared(name, where string, subject *hcl.Range) {
	detail := fmt.Sprintf("A value for %q was given %s, but no variable block declares it.", name, where)
	if s := suggest(name, l.variableNames()); s != "" {
		detail += fmt.Sprintf(" Did you mean %q?", s)
	}
	l.diags = append(l.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Undeclared variable",
		Detail:   detail,
		Subject:  subject,
	})
}

// resolveVariables gives every variable its value (-var, then -var-file,
// then LLMLOAD_VAR_<name>, then default), checks validations and builds
// the var object.
func (l *loader) resolveVariables() {
	// -var: the last one for a name wins.
	cli := map[string]string{}
	for _, kv := range l.opts.Vars {
		name, raw, ok := strings.Cut(kv, "=")
		name = strings.TrimSpace(name)
		switch {
		case !ok || name == "":
			l.diags = append(l.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid -var option",
				Detail:   fmt.Sprintf("The -var option %q is not of the form name=value.", kv),
			})
		case l.variable(name) == nil:
			l.undeclared(name, "with -var", nil)
		default:
			cli[name] = raw
		}
	}
	for _, v := range l.variables {
		if raw, ok := cli[v.decl.Name]; ok {
			v.fromCLI = true
			l.setRaw(v, raw, SourceVar, fmt.Sprintf("<value for var.%s>", v.decl.Name))
		}
	}

	// -var-file: a later file wins.
	for _, path := range l.opts.VarFiles {
		l.readVarFile(path)
	}

	for _, v := range l.variables {
		if v.value != cty.NilVal {
			continue
		}
		env := EnvVarPrefix + v.decl.Name
		if raw, ok := l.environ[env]; ok {
			l.setRaw(v, raw, SourceEnv, fmt.Sprintf("<value for var.%s from %s>", v.decl.Name, env))
			continue
		}
		if v.def != cty.NilVal {
			v.value, v.decl.Source, v.valueRange = v.def, SourceDefault, v.defRange
			continue
		}
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "No value for required variable",
			Detail: fmt.Sprintf("The variable %q has no default, so it needs a value: -var %s=..., a -var-file, or the environment variable %s.",
				v.decl.Name, v.decl.Name, env),
			Subject: v.decl.DeclRange.Ptr(),
		})
	}

	vals := map[string]cty.Value{}
	for _, v := range l.variables {
		if v.value == cty.NilVal {
			vals[v.decl.Name] = cty.DynamicVal // unknown: its error is reported
			continue
		}
		l.validate(v)
		vals[v.decl.Name] = v.value
		var plain any
		if v.value.IsWhollyKnown() && toJSON(v.value, &plain) == nil {
			v.decl.Value = plain
		}
		if v.decl.Sensitive {
			v.decl.Value = SensitiveValue
			l.secrets.Add(secretStrings(v.value)...)
		}
	}
	l.vars = cty.ObjectVal(vals)
}

// setRaw sets a variable from a -var or environment string: taken as is
// for string and untyped variables, parsed as an HCL expression otherwise.
func (l *loader) setRaw(v *variable, raw, src, filename string) {
	if v.ty == cty.String || v.ty == cty.DynamicPseudoType {
		v.value, v.decl.Source = cty.StringVal(raw), src
		return
	}
	b := []byte(raw)
	shown := b
	if v.decl.Sensitive {
		// The value is parsed, but a diagnostic's snippet shows a mask.
		shown = []byte(strings.Repeat("*", len(raw)))
		l.secrets.Add(raw)
	}
	l.cfg.Files[filename] = &hcl.File{Bytes: shown, Body: hcl.EmptyBody()}
	expr, diags := hclsyntax.ParseExpression(b, filename, hcl.InitialPos)
	if !diags.HasErrors() {
		var val cty.Value
		if val, diags = expr.Value(nil); !diags.HasErrors() {
			l.set(v, val, expr.Range(), src)
			return
		}
	}
	if v.decl.Sensitive {
		raw = "(sensitive value)"
	}
	// Not a value at all (-var rate=abc reads as a reference to abc): say
	// what the variable wants rather than what HCL saw.
	rng := hcl.Range{Filename: filename, Start: hcl.InitialPos, End: hcl.Pos{Line: 1, Column: len(raw) + 1, Byte: len(raw)}}
	l.diags = append(l.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Invalid value for variable",
		Detail:   fmt.Sprintf("variable %q: want %s, got %q (from %s).", v.decl.Name, wantType(v.ty), raw, src),
		Subject:  &rng,
	})
	v.value = cty.DynamicVal
}

// wantType says in words what a value of type ty looks like.
func wantType(ty cty.Type) string {
	switch {
	case ty == cty.Number:
		return "a number"
	case ty == cty.Bool:
		return "true or false"
	case ty == cty.String:
		return "a string"
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		return fmt.Sprintf("a list, as [1, 2] (type %s)", typeexpr.TypeString(ty))
	case ty.IsMapType() || ty.IsObjectType():
		return fmt.Sprintf(`an object, as { name = "value" } (type %s)`, typeexpr.TypeString(ty))
	}
	return "a value of type " + typeexpr.TypeString(ty)
}

// set converts val to the variable's type and stores it.
func (l *loader) set(v *variable, val cty.Value, rng hcl.Range, src string) {
	cv, err := convert.Convert(val, v.ty)
	if err != nil {
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid value for variable",
			Detail:   convertDetail(v, val, err),
			Subject:  rng.Ptr(),
		})
		v.value = cty.DynamicVal
		return
	}
	v.value, v.decl.Source, v.valueRange = cv, src, rng.Ptr()
}

// readVarFile applies a -var-file: HCL attributes, or a JSON object.
func (l *loader) readVarFile(path string) {
	var f *hcl.File
	var diags hcl.Diagnostics
	if _, err := os.Stat(path); err != nil {
		// HCL's own message says only that the file "could not be read".
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Unreadable -var-file",
			Detail:   fmt.Sprintf("-var-file %s: %v. It names a file of variable values (name = value lines, or a JSON object), relative to the current directory.", path, err),
		})
		return
	}
	if strings.HasSuffix(path, ".json") {
		f, diags = l.parser.ParseJSONFile(path)
	} else {
		f, diags = l.parser.ParseHCLFile(path)
	}
	l.diags = append(l.diags, diags...)
	if f == nil || f.Body == nil {
		return
	}
	attrs, diags := f.Body.JustAttributes()
	l.diags = append(l.diags, diags...)
	for _, attr := range sortedAttrs(attrs) {
		v := l.variable(attr.Name)
		if v == nil {
			l.undeclared(attr.Name, "in a -var-file", attr.NameRange.Ptr())
			continue
		}
		if v.fromCLI {
			continue
		}
		val, diags := attr.Expr.Value(nil)
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() {
			v.value = cty.DynamicVal
			continue
		}
		l.set(v, val, attr.Expr.Range(), SourceVarFile)
	}
}

// validate checks a variable's validation rules against its value.
func (l *loader) validate(v *variable) {
	if !v.value.IsWhollyKnown() {
		return
	}
	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{"var": cty.ObjectVal(map[string]cty.Value{v.decl.Name: v.value})},
		Functions: configFunctions(filepath.Dir(v.decl.DeclRange.Filename), l.environ, l.envRead),
	}
	for _, val := range v.validations {
		res, diags := val.condition.Value(ctx)
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() {
			continue
		}
		// An empty or unknown condition is no condition: saying so beats
		// reading it (cty panics on True() of an unknown value).
		if res, err := convert.Convert(res, cty.Bool); err != nil || res.IsNull() || !res.IsWhollyKnown() {
			l.diags = append(l.diags, &hcl.Diagnostic{
				Severity:    hcl.DiagError,
				Summary:     "Invalid validation condition",
				Detail:      "A validation condition must be true or false.",
				Subject:     val.condition.Range().Ptr(),
				Expression:  val.condition,
				EvalContext: ctx,
			})
			continue
		} else if res.True() {
			continue
		}
		subject := v.valueRange
		if subject == nil {
			subject = val.condition.Range().Ptr()
		}
		diag := &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid value for variable",
			Detail: fmt.Sprintf("%s\n\nThis was checked by the validation rule at %s.",
				val.errorMessage, val.condition.Range()),
			Subject:     subject,
			Expression:  val.condition,
			EvalContext: ctx,
		}
		if v.decl.Sensitive {
			// Without the context, no "var.key is ..." line.
			diag.Expression, diag.EvalContext = nil, nil
			diag.Detail += " The value is sensitive and not shown."
		}
		l.diags = append(l.diags, diag)
	}
}

// SensitiveValue stands for a sensitive variable's value wherever the
// configuration is shown (plan, result files).
const SensitiveValue = "(sensitive)"

// secretStrings returns the strings (and numbers, as written) inside a
// sensitive value, for scrubbing.
func secretStrings(v cty.Value) []string {
	if !v.IsWhollyKnown() || v.IsNull() {
		return nil
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return []string{v.AsString()}
	case ty == cty.Number:
		return []string{formatNumber(v)}
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType() || ty.IsMapType() || ty.IsObjectType():
		var out []string
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			out = append(out, secretStrings(e)...)
		}
		return out
	}
	return nil
}

// valueWords shows a value as a user wrote it, for messages.
func valueWords(v cty.Value) string {
	if !v.IsWhollyKnown() || v.IsNull() {
		return "null"
	}
	var plain any
	if toJSON(v, &plain) == nil {
		if b, err := json.Marshal(plain); err == nil {
			return string(b)
		}
	}
	return v.Type().FriendlyName()
}

func convertDetail(v *variable, val cty.Value, err error) string {
	got := valueWords(val)
	if v.decl.Sensitive {
		got = "a sensitive value of type " + val.Type().FriendlyName()
	}
	d := fmt.Sprintf("variable %q: want %s, got %s", v.decl.Name, wantType(v.ty), got)
	if v.decl.Sensitive {
		return d + "."
	}
	if v.ty.IsPrimitiveType() {
		return d + "."
	}
	// Which element or attribute does not fit.
	return d + ": " + err.Error() + "."
}
