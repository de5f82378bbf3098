package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
)

// TestSimBlockOnRealServer: an example written for the simulator, with a
// sim block, runs against a real server given -var base_url=...: the block
// is ignored with a warning that points at it, never an error.
func TestSimBlockOnRealServer(t *testing.T) {
	const src = `variable "base_url" {
  default = "sim://tiny"
}
target "t" {
  base_url = var.base_url
  model    = "m"
  sim {
    step_overhead = "1ms"
  }
}
`
	f := filepath.Join(t.TempDir(), "s.hcl")
	if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		vars     []string
		wantSim  map[string]string
		wantDiag string // "file:line:col: severity: summary", or "" for none
	}{
		{"the simulator", nil, map[string]string{"step_overhead": "1ms"}, ""},
		{"a real server", []string{"base_url=http://127.0.0.1:8000"}, nil, "s.hcl:7:3: warning: Simulator overrides ignored"},
		{"its password masked", []string{"base_url=http://u:hunter2@127.0.0.1:8000"}, nil, "s.hcl:7:3: warning: Simulator overrides ignored"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, diags := Load([]string{f}, LoadOptions{Vars: tt.vars})
			if diags.HasErrors() {
				t.Fatalf("errors: %v", diags)
			}
			var got string
			for _, d := range diags {
				got = CompactDiagnostic(d)
				if strings.Contains(got, "hunter2") {
					t.Errorf("the warning shows the URL's password: %s", got)
				}
				if d.Severity != hcl.DiagWarning {
					t.Errorf("%s: not a warning", got)
				}
			}
			if len(diags) > 1 {
				t.Errorf("%d diagnostics, want at most 1: %v", len(diags), diags)
			}
			if tt.wantDiag == "" && got != "" || tt.wantDiag != "" && !strings.Contains(got, tt.wantDiag) {
				t.Errorf("diagnostic %q, want %q", got, tt.wantDiag)
			}
			if diff := cmp.Diff(tt.wantSim, cfg.Target("t").Sim); diff != "" {
				t.Errorf("simulator overrides (-want +got):\n%s", diff)
			}
		})
	}
}
