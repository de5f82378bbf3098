package scenario

import (
	"fmt"
	"path/filepath"
	"testing"
)

// TestCheckRunFlags lists every pair of a scenario and a flag that cannot
// run together, and checks that each is refused at the line of the
// attribute or block that makes it impossible, and that the others pass.
func TestCheckRunFlags(t *testing.T) {
	cfg, diags := Load([]string{"testdata/runflags.hcl"}, LoadOptions{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	flags := map[string]RunFlags{
		"none":       {},
		"-shard 0/2": {Shards: 2},
		"-shard 0/4": {Shards: 4},
		"-shard 0/1": {Shards: 1},
		"-baseline":  {Baseline: true},
		"-start-at":  {StartAt: true},
		"-barrier":   {Shards: 2, Barrier: true},
		"-run-id":    {RunID: true},
	}
	// want[scenario][flag] is "file:line: summary" of the refusal; a pair
	// not listed must pass.
	want := map[string]map[string]string{
		"repeated": {
			"-shard 0/2": "runflags.hcl:32: A repeated run cannot be split",
			"-shard 0/4": "runflags.hcl:32: A repeated run cannot be split",
			"-shard 0/1": "runflags.hcl:32: A repeated run cannot be split",
			"-start-at":  "runflags.hcl:32: A repeated run cannot be split",
			"-barrier":   "runflags.hcl:32: A repeated run cannot be split",
			"-run-id":    "runflags.hcl:32: A repeated run cannot be split",
		},
		"ab": {
			"-baseline":  "runflags.hcl:39: An A/B run takes no -baseline",
			"-shard 0/2": "runflags.hcl:39: An A/B run cannot be split",
			"-shard 0/4": "runflags.hcl:39: An A/B run cannot be split",
			"-shard 0/1": "runflags.hcl:39: An A/B run cannot be split",
			"-start-at":  "runflags.hcl:39: An A/B run cannot be split",
			"-barrier":   "runflags.hcl:39: An A/B run cannot be split",
			"-run-id":    "runflags.hcl:39: An A/B run cannot be split",
		},
		"two_users": {
			"-shard 0/4": "runflags.hcl:50: More shards than users",
		},
		"three_requests": {
			"-shard 0/4": "runflags.hcl:59: More shards than requests",
		},
		"sweep": {
			"-shard 0/2": "runflags.hcl:68: A sweep cannot be split",
			"-shard 0/4": "runflags.hcl:68: A sweep cannot be split",
			"-shard 0/1": "runflags.hcl:68: A sweep cannot be split",
			"-start-at":  "runflags.hcl:68: A sweep cannot be split",
			"-barrier":   "runflags.hcl:68: A sweep cannot be split",
			"-run-id":    "runflags.hcl:68: A sweep cannot be split",
		},
		"capacity": {
			"-shard 0/2": "runflags.hcl:77: A capacity search cannot be split",
			"-shard 0/4": "runflags.hcl:77: A capacity search cannot be split",
			"-shard 0/1": "runflags.hcl:77: A capacity search cannot be split",
			"-start-at":  "runflags.hcl:77: A capacity search cannot be split",
			"-barrier":   "runflags.hcl:77: A capacity search cannot be split",
			"-run-id":    "runflags.hcl:77: A capacity search cannot be split",
		},
	}
	for _, s := range cfg.Scenarios {
		for name, f := range flags {
			t.Run(s.Name+" "+name, func(t *testing.T) {
				var got string
				for _, d := range s.CheckRunFlags(f) {
					got = fmt.Sprintf("%s:%d: %s", filepath.Base(d.Subject.Filename), d.Subject.Start.Line, d.Summary)
				}
				if got != want[s.Name][name] {
					t.Errorf("got %q, want %q", got, want[s.Name][name])
				}
			})
		}
	}
}
