//go:build tools

// Package tools pins modules that packages are being written against, so that
// go mod tidy keeps them while the code that imports them lands.
package tools

import (
	_ "github.com/HdrHistogram/hdrhistogram-go"
	_ "github.com/agext/levenshtein"
	_ "github.com/dlclark/regexp2"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/hashicorp/hcl/v2"
	_ "github.com/hashicorp/hcl/v2/gohcl"
	_ "github.com/hashicorp/hcl/v2/hclsyntax"
	_ "github.com/hashicorp/hcl/v2/hclwrite"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/prometheus/client_golang/prometheus/promhttp"
	_ "github.com/tidwall/gjson"
	_ "github.com/zclconf/go-cty/cty"
	_ "github.com/zclconf/go-cty/cty/function/stdlib"
	_ "golang.org/x/term"
	_ "golang.org/x/text/unicode/norm"
)
