package assert

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hashicorp/hcl/v2"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/scenario"
)

var update = flag.Bool("update", false, "rewrite golden files")

func loadChecks(t *testing.T) (*scenario.Config, *scenario.Scenario) {
	t.Helper()
	cfg, diags := scenario.Load([]string{"testdata/checks.hcl"}, scenario.LoadOptions{})
	if diags.HasErrors() {
		var buf bytes.Buffer
		cfg.WriteDiagnostics(&buf, diags, scenario.Verbose)
		t.Fatalf("testdata/checks.hcl:\n%s", buf.String())
	}
	return cfg, cfg.Scenario("s")
}

// good meets every check of testdata/checks.hcl.
func good() *metrics.Summary {
	return &metrics.Summary{
		Completed:        100,
		Duration:         10,
		OutputThroughput: 3000,
		RequestGoodput:   6,
		TTFT:             metrics.Latency{Count: 1000, P50: 100, P99: 300},
		ITL:              metrics.Latency{Count: 5000, P99: 20},
	}
}

// bad misses every check of testdata/checks.hcl, and has no ITL samples.
func bad() *metrics.Summary {
	return &metrics.Summary{
		Completed:        1960,
		Failed:           40,
		Duration:         10,
		OutputThroughput: 2100.5,
		RequestGoodput:   4,
		TTFT:             metrics.Latency{Count: 1960, P50: 100, P99: 612.3},
	}
}

func TestEvaluate(t *testing.T) {
	_, s := loadChecks(t)
	type row struct {
		Name, Kind, Threshold, Measured, Verdict string
		Message                                  string
	}
	tests := []struct {
		name string
		sum  *metrics.Summary
		want []row
	}{
		{
			name: "all pass",
			sum:  good(),
			want: []row{
				{"ttft_p99", KindSLA, "<= 500 ms", "300 ms", Pass, ""},
				{"itl_p99", KindSLA, "<= 30 ms", "20 ms", Pass, ""},
				{"error_rate", KindSLA, "<= 1%", "0%", Pass, ""},
				{"min_output_throughput", KindSLA, ">= 2500 tok/s", "3000 tok/s", Pass, ""},
				{"min_goodput", KindSLA, ">= 5 req/s", "6 req/s", Pass, ""},
				{"output_defect_rate", KindSLA, "<= 50%", "0%", Pass, ""},
				{"throughput holds", KindAssert, "", "metrics.output_throughput = 3000", Pass, ""},
				{"tail", KindAssert, "", "metrics.ttft.p99 = 300, metrics.ttft.p50 = 100", Pass, ""},
				{"itl", KindAssert, "", `metrics["itl"].p99 = 20`, Pass, ""},
			},
		},
		{
			name: "all fail",
			sum:  bad(),
			want: []row{
				{"ttft_p99", KindSLA, "<= 500 ms", "612.3 ms", Fail, "P99 TTFT <= 500 ms: measured 612.3 ms."},
				{"itl_p99", KindSLA, "<= 30 ms", "no samples", Inconclusive, `ITL has no samples, so "P99 ITL <= 30 ms" can be neither shown to hold nor to break.`},
				{"error_rate", KindSLA, "<= 1%", "2%", Fail, "error rate <= 1%: measured 2%."},
				{"min_output_throughput", KindSLA, ">= 2500 tok/s", "2100.5 tok/s", Fail, "output throughput >= 2500 tok/s: measured 2100.5 tok/s."},
				{"min_goodput", KindSLA, ">= 5 req/s", "4 req/s", Fail, "goodput >= 5 req/s: measured 4 req/s."},
				{"output_defect_rate", KindSLA, "<= 50%", "0%", Pass, ""},
				{"throughput holds", KindAssert, "", "metrics.output_throughput = 2100.5", Fail,
					"Output throughput fell under 2,500 tok/s. (metrics.output_throughput = 2100.5)"},
				{"tail", KindAssert, "", "metrics.ttft.p99 = 612.3, metrics.ttft.p50 = 100", Fail,
					`Assertion "tail" failed. (metrics.ttft.p99 = 612.3, metrics.ttft.p50 = 100)`},
				{"itl", KindAssert, "", `metrics["itl"].p99 = null (no samples)`, Inconclusive,
					`The condition uses metrics["itl"].p99, which has no samples in this run. (metrics["itl"].p99 = null (no samples))`},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outcomes := Evaluate(s, tt.sum)
			var got []row
			for _, o := range outcomes {
				got = append(got, row{o.Name, o.Kind, o.ThresholdText(), o.MeasuredText(), o.Verdict, o.Message})
				if o.Passed != (o.Diagnostic == nil) {
					t.Errorf("%s: passed %v with diagnostic %v", o.Name, o.Passed, o.Diagnostic)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("outcomes (-want +got):\n%s", diff)
			}
			allPassed := tt.name == "all pass"
			if Passed(outcomes) != allPassed {
				t.Errorf("Passed() = %v, want %v", !allPassed, allPassed)
			}
		})
	}
}

// TestFailureRendering renders the failures of a bad run as the CLI does:
// the assert diagnostics must show the values involved.
func TestFailureRendering(t *testing.T) {
	cfg, s := loadChecks(t)
	var diags hcl.Diagnostics
	for _, o := range Evaluate(s, bad()) {
		if o.Diagnostic != nil { // the default bound on defective outputs passes
			diags = append(diags, o.Diagnostic)
		}
	}
	var buf bytes.Buffer
	if err := cfg.WriteDiagnostics(&buf, diags, scenario.Verbose); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	for _, want := range []string{"metrics.ttft.p99 as 612.3", "with metrics.output_throughput as 2100.5", `with metrics["itl"].p99 set to null`, "checks.hcl line 20"} {
		if !strings.Contains(got, want) {
			t.Errorf("rendering lacks %q:\n%s", want, got)
		}
	}
	const golden = "testdata/failed.golden"
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", golden, diff)
	}
}

