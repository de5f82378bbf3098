package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/llmload/llmload/runner"
	"github.com/llmload/llmload/scenario"
)

var update = flag.Bool("update", false, "rewrite golden files")

// call runs the program in-process and returns its exit code and output.
func call(t *testing.T, ctx context.Context, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(ctx, args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestUsageAndUnknownCommand(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{nil, exitInvalid, "Usage: llmload"},
		{[]string{"help"}, exitOK, "Commands:"},
		{[]string{"--help"}, exitOK, "Commands:"},
		{[]string{"nope"}, exitInvalid, `unknown command "nope"`},
		{[]string{"help", "plan"}, exitOK, "Usage: llmload plan"},
		{[]string{"version"}, exitOK, "llmload "},
		{[]string{"run"}, exitInvalid, "no scenario file"},
		{[]string{"run", "-no-such-flag", "x.hcl"}, exitInvalid, "unknown flag -no-such-flag"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errOut := call(t, context.Background(), tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errOut)
			}
			if !strings.Contains(out+errOut, tt.want) {
				t.Errorf("output does not contain %q:\n%s%s", tt.want, out, errOut)
			}
		})
	}
}

func TestParseInterspersed(t *testing.T) {
	tests := []struct {
		args    []string
		wantPos []string
		wantOut string
		wantQ   bool
	}{
		{[]string{"a.hcl"}, []string{"a.hcl"}, "", false},
		{[]string{"-out", "d", "a.hcl"}, []string{"a.hcl"}, "d", false},
		{[]string{"a.hcl", "--out", "d", "b.hcl", "-quiet"}, []string{"a.hcl", "b.hcl"}, "d", true},
		{[]string{"--out=d", "a.hcl", "--", "-quiet"}, []string{"a.hcl", "-quiet"}, "d", false},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stderr bytes.Buffer
			fs := newFlags(env{stderr: &stderr}, "t", "")
			out := fs.String("out", "", "")
			q := fs.Bool("quiet", false, "")
			pos, _, ok := parseInterspersed(fs, tt.args)
			if !ok {
				t.Fatalf("parse failed: %s", stderr.String())
			}
			if diff := cmp.Diff(tt.wantPos, pos); diff != "" {
				t.Errorf("positional (-want +got):\n%s", diff)
			}
			if *out != tt.wantOut || *q != tt.wantQ {
				t.Errorf("out=%q quiet=%v, want %q %v", *out, *q, tt.wantOut, tt.wantQ)
			}
		})
	}
}

func TestValidateExamples(t *testing.T) {
	files, err := filepath.Glob("../../examples/*.hcl")
	ci, _ := filepath.Glob("../../examples/ci/*.hcl")
	files = append(files, ci...)
	if err != nil || len(files) == 0 || len(ci) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			// Examples run from a fresh clone: nothing outside the
			// repository (internal/freshclone proves it on a real clone).
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(src), "../../") {
				t.Errorf("%s reads outside the repository; ship its data in examples/data", f)
			}
			code, out, errOut := call(t, context.Background(), "validate", f)
			if code != exitOK {
				t.Fatalf("validate %s: exit %d\n%s%s", f, code, out, errOut)
			}
			if code, out, _ := call(t, context.Background(), "fmt", "-check", f); code != exitOK {
				t.Errorf("%s is not formatted: llmload fmt would change it (%s)", f, out)
			}
			// Every example points at any server without an edit: its
			// target takes -var base_url and -var model.
			const url, model = "http://127.0.0.1:9", "example-probe-model"
			code, out, errOut = call(t, context.Background(), "plan", "-var", "base_url="+url, "-var", "model="+model, f)
			if code != exitOK {
				t.Fatalf("plan -var base_url=%s -var model=%s: exit %d\n%s", url, model, code, errOut)
			}
			for _, want := range []string{" at " + url + ",", `model "` + model + `"`} {
				if !strings.Contains(out, want) {
					t.Errorf("plan with -var base_url and -var model does not show %q:\n%s", want, out)
				}
			}
		})
	}
}

