package main

import (
	"context"
	"strings"
	"testing"
)

// TestRunFlagsRefused: the combinations of a scenario and flags that
// cannot run are refused by validate and by run alike, before any traffic,
// at the line that makes them impossible (the whole table is in scenario's
// TestCheckRunFlags).
func TestRunFlagsRefused(t *testing.T) {
	const file = "../../scenario/testdata/runflags.hcl"
	tests := []struct {
		scenario string
		flags    []string
		want     string
	}{
		{"repeated", []string{"-shard", "0/2"}, "runflags.hcl:32:3: error: A repeated run cannot be split"},
		{"ab", []string{"-baseline", "x.json"}, "runflags.hcl:39:3: error: An A/B run takes no -baseline"},
		{"two_users", []string{"-shard", "0/4"}, "runflags.hcl:50:3: error: More shards than users"},
	}
	for _, tt := range tests {
		for _, verb := range []string{"validate", "run"} {
			t.Run(verb+" "+tt.scenario, func(t *testing.T) {
				args := append([]string{verb, "-scenario", tt.scenario}, tt.flags...)
				if verb == "run" {
					args = append(args, "-quiet", "-out", t.TempDir(), "-run-id", "r1")
				}
				code, stdout, stderr := call(t, context.Background(), append(args, file)...)
				if code != exitInvalid {
					t.Fatalf("exit %d, want %d\n%s%s", code, exitInvalid, stdout, stderr)
				}
				if !strings.Contains(stderr, tt.want) {
					t.Errorf("stderr lacks %q:\n%s", tt.want, stderr)
				}
				if strings.Contains(stderr, "simulator") {
					t.Errorf("something started before the refusal:\n%s", stderr)
				}
			})
		}
	}
	// Split flags apply to one scenario: validate says so, as run does.
	if code, _, stderr := call(t, context.Background(), "validate", "-shard", "0/2", file); code != exitInvalid || !strings.Contains(stderr, "apply to one scenario") {
		t.Errorf("-shard on four scenarios: exit %d\n%s", code, stderr)
	}
	// What can run passes validate with the same flags.
	if code, _, stderr := call(t, context.Background(), "validate", "-scenario", "two_users", "-shard", "0/2", file); code != exitOK {
		t.Errorf("two users in two shards: exit %d\n%s", code, stderr)
	}
}
