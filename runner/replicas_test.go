package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmload/llmload/scenario"
)

// loadTarget loads a configuration of one sim:// target whose sim block
// is simBody.
func loadTarget(t *testing.T, simBody string) (*scenario.Config, *scenario.Target) {
	t.Helper()
	src := `target "sim" {
  base_url = "sim://tiny"
  api      = "openai"
  sim {
` + simBody + `
  }
}
`
	path := filepath.Join(t.TempDir(), "t.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, diags := scenario.Load([]string{path}, scenario.LoadOptions{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return cfg, cfg.Targets[0]
}

// replicas in a sim block is the deployment's size, not an engine
// parameter: it starts that many replicas behind the balancer, and a
// count out of range is an error at its line (as validate shows it).
func TestSimReplicasSetting(t *testing.T) {
	t.Run("two", func(t *testing.T) {
		cfg, tg := loadTarget(t, "    replicas     = 2\n    max_num_seqs = 4")
		if d := CheckSimTargets(cfg); len(d) > 0 {
			t.Fatalf("replicas = 2: %s", d.Error())
		}
		lt, diags := startTarget(tg, 1)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		defer lt.Close()
		if n := len(lt.sim.Replicas); n != 2 || lt.target.BaseURL == lt.sim.Replicas[0].URL {
			t.Fatalf("%d replicas, target %s: want 2 behind a balancer", n, lt.target.BaseURL)
		}
		st := lt.simStats().(map[string]any)
		if st["replicas"] != 2 || len(st["replica_requests"].([]int64)) != 2 {
			t.Errorf("simulator statistics %v: want replicas and replica_requests", st)
		}
		if !strings.Contains(lt.simListening(), `simulator "tiny": 2 replicas (http://127.0.0.1:`) {
			t.Errorf("simListening = %q", lt.simListening())
		}
	})
	t.Run("one by default", func(t *testing.T) {
		_, tg := loadTarget(t, "    max_num_seqs = 4")
		lt, diags := startTarget(tg, 1)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		defer lt.Close()
		if len(lt.sim.Replicas) != 1 || lt.target.BaseURL != lt.sim.Replicas[0].URL {
			t.Errorf("%d replicas at %s: want the one simulator, no balancer", len(lt.sim.Replicas), lt.target.BaseURL)
		}
		if _, ok := lt.simStats().(map[string]any)["replicas"]; ok {
			t.Error("one replica's statistics list replicas")
		}
	})
	for _, tc := range []struct{ value, detail string }{
		{"0", "replicas = 0: a simulated deployment has 1 to 64 replicas."},
		{"65", "replicas = 65: a simulated deployment has 1 to 64 replicas."},
		{`"many"`, `replicas: "many" is not a whole number of replicas (1 to 64).`},
	} {
		t.Run("replicas = "+tc.value, func(t *testing.T) {
			cfg, tg := loadTarget(t, "    replicas = "+tc.value)
			diags := CheckSimTargets(cfg)
			if len(diags) != 1 || diags[0].Summary != "Invalid simulator setting" || diags[0].Detail != tc.detail || diags[0].Subject.Start.Line != 5 {
				t.Fatalf("diagnostics %v; want one at line 5: %q", diags, tc.detail)
			}
			if _, d := startTarget(tg, 1); !d.HasErrors() {
				t.Error("startTarget started a deployment of an invalid size")
			}
		})
	}
}
