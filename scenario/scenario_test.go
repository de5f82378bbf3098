package scenario

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hashicorp/hcl/v2"
)

// ignoreHCL leaves out source ranges, expressions and unexported fields.
var ignoreHCL = cmp.Options{
	cmpopts.IgnoreTypes(hcl.Range{}, map[string]hcl.Range{}),
	cmpopts.IgnoreFields(Assert{}, "Condition"),
	cmpopts.IgnoreUnexported(Target{}, Dataset{}, Scenario{}),
}

func loadFull(t *testing.T) *Config {
	t.Helper()
	cfg, diags := Load([]string{"testdata/valid/full.hcl"}, LoadOptions{Environ: []string{"OPENAI_API_KEY=sk-secret"}})
	if diags.HasErrors() {
		var buf bytes.Buffer
		cfg.WriteDiagnostics(&buf, diags, Verbose)
		t.Fatalf("full.hcl:\n%s", buf.String())
	}
	return cfg
}

func TestDecodeFull(t *testing.T) {
	cfg := loadFull(t)
	dir := filepath.Join("testdata", "valid")
	vllm := &Target{
		Name: "vllm", BaseURL: "http://127.0.0.1:8000", API: APIChat,
		Model: "meta-llama/Meta-Llama-3-8B-Instruct", APIKey: "sk-secret",
		Headers: map[string]string{"X-Team": "serving"},
		Timeout: 120 * time.Second, StallTimeout: 30 * time.Second, MetricsURLDefault: true, ScrapeInterval: DefaultScrapeInterval,
		ExtraBody: map[string]any{"temperature": 0.0, "stop": []any{"</s>"}},
	}
	tls := &Target{
		Name: "local_tls", BaseURL: "https://127.0.0.1:8443/serving", API: APICompletions, Model: "M",
		Timeout: DefaultTimeout, StallTimeout: DefaultStallTimeout, MetricsURLDefault: true, ScrapeInterval: DefaultScrapeInterval, CAFile: filepath.Join(dir, "certs/ca.pem"),
		NoTraceContext: true,
	}
	sim := &Target{
		Name: "sim", BaseURL: "sim://a100-llama3-8b", API: DefaultAPI,
		Timeout: DefaultTimeout, StallTimeout: DefaultStallTimeout, MetricsURLDefault: true, ScrapeInterval: DefaultScrapeInterval,
		Sim: map[string]string{"max_num_seqs": "256", "kv_cache_tokens": "60000", "step_overhead": "2ms", "fault_http_429": "0.01"},
	}
	sharegpt := &Dataset{
		Name: "sharegpt", Kind: KindShareGPT,
		ShareGPT: &ShareGPTSource{
			Path: filepath.Join(dir, "data/ShareGPT_V3_unfiltered_cleaned_split.json"), NumPrompts: 1000,
			MinPromptTokens: 4, MaxPromptTokens: 1024, MaxTotalTokens: 2048, Oversample: true,
		},
		Tokenizer: filepath.Join(dir, "models/llama3/tokenizer.json"),
	}
	random := &Dataset{
		Name: "random", Kind: KindRandom, Tokenizer: TokenizerServer,
		Random: &RandomSource{InputLen: 512, OutputLen: 64, RangeRatio: 0.25, PrefixLen: 32, NumPrompts: 200, Seed: 42},
	}
	prompts := &Dataset{
		Name: "prompts", Kind: KindJSONL,
		JSONL: &JSONLSource{
			Path: filepath.Join(dir, "data/prompts.jsonl"), PromptField: "text", OutputLenField: "max_tokens",
			OutputLen: 128, Seed: 7,
		},
	}
	file := filepath.Join(dir, "full.hcl")
	// Every scenario whose sla block sets no error_rate gets the default
	// error budget.
	defaultBudget := SLA{Key: "error_rate", Metric: "error_rate", Bound: DefaultErrorRate, Upper: true, Default: true}
	want := []*Scenario{
		{
			Name: "poisson_10rps", Target: vllm, Dataset: sharegpt, File: file,
			OpenLoop: &OpenLoop{Rate: 10, Arrival: ArrivalPoisson, Burstiness: 1, MaxConcurrency: 256},
			Requests: 1000, Warmup: 10, Seed: 1,
			SLA: []SLA{
				{Key: "ttft_p99", Metric: "ttft", Stat: "p99", Bound: 500, Upper: true},
				{Key: "itl_p99", Metric: "itl", Stat: "p99", Bound: 30, Upper: true},
				{Key: "tpot_mean", Metric: "tpot", Stat: "mean", Bound: 40, Upper: true},
				{Key: "e2el_p999", Metric: "e2el", Stat: "p999", Bound: 90000, Upper: true},
				{Key: "queue_max", Metric: "queue", Stat: "max", Bound: 2000, Upper: true},
				{Key: "error_rate", Metric: "error_rate", Bound: 0.01, Upper: true},
				{Key: "min_request_throughput", Metric: "request_throughput", Bound: 9},
				{Key: "min_output_throughput", Metric: "output_throughput", Bound: 1200},
				{Key: "min_goodput", Metric: "request_goodput", Bound: 8},
			},
			Verdict: VerdictStrict, MinSamples: 500, AllowInconclusive: true,
			Validity: Validity{MaxRateShortfall: 0.1, MaxLagP99: 20 * time.Millisecond, MaxClientCPU: 0.8, MaxTokenMismatch: 0.02, MaxClientOverhead: 250 * time.Millisecond},
			Goodput:  Goodput{TTFT: 500 * time.Millisecond, TPOT: 50 * time.Millisecond, ITL: 100 * time.Millisecond, E2EL: 20 * time.Second},
			Asserts: []*Assert{
				{Name: "throughput holds", Source: "metrics.output_throughput >= 2500", ErrorMessage: "Output throughput fell under 2,500 tok/s."},
				{Name: "tail stays close to the median", Source: `metrics.ttft.p99 <= 4 * metrics.ttft.p50 && metrics.e2el.max < ms("2m")`},
			},
		},
		{
			Name: "burst", Target: sim, Dataset: random, File: file, Duration: 10 * time.Minute,
			OpenLoop: &OpenLoop{Rate: math.Inf(1), Arrival: ArrivalGamma, Burstiness: 0.5},
			SLA:      []SLA{defaultBudget}, Verdict: VerdictPoint, Validity: DefaultValidity,
		},
		{
			Name: "users", Target: tls, Dataset: prompts, File: file,
			ClosedLoop: &ClosedLoop{
				Users: 100, ThinkMin: time.Second, ThinkMax: 3 * time.Second, Duration: 5 * time.Minute,
				Stages: []Stage{{Users: 100, Duration: 5 * time.Minute}},
			},
			SLA: []SLA{defaultBudget}, Verdict: VerdictPoint, Validity: DefaultValidity,
		},
		{
			Name: "ramp", Target: sim, Dataset: random, File: file,
			ClosedLoop: &ClosedLoop{
				Users: 100, ThinkMin: 500 * time.Millisecond, ThinkMax: 500 * time.Millisecond, Duration: 3 * time.Minute,
				Stages: []Stage{{Users: 10, Duration: time.Minute}, {Users: 100, Duration: 2 * time.Minute, Ramp: 30 * time.Second}},
			},
			SLA:     []SLA{{Key: "e2el_p50", Metric: "e2el", Stat: "p50", Bound: 10000, Upper: true}, defaultBudget},
			Verdict: VerdictPoint, Validity: DefaultValidity,
		},
	}
	for _, s := range want {
		s.Percentiles, s.PercentileMetrics = DefaultPercentiles, DefaultPercentileMetrics
		s.Preflight = true // the defaults
		// And the default bound on defective outputs (not with ignore_eos).
		if !s.Target.IgnoreEOS {
			s.SLA = append(s.SLA, SLA{Key: "output_defect_rate", Metric: "output_defect_rate", Bound: DefaultOutputDefectRate, Upper: true, Default: true})
		}
		if s.ClosedLoop != nil {
			s.ClosedLoop.BackoffMin, s.ClosedLoop.BackoffMax = DefaultBackoffMin, DefaultBackoffMax
		}
	}
	if diff := cmp.Diff(want, cfg.Scenarios, ignoreHCL); diff != "" {
		t.Errorf("scenarios (-want +got):\n%s", diff)
	}
	if got := cfg.Scenario("burst"); got == nil || got.Name != "burst" {
		t.Errorf(`Scenario("burst") = %v`, got)
	}
	if got := cfg.Scenario("nope"); got != nil {
		t.Errorf(`Scenario("nope") = %v, want nil`, got)
	}
	if s := cfg.Scenario("poisson_10rps"); s.Asserts[0].Condition == nil || s.SLA[0].Range.Start.Line == 0 {
		t.Error("condition or SLA range missing")
	}
}

