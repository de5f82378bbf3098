package arch

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/llmload/llmload/"

// allowed lists, for each package, the project packages it may import
// (directly or not). Anything of ours not listed is a violation.
var allowed = map[string][]string{
	"metrics":   {},
	"tokenizer": {"internal/secret"},
	"dataset":   {"tokenizer", "internal/secret"},
	"scenario":  {"metrics", "compare", "internal/apis", "internal/secret", "internal/safehttp"},
	"assert":    {"scenario", "metrics", "compare", "internal/apis", "internal/secret", "internal/safehttp"},
	// The statistics of comparing two runs: summaries in, deltas out.
	"compare":  {"metrics"},
	"executor": {"dataset", "metrics", "tokenizer", "internal/apis", "internal/openaiwire", "internal/anthropicwire", "internal/secret", "internal/safehttp"},
	"sim":      {"metrics", "tokenizer", "internal/apis", "internal/openaiwire", "internal/anthropicwire", "internal/secret"},
	// The result schema, its files (result JSON, requests JSONL, merge) and
	// the figures computed from a run: summaries in, results out (a
	// comparison's rows are compare's deltas).
	"results": {"metrics", "compare"},
	// Rendering a result: console, HTML, JUnit, Markdown, comparison table.
	"report": {"metrics", "compare", "results"},
	// From a measured capacity to alert rules and autoscaler targets.
	"ops": {"metrics", "compare", "results"},
	// The live Prometheus exporter (an executor observer) and the
	// server-metrics scraper: both read and write only metrics' types.
	"live":   {"metrics"},
	"scrape": {"metrics", "internal/safehttp"},
	// What a server says of its configuration, read before a run: into
	// results' ServerConfig.
	"serverinfo": {"results", "metrics", "compare", "internal/secret"},
	// The API table (name, endpoint, streaming, conversations) that
	// scenario validates against and executor and sim dispatch on: a leaf.
	"internal/apis": {},
	// The OpenAI wire format's names, shared by executor and sim: a leaf.
	"internal/openaiwire": {},
	// Anthropic's Messages wire format's names, shared by executor and
	// sim: a leaf.
	"internal/anthropicwire": {},
	// Scrubbing credentials from text, for every package that prints or
	// stores what a server said: a leaf.
	"internal/secret": {},
	// The redirect policy of every HTTP client: a leaf.
	"internal/safehttp": {},
	// How tests find ../shared: a leaf.
	"internal/testshared": {},
	// The process's profiles for the client benchmarks: a leaf.
	"internal/profile": {},
	// Which llmload is running (-ldflags, else Go's build information): a leaf.
	"internal/buildinfo": {},
	// The shell completion scripts, from the commands' flags: a leaf.
	"internal/completion": {},
	// A vLLM command line into a scenario file, checked by decoding it.
	"internal/vllmimport": {"scenario", "metrics", "compare", "internal/apis", "internal/secret", "internal/safehttp"},
	// Test-only packages: the import check itself, the executor against the
	// simulator, the fresh clone, and the documentation's links.
	"internal/arch":       {},
	"internal/doclinks":   {},
	"internal/e2e":        {"dataset", "executor", "metrics", "sim", "tokenizer", "internal/apis", "internal/openaiwire", "internal/anthropicwire", "internal/secret", "internal/safehttp"},
	"internal/freshclone": {"internal/testshared", "results", "metrics"},
	// What a run is: target, dataset, baseline, shards, load, result and
	// verdict; cmd renders it.
	"runner": {"scenario", "assert", "compare", "dataset", "executor", "metrics", "results", "live", "scrape", "serverinfo", "sim", "tokenizer",
		"internal/apis", "internal/secret", "internal/openaiwire", "internal/anthropicwire", "internal/safehttp"},
	// The binary: the top of the graph.
	"cmd": {"metrics", "tokenizer", "dataset", "scenario", "assert", "compare", "executor", "sim", "results", "report", "ops", "live", "scrape", "serverinfo", "runner",
		"internal/apis", "internal/openaiwire", "internal/anthropicwire", "internal/secret", "internal/testshared", "internal/vllmimport", "internal/profile", "internal/safehttp", "internal/buildinfo", "internal/completion"},
	// The examples' data generator and the Kubernetes example's test.
	"examples": {"tokenizer", "internal/secret"},
	// Real engines in the loop: the GGUF writer and the tiny-model
	// generator. Apart from the rest of the project, so that what tests
	// llmload against real engines cannot lean on what it tests (its tests
	// find ../shared through internal/testshared).
	"engines": {"internal/testshared"},
	// Benchmark and calibration commands: the fake server, the stream
	// check, the simulator's calibration and the tiny-model generator.
	"tools": {"executor", "results", "compare", "metrics", "engines", "internal/apis", "internal/openaiwire", "internal/anthropicwire"},
}