// TestEvalContextShape checks that the metrics object holds every
// catalogue entry: null for statistics of distributions without samples,
// numbers otherwise (counts included), and a number per error kind.
func TestEvalContextShape(t *testing.T) {
	sum := bad()
	sum.Errors = map[metrics.ErrorKind]int{metrics.ErrHTTPStatus: 2}
	ctx := EvalContext(sum)
	m := ctx.Variables["metrics"]
	var got, want []string
	for _, c := range metrics.Catalogue {
		switch c.Kind {
		case metrics.Distribution:
			for _, stat := range metrics.Stats {
				if m.GetAttr(c.Name).GetAttr(stat).IsNull() {
					got = append(got, c.Name+"."+stat)
				}
				// Only TTFT has samples in bad(); a count is never null.
				if c.Name != "ttft" && stat != "count" {
					want = append(want, c.Name+"."+stat)
				}
			}
		case metrics.Scalar:
			if m.GetAttr(c.Name).IsNull() {
				got = append(got, c.Name)
			}
			// A run-level figure (capacity) is null until a sweep or
			// search sets it; pass_rate with no expected answer judged,
			// output_length_ratio with no answer recorded in the dataset,
			// session_wait_share without sessions.
			if c.RunLevel || c.Name == "pass_rate" || c.Name == "output_length_ratio" || c.Name == "session_wait_share" {
				want = append(want, c.Name)
			}
		case metrics.Counts:
			for _, k := range c.CountKeys() {
				if m.GetAttr(c.Name).GetAttr(k).IsNull() {
					got = append(got, c.Name+"."+k)
				}
			}
		}
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("null metrics (-want +got):\n%s", diff)
	}
	if v, _ := m.GetAttr("errors").GetAttr("http_status").AsBigFloat().Int64(); v != 2 {
		t.Errorf("metrics.errors.http_status = %d, want 2", v)
	}
	if v, _ := m.GetAttr("ttft").GetAttr("count").AsBigFloat().Int64(); v != 1960 {
		t.Errorf("metrics.ttft.count = %d, want 1960", v)
	}
	if _, ok := ctx.Functions["ms"]; !ok {
		t.Error("ms() missing from the context")
	}
}

// TestConditionResults covers conditions whose result is not a plain bool.
func TestConditionResults(t *testing.T) {
	tests := []struct {
		cond       string
		wantPassed bool
		wantMsg    string
	}{
		{`metrics.failed == 0 || metrics.error_rate < 0.05`, true, ""},
		{`metrics.ttft.p99 < 500 ? true : null`, false, "The condition's result is null. (metrics.ttft.p99 = 612.3)"},
		{`metrics.itl.p99 == null`, true, ""},
		{`metrics.completed > 0 && max(metrics.ttft.p50, 1) > 100`, false, `Assertion "a" failed. (metrics.completed = 1960, metrics.ttft.p50 = 100)`},
		// x / 0 is infinite in HCL: the condition would hold by accident.
		{`metrics.ttft.p99 <= 500 / (metrics.completed - 1960)`, false, `The condition divides by (metrics.completed - 1960), which is 0 in this run. (metrics.ttft.p99 = 612.3, metrics.completed = 1960)`},
		{`metrics.ttft.p99 % 0 == 0`, false, `The condition divides by 0, which is 0 in this run. (metrics.ttft.p99 = 612.3)`},
	}
	for _, tt := range tests {
		t.Run(tt.cond, func(t *testing.T) {
			dir := t.TempDir()
			src := `
target "t" {
  base_url = "sim://tiny"
}
dataset "d" {
  random {}
}
scenario "s" {
  target  = target.t
  dataset = dataset.d
  open_loop {
    rate = 1
  }
  assert "a" {
    condition = ` + tt.cond + `
  }
}
`
			p := dir + "/s.hcl"
			if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, diags := scenario.Load([]string{p}, scenario.LoadOptions{})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			outs := Evaluate(cfg.Scenario("s"), bad())
			o := outs[len(outs)-1] // after the default error budget
			if o.Passed != tt.wantPassed || o.Message != tt.wantMsg {
				t.Errorf("passed %v, message %q; want %v, %q", o.Passed, o.Message, tt.wantPassed, tt.wantMsg)
			}
			if strings.Contains(tt.wantMsg, "divides by") && o.Verdict != Inconclusive {
				t.Errorf("verdict %q, want inconclusive: a division by zero decides nothing", o.Verdict)
			}
		})
	}
}