// One seed on the scenario samples the dataset too, unless the dataset
// sets its own; each scenario gets its own copy of a shared dataset.
func TestSeedPrecedence(t *testing.T) {
	dir := t.TempDir()
	src := `
target "t" {
  base_url = "sim://tiny"
}
dataset "unseeded" {
  random {}
}
dataset "seeded" {
  jsonl {
    path = "p.jsonl"
    seed = 7
  }
}
scenario "a" {
  target  = target.t
  dataset = dataset.unseeded
  seed    = 3
  open_loop { rate = 1 }
}
scenario "b" {
  target  = target.t
  dataset = dataset.unseeded
  open_loop { rate = 1 }
}
scenario "c" {
  target  = target.t
  dataset = dataset.seeded
  seed    = 5
  open_loop { rate = 1 }
}
`
	path := filepath.Join(dir, "s.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, diags := Load([]string{path}, LoadOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	got := map[string]int64{}
	for _, s := range cfg.Scenarios {
		switch d := s.Dataset; {
		case d.Random != nil:
			got[s.Name] = d.Random.Seed
		case d.JSONL != nil:
			got[s.Name] = d.JSONL.Seed
		}
	}
	want := map[string]int64{"a": 3, "b": 0, "c": 7}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("dataset seeds by scenario (-want +got):\n%s", diff)
	}
	if d := cfg.Dataset("unseeded"); d.Random.Seed != 0 || d.SeedSet() {
		t.Errorf("the declared dataset changed: seed %d, SeedSet %v", d.Random.Seed, d.SeedSet())
	}
	if !cfg.Dataset("seeded").SeedSet() {
		t.Error(`dataset "seeded" sets its seed; SeedSet is false`)
	}
}