// hclFree are the packages that must not depend on HCL or cty.
var hclFree = []string{"compare", "metrics", "tokenizer", "dataset", "executor", "sim", "results", "report", "ops", "live", "scrape", "serverinfo", "internal/apis", "internal/openaiwire", "internal/anthropicwire", "internal/secret"}

// unit is the name the rules know a package of ours by: its top-level
// folder ("executor" for executor/executortest), or, under internal/, the
// folder below it ("internal/openaiwire"), since the internal packages are
// unrelated to one another.
func unit(importPath string) string {
	parts := strings.SplitN(strings.TrimPrefix(importPath, module), "/", 3)
	if parts[0] == "internal" && len(parts) > 1 {
		return parts[0] + "/" + parts[1]
	}
	return parts[0]
}

type pkg struct {
	ImportPath string
	Deps       []string
}

func TestImportDirection(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("the go command is not on PATH: %v", err)
	}
	out, err := exec.Command("go", "list", "-e", "-json=ImportPath,Deps", "github.com/llmload/llmload/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := 0
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		top := unit(p.ImportPath)
		rules, ok := allowed[top]
		if !ok {
			t.Errorf("%s is not in the architecture table: add it to allowed with what it may import", p.ImportPath)
			continue
		}
		seen++
		for _, d := range p.Deps {
			if strings.HasPrefix(d, module) {
				dep := unit(d)
				if dep != top && !slices.Contains(rules, dep) {
					t.Errorf("%s imports %s; it may import only %v", p.ImportPath, d, rules)
				}
			}
			if slices.Contains(hclFree, top) && (strings.HasPrefix(d, "github.com/hashicorp/hcl") || strings.HasPrefix(d, "github.com/zclconf/go-cty")) {
				t.Errorf("%s depends on %s; only scenario and assert may see HCL", p.ImportPath, d)
			}
		}
	}
	if seen < len(allowed) {
		t.Errorf("checked %d packages, want at least %d: has a package moved?", seen, len(allowed))
	}
}

// TestDocFiles: every package has a doc.go whose package comment says what
// the package owns and what it imports or what imports it.
func TestDocFiles(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("the go command is not on PATH: %v", err)
	}
	out, err := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}} {{.Dir}}", "github.com/llmload/llmload/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, dir, _ := strings.Cut(line, " ")
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, "doc.go"), nil, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil {
			t.Errorf("%s: no doc.go saying what the package owns: %v", path, err)
			continue
		}
		doc := f.Doc.Text()
		if !strings.HasPrefix(doc, "Package ") && !strings.HasPrefix(doc, "Command ") {
			t.Errorf("%s: doc.go's comment does not begin with \"Package\" or \"Command\": %q", path, doc)
		}
		if !strings.Contains(doc, "import") {
			t.Errorf("%s: doc.go does not say what the package imports or what imports it", path)
		}
	}
}

// TestThinCommand: the binary parses flags, calls runner and renders; what
// a run is, how checks are judged and how runs compare (executor, assert,
// compare, metrics) is runner's, so cmd/llmload imports none of them
// itself.
func TestThinCommand(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("the go command is not on PATH: %v", err)
	}
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, module+"cmd/llmload").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, imp := range strings.Fields(string(out)) {
		for _, banned := range []string{"executor", "assert", "compare", "metrics"} {
			if imp == module+banned {
				t.Errorf("cmd/llmload imports %s: what it does belongs in runner", imp)
			}
		}
	}
}
