package scenario

import (
	"testing"
	"time"
)

func TestABAndRepeatDecode(t *testing.T) {
	cfg, diags := Load([]string{"testdata/valid/ab.hcl"}, LoadOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ab := cfg.Scenario("ab")
	if !ab.AB() || ab.Target.Name != "ab_new" || ab.BaselineTarget.Name != "ab_old" {
		t.Errorf("arms: candidate %v, baseline %v; want ab_new and ab_old", ab.Target, ab.BaselineTarget)
	}
	if ab.Interleave != (Interleave{Duration: 5 * time.Second}) || ab.Repeats() != 1 {
		t.Errorf("interleave %+v, repeats %d", ab.Interleave, ab.Repeats())
	}
	if !ab.UsesBaseline() {
		t.Error("an A/B scenario's regression block and baseline.* asserts read the baseline arm")
	}
	rep := cfg.Scenario("repeated")
	if rep.AB() || rep.Repeats() != 3 || rep.Cooldown != 2*time.Second {
		t.Errorf("repeated: AB %v, repeats %d, cooldown %v", rep.AB(), rep.Repeats(), rep.Cooldown)
	}
	if DefaultInterleave.String() != "50 requests" || ab.Interleave.String() != "5s" {
		t.Errorf("interleaves render as %q and %q", DefaultInterleave, ab.Interleave)
	}
}
