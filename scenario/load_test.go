package scenario

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestValidFixtures loads each valid fixture and expects no diagnostics.
func TestValidFixtures(t *testing.T) {
	files, err := filepath.Glob("testdata/valid/*.hcl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no valid fixtures: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			cfg, diags := Load([]string{f}, LoadOptions{})
			if len(diags) > 0 {
				var buf bytes.Buffer
				cfg.WriteDiagnostics(&buf, diags, Verbose)
				t.Fatalf("unexpected diagnostics:\n%s", buf.String())
			}
			if len(cfg.Scenarios) == 0 {
				t.Fatal("no scenario decoded")
			}
		})
	}
}

// TestInvalidFixtures loads each invalid fixture and compares the
// (line, summary) pairs of its diagnostics with the "# ERROR: summary"
// comments it carries, then compares the rendered diagnostics with
// testdata/golden/<name>.golden.
func TestInvalidFixtures(t *testing.T) {
	files, err := filepath.Glob("testdata/invalid/*.hcl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no invalid fixtures: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			want, err := expectedDiagnostics(f)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 {
				t.Fatal("fixture declares no # ERROR: comment")
			}
			cfg, diags := Load([]string{f}, LoadOptions{})
			var got []string
			for _, d := range diags {
				line := 0
				if d.Subject != nil {
					line = d.Subject.Start.Line
				}
				if d.Severity != hcl.DiagError {
					t.Errorf("line %d: %q is not an error", line, d.Summary)
				}
				got = append(got, fmt.Sprintf("%d: %s", line, d.Summary))
			}
			sort.Strings(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}

			var buf bytes.Buffer
			if err := cfg.WriteDiagnostics(&buf, diags, Verbose); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", strings.TrimSuffix(filepath.Base(f), ".hcl")+".golden")
			compareGolden(t, golden, buf.Bytes())
		})
	}
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

// expectedDiagnostics reads "# ERROR: summary" comments: at the end of a
// line they apply to that line; on a line of their own, to the next line
// that is not a comment or blank.
func expectedDiagnostics(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var want, pending []string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		code, comment, _ := strings.Cut(line, "# ERROR:")
		code = strings.TrimSpace(code)
		if comment != "" && code == "" {
			pending = append(pending, strings.TrimSpace(comment))
			continue
		}
		if code == "" || strings.HasPrefix(code, "#") {
			continue
		}
		if comment != "" {
			pending = append(pending, strings.TrimSpace(comment))
		}
		for _, s := range pending {
			want = append(want, fmt.Sprintf("%d: %s", n, s))
		}
		pending = nil
	}
	if len(pending) > 0 {
		return nil, fmt.Errorf("%s: ERROR comments at the end of the file apply to no line", path)
	}
	sort.Strings(want)
	return want, sc.Err()
}