// TestValidateExamplesDirectory: validate examples/, the natural first
// try, checks each file on its own (they declare the same names, and each
// stands alone), and -scenario picks the file that declares it.
func TestValidateExamplesDirectory(t *testing.T) {
	files, err := filepath.Glob("../../examples/*.hcl")
	if err != nil || len(files) < 2 {
		t.Fatalf("examples: %v %v", files, err)
	}
	code, out, errOut := call(t, context.Background(), "validate", "../../examples/")
	if code != exitOK {
		t.Fatalf("validate examples/: exit %d\n%s%s", code, out, errOut)
	}
	for _, f := range files {
		if !strings.Contains(out, "Valid: "+f+": 1 file(s)") {
			t.Errorf("validate examples/ does not report %s on its own:\n%s", f, out)
		}
	}
	if !strings.Contains(errOut, "each file is checked as a configuration of its own") {
		t.Errorf("validate examples/ does not say why it checks the files apart:\n%s", errOut)
	}
	code, out, errOut = call(t, context.Background(), "validate", "../../examples", "-scenario", "quickstart")
	if code != exitOK || strings.Count(out, "Valid: ") != 1 || !strings.Contains(out, "quickstart.hcl") {
		t.Errorf("validate examples -scenario quickstart: exit %d, want one valid file, quickstart.hcl\n%s%s", code, out, errOut)
	}
	if code, _, errOut = call(t, context.Background(), "validate", "../../examples", "-scenario", "nope"); code != exitInvalid || !strings.Contains(errOut, `declares a scenario named "nope"`) {
		t.Errorf("validate examples -scenario nope: exit %d, want %d\n%s", code, exitInvalid, errOut)
	}
}

// TestExampleHeaders holds what an example's opening comment claims against
// the file: a bound it states ("P90 TTFT < 500 ms") is one its sla block
// gates, and the reply lengths it states are the ones its dataset draws.
func TestExampleHeaders(t *testing.T) {
	files, err := filepath.Glob("../../examples/*.hcl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	bound := regexp.MustCompile(`\bP([0-9.]+) (TTFT|ITL|TPOT|E2EL) < ([0-9.]+) ?(ms|s)\b`)
	replies := regexp.MustCompile(`replies of ([0-9]+) to ([0-9]+) tokens`)
	bounds, lengths := 0, 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var header []string
		for _, line := range strings.Split(string(src), "\n") {
			if !strings.HasPrefix(line, "#") {
				break
			}
			header = append(header, strings.TrimSpace(strings.TrimPrefix(line, "#")))
		}
		text := strings.Join(header, " ")
		for _, m := range bound.FindAllStringSubmatch(text, -1) {
			bounds++
			gate := fmt.Sprintf(`%s_p%s = "%s%s"`, strings.ToLower(m[2]), m[1], m[3], m[4])
			if !regexp.MustCompile(strings.ReplaceAll(regexp.QuoteMeta(gate), " = ", `\s*=\s*`)).Match(src) {
				t.Errorf("%s: its header says %q, but it does not gate %s", f, m[0], gate)
			}
		}
		for _, m := range replies.FindAllStringSubmatch(text, -1) {
			lengths++
			code, out, errOut := call(t, context.Background(), "dataset", "dump", f)
			if code != exitOK {
				t.Fatalf("dataset dump %s: exit %d\n%s", f, code, errOut)
			}
			lo, hi := math.MaxInt, 0
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var r struct {
					OutputLen int `json:"output_len"`
				}
				if err := json.Unmarshal([]byte(line), &r); err != nil {
					t.Fatalf("dataset dump %s: %v", f, err)
				}
				lo, hi = min(lo, r.OutputLen), max(hi, r.OutputLen)
			}
			if got := fmt.Sprintf("replies of %d to %d tokens", lo, hi); got != m[0] {
				t.Errorf("%s: its header says %q; the dataset draws %s", f, m[0], got)
			}
		}
	}
	if bounds < 2 || lengths < 1 {
		t.Errorf("checked %d bounds and %d reply lengths in the examples' headers; want the sweep's two bounds and locust-style's replies", bounds, lengths)
	}
}

