package scenario

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/llmload/llmload/metrics"
)

// TestEveryCatalogueMetricIsCheckable: every figure of the catalogue can
// be named in an assert condition, and every sla key the catalogue gives
// decodes to its metric, in a real scenario file.
func TestEveryCatalogueMetricIsCheckable(t *testing.T) {
	var refs []string
	for _, m := range metrics.Catalogue {
		switch m.Kind {
		case metrics.Distribution:
			for _, s := range metrics.Stats {
				refs = append(refs, metrics.Ref(m.Name, s))
			}
		case metrics.Scalar:
			refs = append(refs, metrics.Ref(m.Name, ""))
		case metrics.Counts:
			for _, k := range m.CountKeys() {
				refs = append(refs, metrics.Ref(m.Name, k))
			}
		}
	}
	for _, ref := range refs {
		expr, diags := hclsyntax.ParseExpression([]byte(ref+" >= 0"), "t.hcl", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		if d := CheckCondition(expr); d.HasErrors() {
			t.Errorf("%s: %s", ref, d.Error())
		}
	}

	var body strings.Builder
	for _, key := range slaKeys() {
		v := "1"
		if slaKeyTable[key].duration {
			v = `"1ms"`
		}
		if strings.HasPrefix(key, "error_rate") {
			v = "0.5"
		}
		fmt.Fprintf(&body, "    %s = %s\n", key, v)
	}
	src := `target "t" {
  base_url = "sim://tiny"
}
dataset "d" {
  random {}
}
scenario "s" {
  target  = target.t
  dataset = dataset.d
  open_loop {
    rate = 1
  }
  goodput {
    ttft = "1s"
  }
  sla {
` + body.String() + `  }
}
`
	p := filepath.Join(t.TempDir(), "s.hcl")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, diags := Load([]string{p}, LoadOptions{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	got := map[string]SLA{}
	for _, s := range cfg.Scenario("s").SLA {
		got[s.Key] = s
	}
	for _, key := range slaKeys() {
		s, ok := got[key]
		if !ok {
			t.Errorf("sla key %s did not decode", key)
			continue
		}
		if _, ok := metrics.Lookup(s.Metric); !ok {
			t.Errorf("sla key %s names metric %q, not in the catalogue", key, s.Metric)
		}
	}
	if len(got) < 60 {
		t.Errorf("only %d sla keys: the table is not what it should be", len(got))
	}
}
