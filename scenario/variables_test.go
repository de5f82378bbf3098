package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const precedenceConfig = `
variable "s" {
  default = "default"
}
variable "n" {
  type    = number
  default = 1
  validation {
    condition     = var.n < 100
    error_message = "n must stay under 100."
  }
}
variable "l" {
  type    = list(string)
  default = []
}
variable "req" {
  type = string
}
`

func TestVariablePrecedence(t *testing.T) {
	type value struct {
		Value  any
		Source string
	}
	base := map[string]value{
		"s":   {"default", SourceDefault},
		"n":   {1.0, SourceDefault},
		"l":   {[]any{}, SourceDefault},
		"req": {"r", SourceEnv},
	}
	with := func(changes map[string]value) map[string]value {
		m := map[string]value{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range changes {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name      string
		vars      []string
		varFiles  map[string]string // name -> content, applied in name order
		env       []string          // LLMLOAD_VAR_req=r is added unless unsetReq
		unsetReq  bool
		want      map[string]value
		wantDiags []string
	}{
		{
			name: "defaults",
			want: base,
		},
		{
			name: "environment over default",
			env:  []string{"LLMLOAD_VAR_s=from env", "LLMLOAD_VAR_n=5", `LLMLOAD_VAR_l=["a", "b"]`},
			want: with(map[string]value{
				"s": {"from env", SourceEnv},
				"n": {5.0, SourceEnv},
				"l": {[]any{"a", "b"}, SourceEnv},
			}),
		},
		{
			name:     "var file over environment",
			env:      []string{"LLMLOAD_VAR_s=from env", "LLMLOAD_VAR_n=5"},
			varFiles: map[string]string{"a.hcl": "s = \"from file\"\nn = 7\n"},
			want: with(map[string]value{
				"s": {"from file", SourceVarFile},
				"n": {7.0, SourceVarFile},
			}),
		},
		{
			name:     "later var file wins",
			varFiles: map[string]string{"a.hcl": "n = 7\ns = \"a\"\n", "b.json": `{"n": 8}`},
			want: with(map[string]value{
				"s": {"a", SourceVarFile},
				"n": {8.0, SourceVarFile},
			}),
		},
		{
			name:     "-var over var file and environment",
			env:      []string{"LLMLOAD_VAR_n=5"},
			varFiles: map[string]string{"a.hcl": "n = 7\n"},
			vars:     []string{"n=9", "s=x=y"},
			want: with(map[string]value{
				"s": {"x=y", SourceVar},
				"n": {9.0, SourceVar},
			}),
		},
		{
			name: "last -var wins; untyped values stay strings",
			vars: []string{"n=2", "n=3", "s=[1]", `l=["x"]`, "req=from -var"},
			want: with(map[string]value{
				"s":   {"[1]", SourceVar},
				"n":   {3.0, SourceVar},
				"l":   {[]any{"x"}, SourceVar},
				"req": {"from -var", SourceVar},
			}),
		},
		{
			name:      "undeclared -var",
			vars:      []string{"nn=2"},
			want:      base,
			wantDiags: []string{"Undeclared variable"},
		},
		{
			name:      "malformed -var",
			vars:      []string{"n"},
			want:      base,
			wantDiags: []string{"Invalid -var option"},
		},
		{
			name:      "-var of the wrong type",
			vars:      []string{`n="many"`},
			want:      with(map[string]value{"n": {nil, ""}}),
			wantDiags: []string{"Invalid value for variable"},
		},
		{
			name:      "-var failing validation",
			vars:      []string{"n=100"},
			want:      with(map[string]value{"n": {100.0, SourceVar}}),
			wantDiags: []string{"Invalid value for variable"},
		},
		{
			name:      "undeclared name in a var file",
			varFiles:  map[string]string{"a.hcl": "nope = 1\n"},
			want:      base,
			wantDiags: []string{"Undeclared variable"},
		},
		{
			name:      "required variable unset",
			env:       []string{"LLMLOAD_VAR_s=x"},
			unsetReq:  true,
			want:      with(map[string]value{"s": {"x", SourceEnv}, "req": {nil, ""}}),
			wantDiags: []string{"No value for required variable"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cfgPath := filepath.Join(dir, "vars.hcl")
			if err := os.WriteFile(cfgPath, []byte(precedenceConfig), 0o644); err != nil {
				t.Fatal(err)
			}
			opts := LoadOptions{Vars: tt.vars, Environ: tt.env}
			if !tt.unsetReq {
				opts.Environ = append(opts.Environ, "LLMLOAD_VAR_req=r")
			}
			for _, name := range mapKeys(tt.varFiles) {
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, []byte(tt.varFiles[name]), 0o644); err != nil {
					t.Fatal(err)
				}
				opts.VarFiles = append(opts.VarFiles, p)
			}
			cfg, diags := Load([]string{cfgPath}, opts)
			var gotDiags []string
			for _, d := range diags {
				gotDiags = append(gotDiags, d.Summary)
			}
			if diff := cmp.Diff(tt.wantDiags, gotDiags); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
			got := map[string]value{}
			for _, v := range cfg.Variables {
				got[v.Name] = value{v.Value, v.Source}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("variables (-want +got):\n%s", diff)
			}
		})
	}
}

// An untyped variable set on the command line is a string; the number
// attributes it feeds accept it, rate included.
func TestUntypedVariableFeedsNumbers(t *testing.T) {
	const src = `
variable "rate" {
  default = 10
}
variable "users" {
  default = 2
}
target "t" {
  base_url = "sim://tiny"
}
dataset "d" {
  random {}
}
scenario "open" {
  target  = target.t
  dataset = dataset.d
  open_loop {
    rate = var.rate
  }
}
scenario "closed" {
  target  = target.t
  dataset = dataset.d
  closed_loop {
    users    = var.users
    duration = "1s"
  }
}
`
	dir := t.TempDir()
	path := filepath.Join(dir, "s.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		vars      []string
		environ   []string
		wantRate  float64
		wantUsers int
	}{
		{nil, nil, 10, 2},
		{[]string{"rate=20", "users=5"}, nil, 20, 5},
		{nil, []string{"LLMLOAD_VAR_rate=2.5", "LLMLOAD_VAR_users=3"}, 2.5, 3},
	}
	for _, tt := range tests {
		cfg, diags := Load([]string{path}, LoadOptions{Vars: tt.vars, Environ: tt.environ})
		if diags.HasErrors() {
			t.Errorf("vars %v env %v: %s", tt.vars, tt.environ, diags.Error())
			continue
		}
		got := []any{cfg.Scenario("open").OpenLoop.Rate, cfg.Scenario("closed").ClosedLoop.Stages[0].Users}
		if diff := cmp.Diff([]any{tt.wantRate, tt.wantUsers}, got); diff != "" {
			t.Errorf("vars %v env %v: rate, users (-want +got):\n%s", tt.vars, tt.environ, diff)
		}
	}
}

// A value of the wrong type says what the variable wants, whatever the
// value's form (HCL would say "Variables not allowed" of -var n=abc).
func TestVariableTypeErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "v.hcl")
	if err := os.WriteFile(path, []byte(precedenceConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		opts LoadOptions
		want string
	}{
		{LoadOptions{Vars: []string{"req=x", "n=abc"}}, `variable "n": want a number, got "abc" (from -var).`},
		{LoadOptions{Vars: []string{"req=x", "n=true"}}, `variable "n": want a number, got true.`},
		{LoadOptions{Vars: []string{"req=x", "l=3"}}, `variable "l": want a list, as [1, 2] (type list(string)), got 3`},
		{LoadOptions{Vars: []string{"req=x"}, Environ: []string{"LLMLOAD_VAR_n=ten"}}, `variable "n": want a number, got "ten" (from environment).`},
	}
	for _, tt := range tests {
		_, diags := Load([]string{path}, tt.opts)
		if len(diags) != 1 || !strings.HasPrefix(diags[0].Detail, tt.want) {
			t.Errorf("%v: diagnostics %v, want one with detail %q", tt.opts, diags, tt.want)
		}
	}
}

// A -var-file that does not exist is named, with why and what it is for.
func TestMissingVarFile(t *testing.T) {
	_, diags := Load([]string{"testdata/valid/full.hcl"}, LoadOptions{VarFiles: []string{"no-such-vars.hcl"}})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "-var-file no-such-vars.hcl: stat no-such-vars.hcl: no such file or directory") {
		t.Errorf("diagnostics %q: want one naming the missing -var-file and why", diags.Error())
	}
}