func TestValidateInvalid(t *testing.T) {
	code, _, errOut := call(t, context.Background(), "validate", "testdata/invalid.hcl")
	if code != exitInvalid {
		t.Fatalf("exit %d, want %d\n%s", code, exitInvalid, errOut)
	}
	for _, want := range []string{
		"testdata/invalid.hcl:4:3: error: Unsupported argument", // file:line:col first
		"Did you mean \"model\"?",                               // a suggestion
		"testdata/invalid.hcl:8:",                               // the undefined target
		"testdata/invalid.hcl:11:",                              // the negative rate
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, errOut)
		}
	}
}

func TestValidateLoadsDatasets(t *testing.T) {
	code, _, errOut := call(t, context.Background(), "validate", "testdata/bad-dataset.hcl")
	if code != exitInvalid || !strings.Contains(errOut, "bad.jsonl: line 2") {
		t.Errorf("validate of a dataset with a bad record: exit %d, stderr %q; want %d naming the file and line", code, errOut, exitInvalid)
	}
}

func TestFmtCheck(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("testdata/unformatted.hcl")
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, "u.hcl")
	if err := os.WriteFile(f, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := call(t, context.Background(), "fmt", "--check", f); code != exitCheckFailed {
		t.Fatalf("fmt -check on an unformatted file: exit %d, want %d\n%s", code, exitCheckFailed, errOut)
	}
	if after, _ := os.ReadFile(f); !bytes.Equal(after, src) {
		t.Errorf("fmt -check changed the file")
	}
	if code, _, errOut := call(t, context.Background(), "fmt", f); code != exitOK {
		t.Fatalf("fmt: exit %d\n%s", code, errOut)
	}
	if code, _, _ := call(t, context.Background(), "fmt", "-check", f); code != exitOK {
		t.Errorf("fmt -check after fmt: exit %d, want 0", code)
	}
}

func TestPlanGolden(t *testing.T) {
	for _, name := range []string{"tiny", "closed"} {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := call(t, context.Background(), "plan", "testdata/"+name+".hcl")
			if code != exitOK {
				t.Fatalf("plan: exit %d\n%s", code, errOut)
			}
			golden := filepath.Join("testdata", name+".plan.golden")
			if *update {
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), out); diff != "" {
				t.Errorf("plan output (-want +got):\n%s", diff)
			}
			if strings.Contains(out, "SECRET") {
				t.Errorf("plan printed the api key:\n%s", out)
			}
		})
	}
}

// resultFile reads the run's result JSON as a generic map.
func resultFile(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("SECRET")) {
		t.Errorf("%s contains the api key", path)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

func TestRunExitCodes(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"pass", nil, exitOK, []string{"Serving Benchmark Result", "Successful requests:", "PASS"}},
		// No request's first token comes within 1 µs: that bound must fail.
		{"sla breached", []string{"-var", "ttft_p50=1us"}, exitCheckFailed, []string{"FAIL"}},
		// A password in the URL must not leak either. The preflight probe
		// finds the target down: exit 3 with the cause, before any load.
		{"unreachable", []string{"-var", "base_url=http://user:SECRET-pw@127.0.0.1:1"}, exitNoResult,
			[]string{"preflight", "connection refused", "no load was sent"}},
		// Without the probe, the load runs and no request completes.
		{"unreachable without preflight", []string{"-var", "base_url=http://user:SECRET-pw@127.0.0.1:1", "-var", "preflight=false"},
			exitNoResult, []string{"no request completed"}},
		// -ops asks for files from a capacity: a passing run without one
		// is no result; a failing run keeps its code.
		{"ops without a capacity", []string{"-ops", "OPSDIR"}, exitNoResult, []string{"-ops: tiny: the result has no load steps"}},
		{"ops on a failed run", []string{"-var", "ttft_p50=1us", "-ops", "OPSDIR"}, exitCheckFailed, []string{"-ops: tiny:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			args := []string{"run", "testdata/tiny.hcl", "--out", out, "-quiet"}
			for _, a := range tt.args {
				args = append(args, strings.ReplaceAll(a, "OPSDIR", filepath.Join(out, "ops")))
			}
			code, stdout, stderr := call(t, context.Background(), args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout+stderr, w) {
					t.Errorf("output lacks %q:\nstdout:\n%s\nstderr:\n%s", w, stdout, stderr)
				}
			}
			if strings.Contains(stdout+stderr, "SECRET") {
				t.Errorf("the api key was printed")
			}
			if tt.name == "unreachable" {
				if files, _ := os.ReadDir(out); len(files) != 0 {
					t.Errorf("a run stopped by its preflight wrote %v", files)
				}
				return
			}
			res := resultFile(t, filepath.Join(out, "tiny.json"))
			if tt.code == exitOK {
				if got := res["completed"]; got != float64(40) {
					t.Errorf("completed = %v, want 40", got)
				}
			}
			lines, err := os.ReadFile(filepath.Join(out, "tiny.requests.jsonl"))
			if err != nil {
				t.Errorf("no requests file: %v", err)
			}
			if bytes.Contains(lines, []byte("SECRET")) {
				t.Errorf("the requests file holds a secret")
			}
		})
	}
}

