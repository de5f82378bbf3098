package scenario

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestModeCombinations lists every pair of the modes a run's tree is made
// of (repeats, an A/B run's arms, a sweep, a capacity search) and of the
// loads they run (open loop, closed loop, replay, start_at), and checks
// that each pair either decodes or is refused at the line of the
// attribute or block that makes it impossible, before any traffic.
// (TestCheckRunFlags does the same for the command line's flags.)
func TestModeCombinations(t *testing.T) {
	// Each mode is a fragment of a scenario; a load fragment replaces the
	// default open loop.
	modes := map[string]struct {
		attrs, blocks string
		load          bool
	}{
		"repeat":      {attrs: "repeat = 2\n"},
		"ab":          {attrs: "targets = { baseline = target.a, candidate = target.b }\n"},
		"start_at":    {attrs: "start_at = \"2030-01-01T00:00:00Z\"\n"},
		"sweep":       {blocks: "sweep {\nrate = [1, 2]\nduration = \"1s\"\n}\n"},
		"capacity":    {blocks: "capacity {\nvary = \"rate\"\nmin = 1\nmax = 8\nduration = \"1s\"\n}\n"},
		"closed_loop": {blocks: "closed_loop {\nusers = 2\nduration = \"1s\"\n}\n", load: true},
		"replay":      {blocks: "replay {\nspeed = 2\n}\n", load: true},
	}
	// want["a+b"] is "line: summary" of the refusal, the line counted in
	// the scenario below; a pair not listed must decode.
	// Lines: 13 is the scenario's, 14-16 target (none for A/B), dataset
	// and requests, then the first mode's attributes, the second's, and
	// the blocks in the same order.
	want := map[string]string{
		// An A/B run alternates its arms block by block, on one schedule
		// of arrivals, in one process.
		"repeat+ab":      "16: Not with an A/B run",
		"ab+start_at":    "17: Not with an A/B run",
		"ab+sweep":       "16: Not with an A/B run",
		"ab+capacity":    "16: Not with an A/B run",
		"ab+closed_loop": "16: Not with an A/B run",
		// One varied load at a time, and a replay's or a closed loop's
		// load is not a rate to vary.
		"sweep+capacity":       "21: Conflicting blocks",
		"sweep+closed_loop":    "21: Conflicting load",
		"sweep+replay":         "21: Conflicting load",
		"capacity+closed_loop": "23: Conflicting load",
		"capacity+replay":      "23: Conflicting load",
		"closed_loop+replay":   "21: Conflicting load blocks",
		// Everything else combines: repeats of a sweep's or a search's
		// steps, of a closed loop or a replay; an A/B run of a replay.
	}
	names := []string{"repeat", "ab", "start_at", "sweep", "capacity", "closed_loop", "replay"}
	for i, a := range names {
		for _, b := range names[i+1:] {
			pair := a + "+" + b
			t.Run(pair, func(t *testing.T) {
				var attrs, blocks strings.Builder
				load := false
				for _, m := range []string{a, b} {
					attrs.WriteString(modes[m].attrs)
					blocks.WriteString(modes[m].blocks)
					load = load || modes[m].load
				}
				if !load && !strings.Contains(blocks.String(), "sweep") && !strings.Contains(blocks.String(), "capacity") {
					blocks.WriteString("open_loop {\nrate = 10\n}\n")
				}
				target := "target = target.a\n"
				if a == "ab" || b == "ab" {
					target = ""
				}
				src := modesHeader + "scenario \"s\" {\n" + target + "dataset = dataset.d\nrequests = 10\n" + attrs.String() + blocks.String() + "}\n"
				dir := t.TempDir()
				path := filepath.Join(dir, "modes.hcl")
				if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "trace.jsonl"), []byte(`{"timestamp": 0, "input_length": 8, "output_length": 4, "hash_ids": [1]}`+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				_, diags := Load([]string{path}, LoadOptions{})
				g := ""
				for _, d := range diags {
					if d.Subject != nil {
						g = fmt.Sprintf("%d: %s", d.Subject.Start.Line, d.Summary)
						break
					}
				}
				if g != want[pair] {
					t.Errorf("got %q, want %q\n%s", g, want[pair], diags.Error())
				}
			})
		}
	}
}

const modesHeader = `target "a" {
  base_url = "sim://tiny"
}
target "b" {
  base_url = "sim://tiny"
}
dataset "d" {
  trace {
    path   = "trace.jsonl"
    format = "mooncake"
  }
}
`
