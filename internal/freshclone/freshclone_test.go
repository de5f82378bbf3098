package freshclone

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmload/llmload/internal/testshared"
	"github.com/llmload/llmload/results"
)

// machineRules are the validity rules that measure the machine running
// llmload (how well it kept the schedule, how much CPU it had), not the
// example or the server.
var machineRules = map[string]bool{"lag_p99": true, "rate_shortfall": true, "client_cpu": true}

// machineOnly reports whether a run is invalid for machine rules alone,
// with every check passed and every request completed.
func machineOnly(res *results.Result) bool {
	if res.Validity == nil || res.Validity.Valid || res.Interrupted || res.Failed > 0 || res.Completed == 0 {
		return false
	}
	for _, r := range res.Validity.Broken() {
		if !machineRules[r.Name] {
			return false
		}
	}
	for _, c := range res.Checks {
		if !c.Passed {
			return false
		}
	}
	return true
}

// brokenNames lists a result's broken validity rules.
func brokenNames(res *results.Result) string {
	var names []string
	for _, r := range res.Validity.Broken() {
		names = append(names, r.Name)
	}
	return strings.Join(names, ", ")
}

// skipOrFail skips locally when the test cannot set itself up (no git, no
// repository), and fails under LLMLOAD_REQUIRE_SHARED, as in CI, where
// both must be there.
func skipOrFail(t *testing.T, format string, args ...any) {
	t.Helper()
	if testshared.Required() {
		t.Fatalf(format+" (%s is set: CI must run the fresh-clone test)", append(args, testshared.RequireEnv)...)
	}
	t.Skipf(format, args...)
}

// command runs name with args in dir and returns its exit code and output.
func command(ctx context.Context, t *testing.T, dir, name string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	// A user's environment: nothing of ours that changes behaviour.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LLMLOAD_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		}
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return 0, string(out)
}