func TestSLADescribe(t *testing.T) {
	tests := []struct {
		sla  SLA
		want string
	}{
		{SLA{Metric: "ttft", Stat: "p99", Bound: 500, Upper: true}, "P99 TTFT <= 500 ms"},
		{SLA{Metric: "e2el", Stat: "p999", Bound: 1500.5, Upper: true}, "P99.9 E2EL <= 1500.5 ms"},
		{SLA{Metric: "queue", Stat: "mean", Bound: 2, Upper: true}, "mean queue time <= 2 ms"},
		{SLA{Metric: "error_rate", Bound: 0.01, Upper: true}, "error rate <= 1%"},
		{SLA{Metric: "output_throughput", Bound: 2500}, "output throughput >= 2500 tok/s"},
		{SLA{Metric: "request_throughput", Bound: 9.5}, "request throughput >= 9.5 req/s"},
		{SLA{Metric: "request_goodput", Bound: 8}, "goodput >= 8 req/s"},
	}
	for _, tt := range tests {
		if got := tt.sla.Describe(); got != tt.want {
			t.Errorf("Describe() = %q, want %q", got, tt.want)
		}
	}
}

// TestResolvedHidesSecrets checks that the result-file view carries no API
// key, no credential header and no URL password.
func TestResolvedHidesSecrets(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.hcl")
	src := `
target "t" {
  base_url = "https://user:hunter2@127.0.0.1:8443"
  model    = "m"
  api_key  = "sk-secret"
  headers  = { Authorization = "Bearer sk-secret", "X-Api-Key" = "sk-secret", "X-Team" = "serving" }
}
dataset "d" {
  random {}
}
scenario "s" {
  target  = target.t
  dataset = dataset.d
  open_loop {
    rate = "inf"
  }
  assert "a" {
    condition = metrics.failed == 0
  }
}
`
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, diags := Load([]string{p}, LoadOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	b, err := json.Marshal(cfg.Scenario("s").Resolved())
	if err != nil {
		t.Fatal(err)
	}
	out := string(b)
	for _, secret := range []string{"sk-secret", "hunter2"} {
		if strings.Contains(out, secret) {
			t.Errorf("Resolved() leaks %q: %s", secret, out)
		}
	}
	for _, want := range []string{`"X-Team":"serving"`, `"rate":"inf"`, `"condition":"metrics.failed == 0"`, `"base_url":"https://user:xxxxx@127.0.0.1:8443"`} {
		if !strings.Contains(out, want) {
			t.Errorf("Resolved() lacks %s: %s", want, out)
		}
	}
	if cfg.Target("t").APIKey != "sk-secret" {
		t.Error("API key not decoded")
	}
}

func TestCheckFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "present.json"), []byte("[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `
dataset "here" {
  sharegpt {
    path = "present.json"
  }
}
dataset "gone" {
  jsonl {
    path = "absent.jsonl"
  }
  tokenizer = "."
}
`
	p := filepath.Join(dir, "s.hcl")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, diags := Load([]string{dir}, LoadOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var got []int
	for _, d := range cfg.CheckFiles() {
		got = append(got, d.Subject.Start.Line)
	}
	if diff := cmp.Diff([]int{9, 11}, got); diff != "" {
		t.Errorf("lines of unreadable files (-want +got):\n%s", diff)
	}
}

// TestConfigurations: a directory is one configuration, unless its files
// declare the same name twice (examples/): then each file is one of its
// own, and -scenario keeps the files that declare it.
func TestConfigurations(t *testing.T) {
	write := func(dir, name, src string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const target = "target \"t\" {\n  base_url = \"sim://tiny\"\n}\n"
	scen := func(name string) string {
		return "scenario \"" + name + "\" {\n  target = target.t\n}\n"
	}
	// One configuration across files: the scenarios use another file's
	// target.
	joined := t.TempDir()
	write(joined, "a-targets.hcl", target)
	write(joined, "b-scenarios.hcl", scen("s1")+scen("s2"))
	// Files that each stand alone, each declaring the target.
	apart := t.TempDir()
	one := write(apart, "one.hcl", target+scen("s1"))
	two := write(apart, "two.hcl", target+scen("s2"))
	single := filepath.Join(joined, "a-targets.hcl")
	tests := []struct {
		name      string
		paths     []string
		scenario  string
		want      [][]string
		wantNotes int
		wantErr   string
	}{
		{"no paths", nil, "", [][]string{nil}, 0, ""},
		{"a file", []string{single}, "", [][]string{{single}}, 0, ""},
		{"a directory of one configuration", []string{joined}, "", [][]string{{joined}}, 0, ""},
		{"a directory of one configuration, one scenario", []string{joined}, "s2", [][]string{{joined}}, 0, ""},
		{"a folder of configurations", []string{apart}, "", [][]string{{one}, {two}}, 1, ""},
		{"a folder of configurations, one scenario", []string{apart}, "s2", [][]string{{two}}, 1, ""},
		{"a folder of configurations, no such scenario", []string{apart}, "s3", nil, 0, `no file of ` + apart + ` declares a scenario named "s3"`},
		{"a file beside a folder", []string{single, apart}, "", [][]string{{single}, {one}, {two}}, 1, ""},
		{"an unreadable path is left to Load", []string{"testdata/nope"}, "", [][]string{{"testdata/nope"}}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, notes, err := Configurations(tt.paths, tt.scenario)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("configurations (-want +got):\n%s", diff)
			}
			if len(notes) != tt.wantNotes || (len(notes) > 0 && !strings.Contains(notes[0], `target "t" is declared in `+one+` and in `+two)) {
				t.Errorf("notes %q, want %d naming the target declared twice", notes, tt.wantNotes)
			}
		})
	}
}

func TestLoadPaths(t *testing.T) {
	tests := []struct {
		name  string
		paths []string
		want  []string // diagnostic summaries
	}{
		{"no paths", nil, []string{"No configuration files"}},
		{"missing file", []string{"testdata/nope.hcl"}, []string{"Cannot read configuration"}},
		{"empty directory", []string{"testdata/golden"}, []string{"Cannot read configuration"}},
		{"same file twice", []string{"testdata/valid/minimal.hcl", "testdata/valid/minimal.hcl"}, nil},
		{"directory", []string{"testdata/valid"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := Load(tt.paths, LoadOptions{})
			var got []string
			for _, d := range diags {
				got = append(got, d.Summary)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		name, src, want string
		wantErr         string
	}{
		{
			name: "aligns and indents",
			src:  "target \"t\" {\nbase_url = \"http://127.0.0.1:8000\"\n  model=\"m\"\n}\n",
			want: "target \"t\" {\n  base_url = \"http://127.0.0.1:8000\"\n  model    = \"m\"\n}\n",
		},
		{
			name: "canonical input is unchanged",
			src:  "scenario \"s\" {\n  requests = 10\n}\n",
			want: "scenario \"s\" {\n  requests = 10\n}\n",
		},
		{
			name:    "syntax error",
			src:     "target \"t\" {\n",
			wantErr: "Unclosed configuration block",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, diags := Format("f.hcl", []byte(tt.src))
			if tt.wantErr != "" {
				if len(diags) == 0 || diags[0].Summary != tt.wantErr {
					t.Fatalf("diags = %v, want %q", diags, tt.wantErr)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// Every valid fixture is already canonical.
	files, _ := filepath.Glob("testdata/valid/*.hcl")
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, diags := Format(f, src)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		if diff := cmp.Diff(string(src), string(got)); diff != "" {
			t.Errorf("%s is not canonical (-want +got):\n%s", f, diff)
		}
	}
}

func TestFunctions(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "key.txt"), []byte("sk-from-file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `
target "t" {
  base_url = "http://127.0.0.1:8000"
  model    = format("%s-%d", upper(env("FAMILY", "x")), max(1, 8, 3))
  api_key  = trimspace(file("key.txt"))
  headers  = merge({ a = "1" }, { b = join(",", split(" ", "x y")) })
  extra_body = { max = ms("1.5s"), count = length(concat([1], [2, 3])), d = env("UNSET", "dflt") }
}
`
	p := filepath.Join(dir, "f.hcl")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, diags := Load([]string{p}, LoadOptions{Environ: []string{"FAMILY=llama"}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	want := &Target{
		Name: "t", BaseURL: "http://127.0.0.1:8000", API: DefaultAPI, Model: "LLAMA-8", APIKey: "sk-from-file",
		Headers:   map[string]string{"a": "1", "b": "x,y"},
		ExtraBody: map[string]any{"max": 1500.0, "count": 3.0, "d": "dflt"},
		Timeout:   DefaultTimeout, StallTimeout: DefaultStallTimeout, MetricsURLDefault: true, ScrapeInterval: DefaultScrapeInterval,
	}
	if diff := cmp.Diff(want, cfg.Target("t"), ignoreHCL); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestDocsExample loads the first example of docs/scenarios.md, the one
// from the language's issue, and expects no diagnostics.
func TestDocsExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/scenarios.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```hcl\n")
	example, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/scenarios.md has no hcl example")
	}
	p := filepath.Join(t.TempDir(), "example.hcl")
	if err := os.WriteFile(p, []byte(example), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, diags := Load([]string{p}, LoadOptions{})
	if len(diags) > 0 {
		var buf bytes.Buffer
		cfg.WriteDiagnostics(&buf, diags, Verbose)
		t.Fatalf("docs example:\n%s", buf.String())
	}
	if s := cfg.Scenario("poisson_10rps"); s == nil || len(s.SLA) != 4 || len(s.Asserts) != 1 {
		t.Errorf("docs example decoded to %+v", s)
	}
}