// A target whose /tokenize does not answer gives no valid result (3), not
// an invalid-input error (2).
func TestRunServerTokenizerDown(t *testing.T) {
	code, _, stderr := call(t, context.Background(), "run", "-quiet", "-out", t.TempDir(), "testdata/server-tokenizer.hcl")
	if code != exitNoResult || !strings.Contains(stderr, "127.0.0.1:1/tokenize") {
		t.Errorf("exit %d, stderr %q; want %d naming the /tokenize URL", code, stderr, exitNoResult)
	}
}

func TestRunClosedLoopStages(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, "testdata/closed.hcl")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "Most users meeting every sla check on their own: 6 (stage 2)") {
		t.Errorf("the report does not name the knee:\n%s", stdout)
	}
	res := resultFile(t, filepath.Join(out, "stages.json"))
	b, _ := json.Marshal(res)
	for _, users := range []string{`"users":2`, `"users":6`, `"sla_checked":true`} {
		if !bytes.Contains(b, []byte(users)) {
			t.Errorf("result lacks a stage with %s:\n%s", users, b)
		}
	}
	// Stages are numbered from 1 everywhere: console, result, requests.
	var stages []int
	for _, st := range res["stages"].([]any) {
		stages = append(stages, int(st.(map[string]any)["stage"].(float64)))
	}
	if diff := cmp.Diff([]int{1, 2}, stages); diff != "" {
		t.Errorf("result stage numbers (-want +got):\n%s", diff)
	}
	lines, err := os.ReadFile(filepath.Join(out, "stages.requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[float64]bool{}
	for _, line := range bytes.Split(bytes.TrimSpace(lines), []byte("\n")) {
		var l map[string]any
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatal(err)
		}
		seen[l["stage"].(float64)] = true
	}
	if diff := cmp.Diff(map[float64]bool{1: true, 2: true}, seen); diff != "" {
		t.Errorf("requests file stage numbers (-want +got):\n%s", diff)
	}
}

