package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/llmload/llmload/sim"
)

// TestCIDocLines checks that docs/ci.md's "The five lines" shows as many
// lines as its heading says (it once showed four).
func TestCIDocLines(t *testing.T) {
	doc, err := os.ReadFile("../../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)\n## The (\\w+) lines\n.*?```sh\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal(`docs/ci.md has no "## The N lines" heading followed by a sh block`)
	}
	words := map[string]int{"three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
	want, ok := words[string(m[1])]
	if got := strings.Count(string(m[2]), "\n"); !ok || got != want {
		t.Errorf("docs/ci.md: \"The %s lines\" shows %d lines:\n%s", m[1], got, m[2])
	}
}

// TestCIExamples keeps examples/ci valid: the scenario validates and is
// formatted, and both CI files parse, start the simulator where the
// scenario points, run the scenario with JUnit output and keep the results.
func TestCIExamples(t *testing.T) {
	ctx := context.Background()
	const scen = "../../examples/ci/scenario.hcl"
	if code, out, errOut := call(t, ctx, "validate", scen); code != exitOK {
		t.Fatalf("validate: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, _ := call(t, ctx, "fmt", "-check", scen); code != exitOK {
		t.Errorf("%s is not formatted (%s)", scen, out)
	}
	src, err := os.ReadFile(scen)
	if err != nil {
		t.Fatal(err)
	}
	// The gate judges the answers too, and keeps what a baseline needs to
	// pair them.
	for _, want := range []string{"output_defect_rate = 0.05", "keep = 200"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the scenario lacks %q: its gate no longer checks the answers", want)
		}
	}
	if !strings.Contains(string(src), `default     = "http://127.0.0.1:8000"`) {
		t.Fatalf("the scenario no longer targets 127.0.0.1:8000, where the CI files start the server")
	}

	var gh struct {
		Jobs map[string]struct {
			Steps []struct {
				Name string            `json:"name"`
				Run  string            `json:"run"`
				Uses string            `json:"uses"`
				If   string            `json:"if"`
				With map[string]string `json:"with"`
			} `json:"steps"`
		} `json:"jobs"`
	}
	var gl map[string]struct {
		Script    []string `json:"script"`
		Artifacts struct {
			When    string            `json:"when"`
			Reports map[string]string `json:"reports"`
			Paths   []string          `json:"paths"`
		} `json:"artifacts"`
	}
	for path, v := range map[string]any{"../../examples/ci/github-actions.yml": &gh, "../../examples/ci/gitlab-ci.yml": &gl} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	var all []string
	for _, j := range gh.Jobs {
		for _, s := range j.Steps {
			all = append(all, s.Run, s.Uses, s.With["report_paths"], s.With["path"])
		}
	}
	ghText := strings.Join(all, "\n")
	for _, want := range []string{"llmload sim -listen 127.0.0.1:8000", "llmload run examples/ci/scenario.hcl -junit llmload-junit.xml", "actions/upload-artifact", "llmload-junit.xml", "llmload-results/latest/ci.json llmload-results/latest/ci.requests.jsonl llmload-results/latest/ci.outputs.jsonl examples/ci/baselines/"} {
		if !strings.Contains(ghText, want) {
			t.Errorf("github-actions.yml lacks %q", want)
		}
	}
	job, ok := gl["llmload"]
	if !ok {
		t.Fatal("gitlab-ci.yml has no llmload job")
	}
	glText := strings.Join(job.Script, "\n")
	for _, want := range []string{"llmload sim -listen 127.0.0.1:8000", "llmload run examples/ci/scenario.hcl -junit llmload-junit.xml", "ci.requests.jsonl llmload-results/latest/ci.outputs.jsonl examples/ci/baselines/"} {
		if !strings.Contains(glText, want) {
			t.Errorf("gitlab-ci.yml's script lacks %q", want)
		}
	}
	if job.Artifacts.Reports["junit"] != "llmload-junit.xml" || job.Artifacts.When != "always" {
		t.Errorf("gitlab-ci.yml does not publish the JUnit report always: %+v", job.Artifacts)
	}
}

// TestCIExampleStopsOnADeadServer: the server the CI example gates dies
// after 60 requests (its port closed, its connections cut); the scenario's
// abort_on stops the run, exit 1 with the reason, instead of sending the
// rest of its 1,200 requests to the closed port (965 did before).
func TestCIExampleStopsOnADeadServer(t *testing.T) {
	p, err := sim.LookupProfile("tiny")
	if err != nil {
		t.Fatal(err)
	}
	engine := sim.NewServer(p, 1)
	engine.Start()
	defer engine.Close()
	var served atomic.Int64
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && served.Add(1) == 60 {
			go func() { // killed: nothing listens any more
				srv.Listener.Close()
				srv.CloseClientConnections()
			}()
		}
		engine.Handler().ServeHTTP(w, r)
	}))
	defer srv.Close()
	out := t.TempDir()
	code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, "-var", "base_url="+srv.URL, "../../examples/ci/scenario.hcl")
	if code != exitCheckFailed || !strings.Contains(stdout, "ABORTED: abort_on") {
		t.Fatalf("exit %d, want %d with ABORTED\nstdout:\n%s\nstderr:\n%s", code, exitCheckFailed, stdout, stderr)
	}
	n := len(requestMaps(t, filepath.Join(out, "ci.requests.jsonl")))
	if n > 400 {
		t.Errorf("%d requests recorded of the 1,200: abort_on did not stop the run soon after the server died", n)
	}
	t.Logf("the run stopped after %d requests", n)
}
