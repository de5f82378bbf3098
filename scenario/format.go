package scenario

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
)

// Format returns src in canonical HCL layout (hclwrite's), or the syntax
// errors that prevent formatting it. filename names src in diagnostics.
func Format(filename string, src []byte) ([]byte, hcl.Diagnostics) {
	if _, diags := hclwrite.ParseConfig(src, filename, hcl.InitialPos); diags.HasErrors() {
		return nil, diags
	}
	return hclwrite.Format(src), nil
}
