package scenario

import (
	"testing"
	"time"
)

// TestBudget reads budget, gpus and stop_early: a wall time, a GPU time
// over the GPUs the run holds, and stop_early on an A/B run and on a
// repeat against a baseline.
func TestBudget(t *testing.T) {
	cfg, diags := Load([]string{"testdata/valid/budget.hcl"}, LoadOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	want := map[string]Budget{
		"budget_ab":       {Wall: 10 * time.Minute},
		"budget_gpu_time": {Wall: 10 * time.Minute, GPUMinutes: 40, GPUs: 4},
		"budget_repeat":   {Wall: time.Hour},
		// A wall time with its GPUs: the result counts GPU minutes.
		"budget_wall_gpus": {Wall: 10 * time.Minute, GPUs: 2},
	}
	for _, s := range cfg.Scenarios {
		w, ok := want[s.Name]
		if !ok {
			continue
		}
		if s.Budget == nil || *s.Budget != w {
			t.Errorf("%s: budget %+v, want %+v", s.Name, s.Budget, w)
		}
		if !s.StopEarly {
			t.Errorf("%s: stop_early not read", s.Name)
		}
	}
	for b, want := range map[Budget]string{
		{Wall: 10 * time.Minute, GPUMinutes: 40, GPUs: 4}: "40 gpu-minutes on 4 GPUs, 10m0s of wall time",
		{Wall: 10 * time.Minute, GPUs: 2}:                 "10m0s on 2 GPUs",
		{Wall: 90 * time.Second}:                          "1m30s",
	} {
		if got := b.String(); got != want {
			t.Errorf("String %q, want %q", got, want)
		}
	}
}
