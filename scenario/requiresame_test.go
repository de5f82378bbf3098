package scenario

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// require_same_server_config in the regression block: a list of setting
// names, kept in the resolved checks that compare and merge read back.
func TestRequireSameServerConfig(t *testing.T) {
	head := `target "t" {
  base_url = "http://127.0.0.1:8000"
  model    = "m"
}
dataset "d" {
  random {}
}
scenario "s" {
  target   = target.t
  dataset  = dataset.d
  baseline = "b.json"
  open_loop {
    rate = 1
  }
  regression {
`
	cases := []struct {
		name, block string
		want        []string
		err         string
	}{
		{"two keys beside a tolerance", `ttft_p99 = "10%"
    require_same_server_config = ["max_num_seqs", "model"]`, []string{"max_num_seqs", "model"}, ""},
		{"alone", `require_same_server_config = ["enable_prefix_caching"]`, []string{"enable_prefix_caching"}, ""},
		{"not a list", `require_same_server_config = "max_num_seqs"`, nil, "list of string required"},
		{"twice", `require_same_server_config = ["a", "a"]`, nil, `lists "a" twice`},
		{"not a name", `require_same_server_config = ["max_num_seqs=1"]`, nil, "is not a name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.hcl")
			if err := os.WriteFile(path, []byte(head+"    "+c.block+"\n  }\n}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, diags := Load([]string{path}, LoadOptions{})
			if c.err != "" {
				if !diags.HasErrors() || !strings.Contains(diags.Error(), c.err) {
					t.Fatalf("diagnostics %v, want an error saying %q", diags, c.err)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			s := cfg.Scenario("s")
			if !slices.Equal(s.RequireSameServerConfig, c.want) {
				t.Errorf("require_same_server_config %v, want %v", s.RequireSameServerConfig, c.want)
			}
			raw, err := json.Marshal(s.Resolved())
			if err != nil {
				t.Fatal(err)
			}
			back, d := ChecksFromResolved("s.json", raw)
			if d.HasErrors() || !slices.Equal(back.RequireSameServerConfig, c.want) {
				t.Errorf("read back from the resolved checks: %v (%v), want %v", back.RequireSameServerConfig, d, c.want)
			}
		})
	}
}
