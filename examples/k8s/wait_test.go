package k8s_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
)

// fakeKubectl stands in for kubectl: apply and logs succeed; "wait
// --for=condition=C job/J" returns at once when $FAKE_J (J's outcome,
// dashes as underscores) is C, and otherwise sleeps until it is killed, as
// kubectl does until its timeout; get prints $FAKE_MERGE_EXIT, the merge
// pod's exit code. Every call is logged to $FAKE_LOG.
const fakeKubectl = `#!/bin/sh
echo "$*" >> "$FAKE_LOG"
case "$1" in
wait)
  cond=${2#--for=condition=}
  job=${3#job/}
  var=FAKE_$(echo "$job" | tr - _)
  eval outcome=\$$var
  [ "$outcome" = "$cond" ] && exit 0
  exec sleep 1000
  ;;
get) echo "$FAKE_MERGE_EXIT" ;;
esac
exit 0
`

// docSnippets returns the shell blocks of README.md and docs/*.md that
// wait on a Job.
func docSnippets(t *testing.T) map[string]string {
	t.Helper()
	files, _ := filepath.Glob("../../docs/*.md")
	files = append(files, "../../README.md")
	blocks := regexp.MustCompile("(?s)```sh\n(.*?)```")
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range blocks.FindAllStringSubmatch(string(b), -1) {
			if strings.Contains(m[1], "kubectl wait") {
				out[filepath.Base(f)+" block "+itoa(i+1)] = m[1]
			}
		}
	}
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestDocumentedWaitEndsOnFailure runs every documented sequence that waits
// on the Jobs against a stand-in kubectl: it must end as soon as the
// shards' Job has finished, Complete or Failed (a failed shard never makes
// it Complete), run the merge, and exit with the merge's code; and wait a
// little longer than the Job's own deadline, never less.
func TestDocumentedWaitEndsOnFailure(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not on PATH")
	}
	snippets := docSnippets(t)
	if len(snippets) == 0 {
		t.Fatal("no documented block waits on the Jobs (docs/scale-out.md should have one)")
	}
	var job batchv1.Job
	decode(t, "job.yaml", &job)
	if job.Spec.ActiveDeadlineSeconds == nil {
		t.Fatal("the shards' Job has no activeDeadlineSeconds: a hung shard would hold it for ever")
	}
	deadline := time.Duration(*job.Spec.ActiveDeadlineSeconds) * time.Second

	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "kubectl"), []byte(fakeKubectl), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name          string
		shards, merge string // how each Job ends: complete or failed
		mergeExit     string
		want          int
	}{
		{"a shard failed: the merge says so", "failed", "failed", "3", 3},
		{"every shard done, a check failed", "complete", "failed", "1", 1},
		{"every shard done, every check passed", "complete", "complete", "0", 0},
	}
	for name, src := range snippets {
		for _, tt := range tests {
			t.Run(name+": "+tt.name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				log := filepath.Join(t.TempDir(), "kubectl.log")
				cmd := exec.CommandContext(ctx, bash, "-c", src)
				cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "FAKE_LOG="+log,
					"FAKE_llmload_shards="+tt.shards, "FAKE_llmload_merge="+tt.merge, "FAKE_MERGE_EXIT="+tt.mergeExit)
				start := time.Now()
				out, err := cmd.CombinedOutput()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatalf("%v\n%s", err, out)
				}
				if ctx.Err() != nil {
					t.Fatalf("still waiting after %v: the wait does not end when the Job is %s", time.Since(start).Round(time.Second), tt.shards)
				}
				if code != tt.want {
					t.Errorf("exit %d, want the merge's %d\n%s", code, tt.want, out)
				}
				calls, _ := os.ReadFile(log)
				if !strings.Contains(string(calls), "apply -f examples/k8s/merge/") {
					t.Errorf("the merge was not applied; kubectl calls:\n%s", calls)
				}
				// Each Job was waited on until the condition it ended in
				// (the other wait may be cut before it logs). Every wait
				// has a timeout, one per Job, the shards' past their
				// Job's deadline.
				for j, ended := range map[string]string{job.Name: tt.shards, "llmload-merge": tt.merge} {
					if !strings.Contains(string(calls), "wait --for=condition="+ended+" job/"+j+" ") {
						t.Errorf("job/%s ended %s, and no wait on that condition ended it; kubectl calls:\n%s", j, ended, calls)
					}
				}
				withTimeout := regexp.MustCompile(`^wait --for=condition=(?:complete|failed) job/(\S+) --timeout=(\S+)$`)
				timeouts := map[string]map[string]bool{}
				for _, w := range regexp.MustCompile(`(?m)^wait .*$`).FindAllString(string(calls), -1) {
					m := withTimeout.FindStringSubmatch(w)
					if m == nil {
						t.Errorf("kubectl %s: a wait without --timeout, or on another condition", w)
						continue
					}
					if timeouts[m[1]] == nil {
						timeouts[m[1]] = map[string]bool{}
					}
					timeouts[m[1]][m[2]] = true
				}
				if len(timeouts) != 2 {
					t.Errorf("waits on %d Jobs, want the shards' and the merge's; kubectl calls:\n%s", len(timeouts), calls)
				}
				for j, ts := range timeouts {
					if len(ts) != 1 {
						t.Errorf("job/%s: the waits' timeouts differ: %v", j, ts)
					}
					for ts := range ts {
						d, err := time.ParseDuration(ts)
						if err != nil {
							t.Errorf("job/%s: --timeout=%s: %v", j, ts, err)
						}
						if j == job.Name && d < deadline {
							t.Errorf("job/%s: the wait (%v) ends before the Job's activeDeadlineSeconds (%v) fails it", j, d, deadline)
						}
					}
				}
			})
		}
	}
}