func TestFreshClone(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the fresh-clone test clones, builds and runs examples (about a minute)")
	}
	git, err := exec.LookPath("git")
	if err != nil {
		skipOrFail(t, "git is not on PATH: %v", err)
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		skipOrFail(t, "go is not on PATH: %v", err)
	}
	root, err := testshared.Root()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	code, out := command(ctx, t, root, git, "rev-parse", "HEAD")
	if code != 0 {
		skipOrFail(t, "%s is not a git checkout: %s", root, out)
	}
	head := strings.TrimSpace(out)
	if _, dirty := command(ctx, t, root, git, "status", "--porcelain", "--untracked-files=no"); dirty != "" {
		t.Logf("note: uncommitted changes are not in the clone; it tests HEAD %s", head)
	}

	// An empty folder: the clone has nothing beside it, ../shared included.
	clone := filepath.Join(t.TempDir(), "llmload")
	for _, args := range [][]string{
		{"clone", "--quiet", "--no-checkout", root, clone},
		{"-C", clone, "checkout", "--quiet", "--detach", head},
	} {
		if code, out := command(ctx, t, root, git, args...); code != 0 {
			t.Fatalf("git %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
	}
	bin := filepath.Join(clone, "bin", "llmload")
	start := time.Now()
	// A plain go build, as docs/ci.md and the CI examples have it. Go
	// stamps the checkout's revision by default (-buildvcs=auto); the flag
	// says so whatever GOFLAGS this machine sets.
	if code, out := command(ctx, t, clone, gobin, "build", "-buildvcs=true", "-o", bin, "./cmd/llmload"); code != 0 {
		t.Fatalf("go build in the clone: exit %d\n%s", code, out)
	}
	t.Logf("clone of %s built in %v", head[:12], time.Since(start).Round(time.Millisecond))
	// Which llmload it is comes from that stamp, without -ldflags: the
	// revision, and Go's pseudo-version holding its first 12 characters.
	if code, out := command(ctx, t, clone, bin, "version"); code != 0 || !strings.Contains(out, "commit  "+head+"\n") || !strings.Contains(out, head[:12]) {
		t.Errorf("llmload version of a go build at %s: exit %d\n%s", head, code, out)
	}

	examples, err := filepath.Glob(filepath.Join(clone, "examples", "*.hcl"))
	if err != nil || len(examples) == 0 {
		t.Fatalf("no examples in the clone: %v", err)
	}
	for _, path := range examples {
		rel, _ := filepath.Rel(clone, path)
		t.Run(filepath.Base(path), func(t *testing.T) {
			for _, verb := range []string{"validate", "plan"} {
				if code, out := command(ctx, t, clone, bin, verb, rel); code != 0 {
					t.Errorf("llmload %s %s: exit %d\n%s", verb, rel, code, out)
				}
			}
		})
	}

	// The fast runs, from the clone's root as the README has them; each
	// must exit 0 (every check passed) and write its result file.
	outDir := filepath.Join(t.TempDir(), "results")
	runs := []struct {
		name   string
		args   []string
		result string
		// console, when set, are lines the console must show (the run
		// is then not quiet).
		console []string
	}{
		{"quickstart", []string{"run", "examples/quickstart.hcl"}, "quickstart.json", nil},
		// One scenario of reference.hcl: only its own data is loaded.
		{"reference burst", []string{"run", "examples/reference.hcl", "-scenario", "burst"}, "burst.json", nil},
		// Anthropic's Messages API, sessions through it, on the simulator.
		{"anthropic-messages", []string{"run", "examples/anthropic-messages.hcl"}, "messages.json", nil},
		// An agent's tool calls and round trips, on the simulator.
		{"agent-tools", []string{"run", "examples/agent-tools.hcl"}, "agent-tools.json", nil},
		// An agent with tools, a fan-out step and think time: the
		// console shows the tool calls and the sessions' own figures.
		// An agent trace (AIPerf's mooncake_trace) replayed as recorded.
		{"agent-trace", []string{"run", "examples/agent-trace.hcl"}, "agent-trace.json", nil},
		{"agent", []string{"run", "examples/agent.hcl"}, "agent.json", []string{"Tool calls: ", "sent tool results back", "Sessions: 12 ended, 12 whole", "3.0 sub-agents", "waiting on the server"}},
	}
	for _, r := range runs {
		t.Run("run "+r.name, func(t *testing.T) {
			start := time.Now()
			args := append(append([]string{}, r.args...), "-out", outDir)
			if r.console == nil {
				args = append(args, "-quiet")
			}
			code, out := command(ctx, t, clone, bin, args...)
			for _, want := range r.console {
				if !strings.Contains(out, want) {
					t.Errorf("llmload %s: the console lacks %q\n%s", strings.Join(args, " "), want, out)
				}
			}
			res, err := results.ReadResult(filepath.Join(outDir, r.result))
			if err != nil {
				t.Fatalf("llmload %s (exit %d) wrote no result file: %v\n%s", strings.Join(args, " "), code, err, out)
			}
			if res.ToolCommit != head || !strings.Contains(res.ToolVersion, head[:12]) {
				t.Errorf("the result records tool_version %q, tool_commit %q; want the build's revision %s", res.ToolVersion, res.ToolCommit, head)
			}
			if code == 3 && machineOnly(res) {
				// The example ran and its checks passed; the machine
				// running the test was too busy to keep the schedule.
				// That is the validity gate doing its job (its own tests
				// are in assert and cmd/llmload), not a broken example.
				t.Logf("llmload %s: invalid on this machine only (%s); every check passed", strings.Join(r.args, " "), brokenNames(res))
				return
			}
			if code != 0 {
				t.Fatalf("llmload %s: exit %d\n%s", strings.Join(args, " "), code, out)
			}
			t.Logf("llmload %s: exit 0 in %v", strings.Join(r.args, " "), time.Since(start).Round(100*time.Millisecond))
		})
	}
}
