package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/llmload/llmload/sim"
)

func TestDidYouMean(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--scenaro", "x", "a.hcl"}, []string{
			"llmload run: unknown flag -scenaro; did you mean -scenario?\n",
			"Usage: llmload run [flags] PATH...\n",
			"Run 'llmload run -h' for all flags.\n",
		}},
		{[]string{"rn"}, []string{`llmload: unknown command "rn"; did you mean "run"?`, "Run 'llmload -h'"}},
		{[]string{"valdate", "a.hcl"}, []string{`did you mean "validate"?`}},
		{[]string{"sim", "-max-num-seq", "4"}, []string{"did you mean -max-num-seqs?"}},
		{[]string{"dataset", "dupm"}, []string{`unknown subcommand "dupm"; did you mean "dump"?`}},
		{[]string{"completion", "zhs"}, []string{"did you mean zsh?"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errOut := call(t, context.Background(), tt.args...)
			if code != exitInvalid {
				t.Errorf("exit %d, want %d", code, exitInvalid)
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
			// A short usage, not the whole help.
			if strings.Contains(out+errOut, "Flags:") || strings.Contains(out+errOut, "Commands:") || strings.Count(errOut, "\n") > 3 {
				t.Errorf("printed more than a short usage:\n%s%s", out, errOut)
			}
		})
	}
}

func TestHelpExitsZeroEverywhere(t *testing.T) {
	for _, c := range commands() {
		for _, h := range []string{"-h", "--help"} {
			t.Run(c.name+" "+h, func(t *testing.T) {
				code, out, errOut := call(t, context.Background(), c.name, h)
				if code != exitOK {
					t.Errorf("exit %d, want 0\n%s", code, errOut)
				}
				if !strings.Contains(out, "Usage: llmload "+c.name) {
					t.Errorf("stdout lacks the usage:\n%s", out)
				}
			})
		}
	}
}

