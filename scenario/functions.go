package scenario

import (
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// maxFileSize bounds what file() reads.
const maxFileSize = 16 << 20

// stdFunctions is the allow-list of cty's standard functions, available in
// configuration attributes and (except env and file) in assert conditions.
func stdFunctions() map[string]function.Function {
	return map[string]function.Function{
		// strings
		"upper": stdlib.UpperFunc, "lower": stdlib.LowerFunc, "title": stdlib.TitleFunc,
		"format": stdlib.FormatFunc, "formatlist": stdlib.FormatListFunc,
		"join": stdlib.JoinFunc, "split": stdlib.SplitFunc, "replace": stdlib.ReplaceFunc,
		"substr": stdlib.SubstrFunc, "strlen": stdlib.StrlenFunc, "chomp": stdlib.ChompFunc,
		"trim": stdlib.TrimFunc, "trimspace": stdlib.TrimSpaceFunc,
		"trimprefix": stdlib.TrimPrefixFunc, "trimsuffix": stdlib.TrimSuffixFunc,
		"indent": stdlib.IndentFunc, "regex": stdlib.RegexFunc, "regexall": stdlib.RegexAllFunc,
		"regex_replace": stdlib.RegexReplaceFunc,
		// numbers
		"abs": stdlib.AbsoluteFunc, "ceil": stdlib.CeilFunc, "floor": stdlib.FloorFunc,
		"log": stdlib.LogFunc, "max": stdlib.MaxFunc, "min": stdlib.MinFunc,
		"pow": stdlib.PowFunc, "signum": stdlib.SignumFunc, "parseint": stdlib.ParseIntFunc,
		// collections
		"length": stdlib.LengthFunc, "concat": stdlib.ConcatFunc, "merge": stdlib.MergeFunc,
		"keys": stdlib.KeysFunc, "values": stdlib.ValuesFunc, "lookup": stdlib.LookupFunc,
		"coalesce": stdlib.CoalesceFunc, "coalescelist": stdlib.CoalesceListFunc,
		"compact": stdlib.CompactFunc, "contains": stdlib.ContainsFunc,
		"distinct": stdlib.DistinctFunc, "element": stdlib.ElementFunc,
		"flatten": stdlib.FlattenFunc, "range": stdlib.RangeFunc, "reverse": stdlib.ReverseListFunc,
		"slice": stdlib.SliceFunc, "sort": stdlib.SortFunc, "zipmap": stdlib.ZipmapFunc,
		"jsonencode": stdlib.JSONEncodeFunc, "jsondecode": stdlib.JSONDecodeFunc,
		// conversions
		"tostring": stdlib.MakeToFunc(cty.String), "tonumber": stdlib.MakeToFunc(cty.Number),
		"tobool": stdlib.MakeToFunc(cty.Bool), "tolist": stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)),
		"tomap": stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)),
		"toset": stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType)),
		// ours
		"ms": msFunc,
	}
}

// ConditionFunctions returns the functions an assert condition may call:
// ms() and the standard string, number and collection functions (not env or
// file: a condition depends on the run's metrics only).
func ConditionFunctions() map[string]function.Function { return stdFunctions() }

// configFunctions returns the functions of configuration attributes in a
// file under dir: the standard ones plus env and file. env notes in read
// each variable it read.
func configFunctions(dir string, environ map[string]string, read map[string]bool) map[string]function.Function {
	fns := stdFunctions()
	fns["env"] = envFunc(environ, read)
	fns["file"] = fileFunc(dir)
	return fns
}

// msFunc turns a Go duration string into milliseconds: ms("1.5s") = 1500.
var msFunc = function.New(&function.Spec{
	Description: "Converts a duration string such as \"1.5s\" into milliseconds.",
	Params:      []function.Parameter{{Name: "duration", Type: cty.String}},
	Type:        function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		d, err := parseDuration(args[0].AsString())
		if err != nil {
			return cty.NilVal, function.NewArgError(0, err)
		}
		return cty.NumberVal(new(big.Float).Quo(big.NewFloat(float64(d)), big.NewFloat(float64(time.Millisecond)))), nil
	},
})

// envFunc reads an environment variable: env(name) fails when it is unset,
// env(name, default) returns default then.
func envFunc(environ map[string]string, read map[string]bool) function.Function {
	return function.New(&function.Spec{
		Description: "Returns an environment variable, or the default when it is unset.",
		Params:      []function.Parameter{{Name: "name", Type: cty.String}},
		VarParam:    &function.Parameter{Name: "default", Type: cty.String},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if len(args) > 2 {
				return cty.NilVal, function.NewArgErrorf(2, "env takes a name and at most one default")
			}
			name := args[0].AsString()
			if read != nil {
				read[name] = true
			}
			if v, ok := environ[name]; ok {
				return cty.StringVal(v), nil
			}
			if len(args) == 2 {
				return args[1], nil
			}
			return cty.NilVal, function.NewArgErrorf(0, "environment variable %s is not set; give a default as env(%q, \"...\")", name, name)
		},
	})
}

// fileFunc reads a file relative to dir.
func fileFunc(dir string) function.Function {
	return function.New(&function.Spec{
		Description: "Returns the contents of a file, relative to the scenario file's folder.",
		Params:      []function.Parameter{{Name: "path", Type: cty.String}},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			path := resolvePath(dir, args[0].AsString())
			b, err := readSmallFile(path)
			if err != nil {
				return cty.NilVal, function.NewArgError(0, err)
			}
			return cty.StringVal(string(b)), nil
		},
	})
}

// readSmallFile reads a regular file of at most maxFileSize bytes.
func readSmallFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxFileSize {
		return nil, fmt.Errorf("%s is larger than %d MiB", path, maxFileSize>>20)
	}
	return b, nil
}

// resolvePath makes a relative path relative to dir.
func resolvePath(dir, path string) string {
	if path == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}

// parseDuration parses Go duration syntax, with an error that says so.
func parseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration: use a number with a unit, such as \"250ms\", \"30s\" or \"1m30s\"", s)
	}
	return d, nil
}
