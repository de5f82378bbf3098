package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOutputFolders: without -out each run writes a folder of its own under
// llmload-results/ and points latest at the newest; -overwrite writes into
// llmload-results/ itself; -out FILE.json names the file; -format json
// prints the summary and checks as one JSON line.
func TestOutputFolders(t *testing.T) {
	ctx := context.Background()
	scen, err := filepath.Abs("testdata/tiny.hcl")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	for i := range 2 {
		if code, out, errOut := call(t, ctx, "run", "-quiet", scen); code != exitOK {
			t.Fatalf("run %d: exit %d\n%s%s", i, code, out, errOut)
		}
		time.Sleep(1100 * time.Millisecond) // folders are named to the second
	}
	runs, _ := filepath.Glob("llmload-results/*-tiny/tiny.json")
	if len(runs) != 2 {
		t.Fatalf("want two run folders, got %v", runs)
	}
	latest, err := filepath.EvalSymlinks("llmload-results/latest")
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := filepath.EvalSymlinks(filepath.Dir(runs[1])); latest != want {
		t.Errorf("latest -> %s, want the newest run %s", latest, want)
	}

	if code, out, errOut := call(t, ctx, "run", "-quiet", "-overwrite", scen); code != exitOK {
		t.Fatalf("-overwrite: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat("llmload-results/tiny.json"); err != nil {
		t.Errorf("-overwrite wrote no llmload-results/tiny.json: %v", err)
	}

	code, stdout, errOut := call(t, ctx, "run", "-quiet", "-out", "named/run.json", "-format", "json", scen)
	if code != exitOK {
		t.Fatalf("-out FILE.json: exit %d\n%s%s", code, stdout, errOut)
	}
	for _, p := range []string{"named/run.json", "named/run.requests.jsonl"} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("-out named/run.json: %v", err)
		}
	}
	var sum struct {
		Scenario string `json:"scenario"`
		Verdict  string `json:"verdict"`
		Checks   []struct {
			Name    string `json:"name"`
			Verdict string `json:"verdict"`
		} `json:"checks"`
		Summary struct {
			Completed int `json:"completed"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(stdout)), &sum); err != nil {
		t.Fatalf("-format json: stdout is not one JSON object: %v\n%s", err, stdout)
	}
	if sum.Scenario != "tiny" || sum.Verdict != "pass" || sum.Summary.Completed != 40 || len(sum.Checks) == 0 {
		t.Errorf("-format json: %+v", sum)
	}
	if !strings.Contains(errOut, "Serving Benchmark Result") {
		t.Errorf("-format json: the report should go to stderr")
	}
}