func TestRunInterrupted(t *testing.T) {
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The closed-loop scenario runs for 2 s; cancel it part-way through,
	// once some requests have completed.
	live := interruptAfterCompletions(t, cancel, 5)
	code, stdout, stderr := call(t, ctx, append([]string{"run", "-quiet", "-out", out, "testdata/closed.hcl"}, live...)...)
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitInterrupted, stdout, stderr)
	}
	res := resultFile(t, filepath.Join(out, "stages.json"))
	if res["completed"] == float64(0) {
		t.Errorf("partial results hold no completed request: %v", res["completed"])
	}
	if res["interrupted"] != true {
		t.Errorf("interrupted = %v, want true", res["interrupted"])
	}
	// Requests cut off by the interruption are not the server's failures.
	if res["failed"] != float64(0) {
		t.Errorf("failed = %v, want 0: canceled requests must not count as failed", res["failed"])
	}

	// No output calls the interrupted run a pass, and it judges nothing:
	// compare and a baseline refuse it unless forced.
	cut := filepath.Join(out, "stages.json")
	code, stdout, _ = call(t, context.Background(), "report", "-format", "markdown", cut)
	if code != exitOK || !strings.Contains(stdout, "⏹️ interrupted") || strings.Contains(stdout, "✅ pass\n") {
		t.Errorf("report -format markdown: exit %d, want the run marked interrupted:\n%s", code, stdout)
	}
	full := filepath.Join(t.TempDir(), "full.json")
	if code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", full, "testdata/closed.hcl"); code != exitOK {
		t.Fatalf("the full run: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, tt := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"compare", full, cut}, exitNoResult, "the candidate run was interrupted (it did not finish): no verdict (-force compares it anyway)"},
		{[]string{"compare", "-force", full, cut}, -1, "the candidate run was interrupted (it did not finish); compared anyway (-force)"},
		{[]string{"run", "-quiet", "-out", t.TempDir(), "-baseline", cut, "testdata/closed.hcl"}, exitInvalid, "was interrupted (it did not finish): its figures are partial and cannot judge another"},
		{[]string{"run", "-quiet", "-out", t.TempDir(), "-force", "-baseline", cut, "testdata/closed.hcl"}, -1, "was interrupted (it did not finish); used anyway (-force)"},
	} {
		code, stdout, stderr := call(t, context.Background(), tt.args...)
		if (tt.code >= 0 && code != tt.code) || (tt.code < 0 && (code == exitInvalid || code == exitInterrupted)) || !strings.Contains(stderr, tt.says) {
			t.Errorf("%v: exit %d (want %d), stderr should say %q\nstdout:\n%s\nstderr:\n%s", tt.args, code, tt.code, tt.says, stdout, stderr)
		}
	}
}

// The language's reference fixture names a real simulator profile and
// real overrides (scenario/ cannot check them: it does not know sim/).
func TestReferenceFixtureSimTargets(t *testing.T) {
	cfg, diags := scenario.Load([]string{"../../scenario/testdata/valid/full.hcl"}, scenario.LoadOptions{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	sims := 0
	for _, tg := range cfg.Targets {
		if strings.HasPrefix(tg.BaseURL, runner.SimScheme) {
			sims++
		}
	}
	if sims == 0 {
		t.Fatal("the fixture has no sim:// target to check")
	}
	if d := runner.CheckSimTargets(cfg); len(d) > 0 {
		t.Errorf("sim targets in full.hcl: %s", d.Error())
	}
}

// TestOnlySelectedScenariosNeedTheirFiles: a command on one scenario loads
// only that scenario's data; on all of them, a missing file is an error
// that says what the file is and where to get it.
func TestOnlySelectedScenariosNeedTheirFiles(t *testing.T) {
	const f = "testdata/missing-data.hcl"
	tests := []struct {
		name     string
		args     []string
		wantCode int
	}{
		{"run the scenario without files", []string{"run", f, "-scenario", "fast", "-out", "", "-quiet"}, exitOK},
		{"plan the scenario without files", []string{"plan", f, "-scenario", "fast"}, exitOK},
		{"dump the dataset without files", []string{"dataset", "dump", f, "-dataset", "random"}, exitOK},
		{"run the one that needs the file", []string{"run", f, "-scenario", "real", "-out", "", "-quiet"}, exitInvalid},
		{"run all", []string{"run", f, "-out", "", "-quiet"}, exitInvalid},
		{"plan all", []string{"plan", f}, exitInvalid},
		{"validate checks everything", []string{"validate", f}, exitInvalid},
		{"dump the dataset that needs the file", []string{"dataset", "dump", f, "-dataset", "real"}, exitInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := call(t, context.Background(), tt.args...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\n%s", code, tt.wantCode, errOut)
			}
			if tt.wantCode == exitOK {
				return
			}
			for _, want := range []string{
				"Unreadable file",
				`the ShareGPT-format JSON file of dataset "real"`,
				"ShareGPT_V3_unfiltered_cleaned_split.json",
				"anon8231489123/ShareGPT_Vicuna_unfiltered",
			} {
				if !strings.Contains(strings.Join(strings.Fields(errOut), " "), want) {
					t.Errorf("stderr lacks %q:\n%s", want, errOut)
				}
			}
		})
	}
}