func TestSimFlagsKebabCase(t *testing.T) {
	_, help, _ := call(t, context.Background(), "sim", "-h")
	if !strings.Contains(help, "-max-num-seqs") || strings.Contains(help, "max_num_seqs value") || strings.Contains(help, "-max_num_seqs") {
		t.Errorf("sim -h should list -max-num-seqs and hide -max_num_seqs:\n%s", help)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // sim returns at once once listening
	for _, flag := range []string{"-max-num-seqs", "--max-num-seqs", "-max_num_seqs"} {
		code, _, errOut := call(t, ctx, "sim", "-listen", "127.0.0.1:0", "-profile", "tiny", flag, "64")
		if code != exitInterrupted {
			t.Errorf("sim %s 64: exit %d, want %d (served, then interrupted)\n%s", flag, code, exitInterrupted, errOut)
		}
	}
	code, _, errOut := call(t, ctx, "sim", "-listen", "127.0.0.1:0", "-profile", "tiny", "-max-num-seqs", "lots")
	if code != exitInvalid || !strings.Contains(errOut, "-max-num-seqs") {
		t.Errorf("a bad value: exit %d, stderr %q; want %d naming -max-num-seqs", code, errOut, exitInvalid)
	}
}

// TestSimHelpShowsProfiles: sim -h gives each parameter's meaning and its
// value in every built-in profile, so that an override can be chosen
// without reading the source.
func TestSimHelpShowsProfiles(t *testing.T) {
	code, help, _ := call(t, context.Background(), "sim", "-h")
	if code != exitOK {
		t.Fatalf("sim -h: exit %d", code)
	}
	lines := strings.Split(help, "\n")
	usage := map[string]string{} // flag -> its help line
	for i := 0; i+1 < len(lines); i++ {
		if f, ok := strings.CutPrefix(lines[i], "  -"); ok {
			usage[strings.Fields(f)[0]] = strings.TrimSpace(lines[i+1])
		}
	}
	base, _ := sim.LookupProfile(sim.Profiles()[0])
	for _, k := range base.Keys() {
		line, ok := usage[strings.ReplaceAll(k, "_", "-")]
		if !ok {
			t.Errorf("sim -h lists no -%s", strings.ReplaceAll(k, "_", "-"))
			continue
		}
		if !strings.HasPrefix(line, base.Help(k)) {
			t.Errorf("-%s: %q does not start with the parameter's meaning, %q", k, line, base.Help(k))
		}
		var values []string
		for _, name := range sim.Profiles() {
			p, _ := sim.LookupProfile(name)
			v, _ := p.Get(k)
			values = append(values, name+" "+v)
		}
		if !strings.Contains(line, "(default: "+strings.Join(values, ", ")+")") && !strings.Contains(line, " in each profile)") {
			t.Errorf("-%s: %q does not give its value in each profile (%s)", k, line, strings.Join(values, ", "))
		}
	}
	if want := "a100-llama3-8b 256, h100-llama3-8b 256, tiny 16"; !strings.Contains(usage["max-num-seqs"], want) {
		t.Errorf("-max-num-seqs: %q lacks %q", usage["max-num-seqs"], want)
	}
}

func TestOutAndOSpelledAlike(t *testing.T) {
	dir := t.TempDir()
	for _, flag := range []string{"-o", "-out", "--out"} {
		f := filepath.Join(dir, "dump"+flag+".jsonl")
		code, _, errOut := call(t, context.Background(), "dataset", "dump", "testdata/tiny.hcl", flag, f)
		if code != exitOK {
			t.Fatalf("dataset dump %s: exit %d\n%s", flag, code, errOut)
		}
		if b, err := os.ReadFile(f); err != nil || len(b) == 0 {
			t.Errorf("dataset dump %s wrote nothing: %v", flag, err)
		}
		f = filepath.Join(dir, "import"+flag+".hcl")
		if code, _, errOut := call(t, context.Background(), "import", flag, f, "vllm", "--", "--model", "m"); code != exitOK {
			t.Fatalf("import %s: exit %d\n%s", flag, code, errOut)
		}
		if b, err := os.ReadFile(f); err != nil || !bytes.Contains(b, []byte(`target "server"`)) {
			t.Errorf("import %s wrote no scenario: %v", flag, err)
		}
		// run takes both too (the file is missing, the flag is not).
		if _, _, errOut := call(t, context.Background(), "run", flag, dir, "testdata/no-such.hcl"); strings.Contains(errOut, "unknown flag") {
			t.Errorf("run %s: %s", flag, errOut)
		}
	}
	_, help, _ := call(t, context.Background(), "run", "-h")
	if !strings.Contains(help, "(or -o)") {
		t.Errorf("run -h does not mention -o:\n%s", help)
	}
}

func TestValidateScenarioFlag(t *testing.T) {
	if code, out, errOut := call(t, context.Background(), "validate", "-scenario", "tiny", "testdata/tiny.hcl"); code != exitOK {
		t.Errorf("validate -scenario tiny: exit %d\n%s%s", code, out, errOut)
	}
	code, _, errOut := call(t, context.Background(), "validate", "testdata/tiny.hcl", "--scenario", "nope")
	if code != exitInvalid || !strings.Contains(errOut, `no scenario named "nope"`) {
		t.Errorf("validate -scenario nope: exit %d, stderr %q", code, errOut)
	}
}

// TestFmtDiff checks that -diff, as gofmt -d, prints the change and
// leaves the file alone, with -check too (which sets the exit code), while
// plain fmt rewrites the file and names it.
func TestFmtDiff(t *testing.T) {
	src, err := os.ReadFile("testdata/unformatted.hcl")
	if err != nil {
		t.Fatal(err)
	}
	const formatted = "target \"sim\" {\n  base_url = \"sim://tiny\"\n  api      = \"openai\"\n}\n"
	diff := func(f string) string {
		return "--- " + f + "\n+++ " + f + " (formatted)\n@@ -1,4 +1,4 @@\n" +
			" target \"sim\" {\n-base_url=\"sim://tiny\"\n-   api = \"openai\"\n+  base_url = \"sim://tiny\"\n+  api      = \"openai\"\n }\n"
	}
	tests := []struct {
		flags   []string
		code    int
		out     func(f string) string
		rewrote bool
	}{
		{[]string{"-diff"}, exitOK, diff, false},
		{[]string{"-check", "-diff"}, exitCheckFailed, diff, false},
		{[]string{"--diff"}, exitOK, diff, false},
		{[]string{"-check"}, exitCheckFailed, func(f string) string { return f + "\n" }, false},
		{nil, exitOK, func(f string) string { return f + "\n" }, true},
	}
	for _, tt := range tests {
		t.Run(strings.Join(append([]string{"fmt"}, tt.flags...), " "), func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "u.hcl")
			if err := os.WriteFile(f, src, 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := call(t, context.Background(), append(append([]string{"fmt"}, tt.flags...), f)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", code, tt.code, errOut)
			}
			if diff := cmp.Diff(tt.out(f), out); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			want := string(src)
			if tt.rewrote {
				want = formatted
			}
			after, _ := os.ReadFile(f)
			if diff := cmp.Diff(want, string(after)); diff != "" {
				t.Errorf("the file afterwards (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnifiedDiff(t *testing.T) {
	a := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n"
	b := "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\n"
	var out bytes.Buffer
	writeUnifiedDiff(&out, "x", []byte(a), []byte(b))
	want := `--- x
+++ x (formatted)
@@ -1,5 +1,5 @@
 a
-b
+B
 c
 d
 e
@@ -11,3 +11,4 @@
 k
 l
 m
+n
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("diff (-want +got):\n%s", diff)
	}
}

func TestVariableTypeError(t *testing.T) {
	code, _, errOut := call(t, context.Background(), "validate", "-var", "rate=abc", "testdata/typed-var.hcl")
	if code != exitInvalid || !strings.Contains(errOut, `variable "rate": want a number, got "abc"`) || strings.Contains(errOut, "Variables not allowed") {
		t.Errorf("exit %d, stderr:\n%s", code, errOut)
	}
	code, _, errOut = call(t, context.Background(), "validate", "-var", "rate=true", "testdata/typed-var.hcl")
	if code != exitInvalid || !strings.Contains(errOut, `variable "rate": want a number, got true`) {
		t.Errorf("exit %d, stderr:\n%s", code, errOut)
	}
}

func TestDiagnosticRendering(t *testing.T) {
	const line = "testdata/invalid.hcl:4:3: error: Unsupported argument;"
	const block = "Error: Unsupported argument"
	tests := []struct {
		terminal  bool
		flags     []string
		wantLine  bool
		wantBlock bool
	}{
		{false, nil, true, false},
		{true, nil, false, true},
		{true, []string{"-compact"}, true, false},
		{true, []string{"-verbose"}, true, true},
		{false, []string{"-verbose"}, true, true},
	}
	defer func(f func(w any) bool) { stderrIsTerminalHook = f }(stderrIsTerminalHook)
	for _, tt := range tests {
		t.Run(strings.Join(append([]string{map[bool]string{true: "terminal", false: "pipe"}[tt.terminal]}, tt.flags...), " "), func(t *testing.T) {
			stderrIsTerminalHook = func(any) bool { return tt.terminal }
			code, _, errOut := call(t, context.Background(), append(append([]string{"validate"}, tt.flags...), "testdata/invalid.hcl")...)
			if code != exitInvalid {
				t.Fatalf("exit %d", code)
			}
			if got := strings.Contains(errOut, line); got != tt.wantLine {
				t.Errorf("compact line printed: %v, want %v\n%s", got, tt.wantLine, errOut)
			}
			if got := strings.Contains(errOut, block); got != tt.wantBlock {
				t.Errorf("full block printed: %v, want %v\n%s", got, tt.wantBlock, errOut)
			}
			if !strings.Contains(errOut, `Did you mean "model"?`) {
				t.Errorf("the detail is missing:\n%s", errOut)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := call(t, context.Background(), "version")
	for _, want := range []string{"llmload " + version, "commit ", runtime.Version()} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("version: exit %d, output lacks %q:\n%s", code, want, out)
		}
	}
	defer func(v, c string) { version, commit = v, c }(version, commit)
	version, commit = "v1.2.3", "abc1234"
	_, out, _ = call(t, context.Background(), "--version")
	if !strings.Contains(out, "llmload v1.2.3\n") || !strings.Contains(out, "commit  abc1234\n") {
		t.Errorf("ldflags values not printed:\n%s", out)
	}
}

func TestCompletion(t *testing.T) {
	cmds := commandFlags()
	total := 0
	for _, shell := range []string{"bash", "zsh"} {
		code, out, errOut := call(t, context.Background(), "completion", shell)
		if code != exitOK {
			t.Fatalf("completion %s: exit %d\n%s", shell, code, errOut)
		}
		for _, c := range cmds {
			if !strings.Contains(out, c.Name) {
				t.Errorf("%s: command %s missing", shell, c.Name)
			}
			for _, f := range c.Flags {
				total++
				if !strings.Contains(out, "-"+f.Name+map[string]string{"bash": "", "zsh": "["}[shell]) {
					t.Errorf("%s: flag -%s of %s missing", shell, f.Name, c.Name)
				}
			}
		}
		// Hidden aliases stay out; known flags are in.
		for _, want := range []string{"-max-num-seqs", "-scenario", "-var-file", "-diff", "-compact"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: %s missing", shell, want)
			}
		}
		if strings.Contains(out, "-max_num_seqs") {
			t.Errorf("%s: lists the hidden -max_num_seqs", shell)
		}
	}
	if total < 40 {
		t.Errorf("only %d flags across commands: are the flag sets captured?", total)
	}
}

func TestImportCommand(t *testing.T) {
	code, out, errOut := call(t, context.Background(), "import", "vllm", "--",
		"python3", "benchmarks/benchmark_serving.py", "--backend", "vllm", "--model", "m",
		"--dataset-name", "sharegpt", "--dataset-path", "s.json", "--request-rate=10", "--percentile-metrics", "ttft,tpot", "--metadata", "tp=1")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, want := range []string{`target "server"`, `path        = "s.json"`, `rate    = 10`, `percentile_metrics = ["ttft", "tpot"]`} {
		if !strings.Contains(out, want) {
			t.Errorf("scenario lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "not translated (the benchmark is the same): --metadata tp=1: ") {
		t.Errorf("stderr does not list the untranslated argument:\n%s", errOut)
	}
	// The scenario validates as written (its dataset file aside).
	dir := t.TempDir()
	f := filepath.Join(dir, "imported.hcl")
	os.WriteFile(f, []byte(out), 0o644)
	os.WriteFile(filepath.Join(dir, "s.json"), []byte(`[{"conversations":[{"from":"human","value":"Hello there, how are you today?"},{"from":"gpt","value":"Fine, thank you, and you?"}]}]`), 0o644)
	if code, _, errOut := call(t, context.Background(), "validate", f); code != exitOK {
		t.Errorf("validate the imported scenario: exit %d\n%s", code, errOut)
	}
	if code, _, _ := call(t, context.Background(), "fmt", "-check", f); code != exitOK {
		t.Errorf("the imported scenario is not formatted")
	}

	for _, args := range [][]string{{"import"}, {"import", "locust"}, {"import", "vllm", "--", "--num-prompts", "3"}} {
		if code, _, errOut := call(t, context.Background(), args...); code != exitInvalid {
			t.Errorf("%v: exit %d, want %d\n%s", args, code, exitInvalid, errOut)
		}
	}
}

// TestImportOutAfterTool: llmload's own flags may stand after the tool's
// name, before "--", as the README writes them; the file is readable by
// others like every file llmload writes; "import vllm -h" is help.
func TestImportOutAfterTool(t *testing.T) {
	f := filepath.Join(t.TempDir(), "imp.hcl")
	code, out, errOut := call(t, context.Background(), "import", "vllm", "-out", f, "--",
		"python", "benchmark_serving.py", "--model", "m", "--dataset-name", "random", "--num-prompts", "5")
	if code != exitOK || out != "" {
		t.Fatalf("exit %d, stdout %q\n%s", code, out, errOut)
	}
	st, err := os.Stat(f)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("%s has mode %v, want 0644", f, st.Mode().Perm())
	}
	b, _ := os.ReadFile(f)
	if strings.Contains(string(b), "-out") || !strings.Contains(string(b), `model    = "m"`) && !strings.Contains(string(b), `"m"`) {
		t.Errorf("the scenario holds llmload's own flag or lacks the model:\n%s", b)
	}
	if code, out, _ := call(t, context.Background(), "import", "vllm", "-h"); code != exitOK || !strings.Contains(out, "Usage: llmload import") {
		t.Errorf("import vllm -h: exit %d, stdout %q", code, out)
	}
}

// TestImportExitCodes: import exits 1 when an argument changed the
// benchmark (the scenario written all the same), unless -lenient; 2 when
// no scenario can be written; argparse's abbreviations are read as vLLM
// reads them; llmload's one-dash flags work after "--" too. The repros of
// issue 34.
func TestImportExitCodes(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantFile string // the -o file that must hold the scenario; "" for stdout
		wantLine string // a line of the scenario ("" for none written)
		wantErr  string // a part of stderr
	}{
		{"hf becomes random", []string{"vllm", "--", "--model", "m", "--dataset-name", "hf", "--dataset-path", "x/y"},
			exitCheckFailed, "", `random {`, "not translated (the benchmark CHANGES): --dataset-name hf: "},
		{"sonnet becomes random", []string{"vllm", "--", "--model", "m", "--dataset-name", "sonnet", "--dataset-path", "s.txt"},
			exitCheckFailed, "", `random {`, "exit 1 (-lenient accepts it)"},
		{"-lenient accepts it", []string{"-lenient", "vllm", "--", "--model", "m", "--dataset-name", "hf"},
			exitOK, "", `random {`, "accepted by -lenient"},
		{"-lenient after --", []string{"vllm", "--", "--model", "m", "--dataset-name", "hf", "-lenient"},
			exitOK, "", `random {`, "accepted by -lenient"},
		{"an unparsable rate", []string{"vllm", "--", "--model", "m", "--request-rate", "abc"},
			exitCheckFailed, "", `rate    = "inf"`, "--request-rate abc: want a number"},
		{"an unknown option", []string{"vllm", "--", "--model", "m", "--no-such", "1"},
			exitCheckFailed, "", `target "server"`, "--no-such 1: unknown option"},
		{"an abbreviation", []string{"vllm", "--", "--model", "m", "--num-prompt", "10"},
			exitOK, "", `requests = 10`, ""},
		{"an ambiguous abbreviation", []string{"vllm", "--", "--model", "m", "--num", "10"},
			exitInvalid, "", "", "ambiguous option: --num could match --num-prompts, --num-warmups"},
		{"output options only", []string{"vllm", "--", "--model", "m", "--save-result", "--result-dir", "out"},
			exitOK, "", `target "server"`, "not translated (the benchmark is the same): --save-result"},
		{"-o after --", []string{"vllm", "--", "--model", "m", "-o", filepath.Join(dir, "after.hcl")},
			exitOK, filepath.Join(dir, "after.hcl"), `default     = "m"`, "wrote "},
		{"-o= after --, no --", []string{"vllm", "--model", "m", "-o=" + filepath.Join(dir, "eq.hcl")},
			exitOK, filepath.Join(dir, "eq.hcl"), `default     = "m"`, "wrote "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := call(t, context.Background(), append([]string{"import"}, tt.args...)...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d\n%s", code, tt.wantCode, errOut)
			}
			if !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("stderr lacks %q:\n%s", tt.wantErr, errOut)
			}
			written := out
			if tt.wantFile != "" {
				b, err := os.ReadFile(tt.wantFile)
				if err != nil || out != "" {
					t.Fatalf("-o %s: %v, stdout %q", tt.wantFile, err, out)
				}
				written = string(b)
			}
			if tt.wantLine == "" && written != "" || !strings.Contains(written, tt.wantLine) {
				t.Errorf("scenario, want one holding %q:\n%s", tt.wantLine, written)
			}
			if strings.Contains(written, "-o ") || strings.Contains(written, "lenient") && !strings.Contains(written, "exits 1 unless -lenient") {
				t.Errorf("the scenario holds llmload's own flag:\n%s", written)
			}
		})
	}
}
