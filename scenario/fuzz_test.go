package scenario

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse loads arbitrary bytes as a scenario file: whatever the input,
// Load must return diagnostics, never panic, and the diagnostics must
// render.
func FuzzParse(f *testing.F) {
	for _, pattern := range []string{"testdata/valid/*.hcl", "testdata/invalid/*.hcl"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		for _, name := range files {
			b, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		cfg, diags := load([]source{{"fuzz.hcl", src}}, LoadOptions{})
		if cfg == nil {
			t.Fatal("nil config")
		}
		if err := cfg.WriteDiagnostics(io.Discard, diags, Verbose); err != nil {
			t.Fatal(err)
		}
		if diags.HasErrors() {
			return
		}
		for _, s := range cfg.Scenarios {
			_ = s.Resolved()
			for _, sla := range s.SLA {
				_ = sla.Describe()
			}
		}
	})
}