// TestCheckFilesSelected: given scenarios, only their files are checked,
// and a missing file's diagnostic says what it is and where to get it.
func TestCheckFilesSelected(t *testing.T) {
	cfg, diags := Load([]string{"testdata/checkfiles/scenarios.hcl"}, LoadOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	tests := []struct {
		name      string
		scenarios []string
		wantLines []int
	}{
		{"all", nil, []int{27}},
		{"one without files", []string{"fast"}, nil},
		{"one with a present file", []string{"here"}, nil},
		{"the one that needs the real file", []string{"real"}, []int{27}},
		{"several", []string{"fast", "real", "here"}, []int{27}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var selected []*Scenario
			for _, name := range tt.scenarios {
				selected = append(selected, cfg.Scenario(name))
			}
			var got []int
			for _, d := range cfg.CheckFiles(selected...) {
				got = append(got, d.Subject.Start.Line)
				for _, want := range []string{
					`the ShareGPT-format JSON file of dataset "real"`,
					"absent_sharegpt.json",
					"var.sharegpt (set by default)",
					"download ShareGPT_V3_unfiltered_cleaned_split.json from anon8231489123/ShareGPT_Vicuna_unfiltered",
				} {
					if !strings.Contains(d.Detail, want) {
						t.Errorf("detail lacks %q:\n%s", want, d.Detail)
					}
				}
			}
			if diff := cmp.Diff(tt.wantLines, got); diff != "" {
				t.Errorf("lines of unreadable files (-want +got):\n%s", diff)
			}
		})
	}
}
