package scenario

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// DiagStyle says how diagnostics are rendered. Line writes one
// file:line:col line each (severity, summary, detail and a failed
// condition's values), the form CI annotations and editors read; Block
// writes HCL's own block with the source snippet, for people. `llmload`
// writes Block on a terminal, Line elsewhere (-compact), both with
// -verbose. Color colours the block.
type DiagStyle struct {
	Line, Block, Color bool
}

// Verbose is both forms, one after the other: what -verbose shows, and
// what the golden files hold.
var Verbose = DiagStyle{Line: true, Block: true}

// WriteDiagnostics renders diags in style, with source snippets from the
// configuration's files (c may be nil: no snippets). It is the one
// renderer of diagnostics: every command and every golden file uses it.
func (c *Config) WriteDiagnostics(w io.Writer, diags hcl.Diagnostics, style DiagStyle) error {
	var files map[string]*hcl.File
	if c != nil {
		files = c.Files
	}
	wr := hcl.NewDiagnosticTextWriter(w, files, 78, style.Color)
	for _, d := range diags {
		if style.Line || !style.Block {
			if _, err := fmt.Fprintln(w, CompactDiagnostic(d)); err != nil {
				return err
			}
		}
		if style.Block {
			if err := wr.WriteDiagnostic(d); err != nil {
				if _, err := fmt.Fprintln(w, d.Error()); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// CompactDiagnostic is a diagnostic on one line:
// file:line:col: error: Summary; Detail (with the values a failed
// condition saw).
func CompactDiagnostic(d *hcl.Diagnostic) string {
	sev := "error"
	if d.Severity == hcl.DiagWarning {
		sev = "warning"
	}
	s := sev + ": " + d.Summary
	if d.Subject != nil {
		s = fmt.Sprintf("%s:%d:%d: %s", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column, s)
	}
	if detail := strings.Join(strings.Fields(d.Detail), " "); detail != "" {
		s += "; " + detail
	}
	// The values a failed condition saw, as the full block shows them.
	if d.Expression != nil && d.EvalContext != nil {
		var with []string
		seen := map[string]bool{}
		for _, tr := range d.Expression.Variables() {
			v, diags := tr.TraverseAbs(d.EvalContext)
			name := TraversalString(tr)
			if diags.HasErrors() || seen[name] || !v.IsWhollyKnown() {
				continue
			}
			seen[name] = true
			with = append(with, name+" = "+ValueString(v))
		}
		if len(with) > 0 {
			s += " (with " + strings.Join(with, ", ") + ")"
		}
	}
	return s
}

// TraversalString writes a reference as it is written in a condition:
// metrics.ttft.p99, server["vllm:num_requests_running"].max.
func TraversalString(tr hcl.Traversal) string {
	var b strings.Builder
	for _, step := range tr {
		switch s := step.(type) {
		case hcl.TraverseRoot:
			b.WriteString(s.Name)
		case hcl.TraverseAttr:
			b.WriteString("." + s.Name)
		case hcl.TraverseIndex:
			if s.Key.Type() == cty.String && s.Key.IsKnown() && !s.Key.IsNull() {
				b.WriteString("[" + strconv.Quote(s.Key.AsString()) + "]")
			} else {
				b.WriteString("[" + ValueString(s.Key) + "]")
			}
		}
	}
	return b.String()
}

// ValueString writes a value a condition saw, for a person: numbers to
// six significant digits (enough to compare with a threshold, short
// enough to read), null as "null (no samples)".
func ValueString(v cty.Value) string {
	switch {
	case v.IsNull():
		return "null (no samples)"
	case !v.IsKnown():
		return "unknown"
	case v.Type() == cty.Number:
		f, _ := v.AsBigFloat().Float64()
		return strconv.FormatFloat(f, 'g', 6, 64)
	case v.Type() == cty.String:
		return strconv.Quote(v.AsString())
	case v.Type() == cty.Bool:
		return strconv.FormatBool(v.True())
	case v.Type().IsObjectType():
		return "an object"
	}
	return v.Type().FriendlyName()
}
