package report

import (
	"bytes"
	"encoding/xml"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmload/llmload/compare"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
)

// gateRun is the open-loop fixture gated against a baseline: a valid run
// with a failed regression check, a skipped baseline assert and the
// comparison's rows.
func gateRun() *results.Run {
	r := openLoopRun()
	r.Scenario = "gate"
	r.ServerVersion = "0.6.3 (/version); Server: uvicorn"
	r.Validity = &results.Validity{Valid: true}
	s := *r.Overall
	s.Agreement = &metrics.Agreement{Against: "baselines/gate_v1.json", Pairs: 40, Exact: 39, Scored: 10, PrefixSum: 9.5, SimilaritySum: 9.8}
	r.Overall = &s
	r.Checks = append(r.Checks[:2:2],
		results.Check{Name: "ttft_p50", Kind: "regression", Description: "P50 TTFT <= 110 ms (baseline 100 ms +10%)", Metric: "ttft", Stat: "p50", Op: "<=",
			Threshold: num(110), Unit: "ms", Value: num(130), Samples: 2000, Lower: num(126), Upper: num(134), Baseline: num(100), Tolerance: num(0.1), Verdict: results.Fail,
			Message: "P50 TTFT rose 30.0% (100 ms to 130 ms) (interval +26.0% to +34.0%); its whole 95% interval lies beyond the +10% tolerance."},
		results.Check{Name: "vs_baseline", Kind: "assert", Description: "metrics.ttft.p99 <= baseline.ttft.p99 * 1.10", Verdict: results.Skipped,
			Message: "No baseline at baselines/gate.json, so this check was skipped (baseline_optional = true)."},
		results.Check{Name: "tpot_p99", Kind: "sla", Metric: "tpot", Stat: "p99", Op: "<=", Threshold: num(40), Unit: "ms", Value: num(30), Samples: 5, Verdict: results.Inconclusive,
			Message: "P99 TPOT rests on 5 samples; a P99 check needs at least 1000."},
	)
	r.Comparison = &results.Comparison{
		Baseline: "baselines/gate.json", BaseRunID: "run-0", BaseServerVersion: "0.6.2 (/version)", ServerVersion: r.ServerVersion, Verdict: results.Fail,
		Rows: []compare.Delta{
			{Key: "ttft_p50", Metric: "ttft", Stat: "p50", Unit: "ms", Base: 100, New: 130, Delta: 30, Percent: 30, Lower: 26, Upper: 34, HasInterval: true,
				Method: "bootstrap", BaseSamples: 2000, NewSamples: 2000, Tolerance: tolerance("ttft_p50", 0.1), Verdict: results.Fail, Change: "worse",
				Message: "P50 TTFT rose 30.0% (100 ms to 130 ms) (interval +26.0% to +34.0%); its whole 95% interval lies beyond the +10% tolerance."},
			{Key: "itl_p99", Metric: "itl", Stat: "p99", Unit: "ms", Base: 20, New: 20.5, Delta: 0.5, Percent: 2.5, Lower: -0.4, Upper: 1.4, HasInterval: true,
				Method: "bootstrap", BaseSamples: 30000, NewSamples: 30000, Tolerance: tolerance("itl_p99", 0.1), Verdict: results.Inconclusive, Change: "no change",
				Message: "P99 ITL rose 2.5%; its 95% interval straddles the +10% tolerance."},
			{Key: "output_throughput", Metric: "output_throughput", Unit: "tok/s", Base: 2500, New: 2450, Delta: -50, Percent: -2, Lower: -80, Upper: -20, HasInterval: true,
				Method: "windows", BaseSamples: 58, NewSamples: 58, Tolerance: tolerance("output_throughput", 0.05), Verdict: results.Pass, Change: "worse"},
			{Key: "error_rate", Metric: "error_rate", Unit: "fraction", Base: 0, New: 0.001, Delta: 0.001, Percent: math.NaN(), Lower: -0.002, Upper: 0.004, HasInterval: true,
				Method: "agresti-caffo", BaseSamples: 2000, NewSamples: 2000, Change: "no change"},
		},
	}
	return r
}

// tolerance is the tolerance of figure key ("ttft_p50") as parsed.
func tolerance(key string, fraction float64) *compare.Tolerance {
	metric, stat, err := compare.ParseKey(key)
	if err != nil {
		panic(err)
	}
	return &compare.Tolerance{Key: key, Metric: metric, Stat: stat, Fraction: fraction}
}

func TestWriteJUnitGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, []*results.Result{result(t, gateRun()), result(t, emptyRun())}); err != nil {
		t.Fatal(err)
	}
	golden(t, "gate.junit.xml.golden", buf.Bytes())

	// Parsed back against the JUnit structure: testsuites/testsuite/
	// testcase, each with name, classname and time, the counts adding up.
	type problem struct {
		Message string `xml:"message,attr"`
	}
	var got struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Errors   int      `xml:"errors,attr"`
		Skipped  int      `xml:"skipped,attr"`
		Suites   []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Errors   int    `xml:"errors,attr"`
			Skipped  int    `xml:"skipped,attr"`
			Time     string `xml:"time,attr"`
			Cases    []struct {
				Name      string   `xml:"name,attr"`
				Classname string   `xml:"classname,attr"`
				Time      string   `xml:"time,attr"`
				Failure   *problem `xml:"failure"`
				Error     *problem `xml:"error"`
				Skipped   *problem `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	type tally struct{ tests, failures, errors, skipped int }
	var sum tally
	outcome := map[string]string{}
	for _, s := range got.Suites {
		var n tally
		if s.Name == "" || s.Time == "" {
			t.Errorf("suite %+v lacks a name or time", s.Name)
		}
		for _, c := range s.Cases {
			if c.Name == "" || c.Classname == "" || c.Time == "" {
				t.Errorf("testcase %q lacks a name, classname or time", c.Name)
			}
			n.tests++
			kind := "pass"
			switch {
			case c.Failure != nil:
				n.failures++
				kind = "failure: " + c.Failure.Message
			case c.Error != nil:
				n.errors++
				kind = "error: " + c.Error.Message
			case c.Skipped != nil:
				n.skipped++
				kind = "skipped: " + c.Skipped.Message
			}
			outcome[s.Name+"/"+c.Name] = kind
		}
		if n != (tally{s.Tests, s.Failures, s.Errors, s.Skipped}) {
			t.Errorf("suite %s counts %+v, its testcases %+v", s.Name, tally{s.Tests, s.Failures, s.Errors, s.Skipped}, n)
		}
		sum.tests, sum.failures, sum.errors, sum.skipped = sum.tests+n.tests, sum.failures+n.failures, sum.errors+n.errors, sum.skipped+n.skipped
	}
	if sum != (tally{got.Tests, got.Failures, got.Errors, got.Skipped}) {
		t.Errorf("testsuites counts %+v, the suites' %+v", tally{got.Tests, got.Failures, got.Errors, got.Skipped}, sum)
	}
	for name, want := range map[string]string{
		"gate/validity":    "pass",
		"gate/ttft_p99":    "pass",
		"gate/itl_p99":     "failure: itl_p99: threshold <= 50 ms; measured 60 ms (n=13)",
		"gate/ttft_p50":    "failure: ttft_p50: threshold <= 110 ms (baseline 100 ms +10%); measured 130 ms (n=2000); 95% interval 126 ms to 134 ms",
		"gate/vs_baseline": "skipped: skipped: vs_baseline",
		"gate/tpot_p99":    "skipped: inconclusive: tpot_p99",
		"down/validity":    "error: interrupted: the run did not finish",
	} {
		if !strings.HasPrefix(outcome[name], want) {
			t.Errorf("%s: %q, want it to start with %q", name, outcome[name], want)
		}
	}
}

func TestWriteMarkdownGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, result(t, gateRun())); err != nil {
		t.Fatal(err)
	}
	golden(t, "gate.md.golden", buf.Bytes())
	// Parsed back: every table row has its header's number of cells.
	lines := strings.Split(buf.String(), "\n")
	cols := 0
	for _, l := range lines {
		if !strings.HasPrefix(l, "|") {
			cols = 0
			continue
		}
		n := len(splitRow(l))
		if cols == 0 {
			cols = n
		} else if n != cols {
			t.Errorf("row of %d cells in a table of %d: %s", n, cols, l)
		}
	}
	for _, want := range []string{"## llmload: `gate` ❌ FAIL", "### Checks", "- Agreement with baselines/gate\\_v1.json: 39 of 40 prompts answered alike", "### Against the baseline ❌ FAIL", "| ❌ FAIL | `ttft_p50` | regression | <= 110 ms (baseline 100 ms +10%) | 130 ms | 126 ms to 134 ms (95%) | 100 ms |"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the Markdown lacks %q", want)
		}
	}
}

// splitRow splits a Markdown table row on its unescaped pipes.
func splitRow(l string) []string {
	l = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(l), "|"), "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(l); i++ {
		switch {
		case l[i] == '\\' && i+1 < len(l) && l[i+1] == '|':
			cur.WriteString(`\|`)
			i++
		case l[i] == '|':
			cells = append(cells, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(l[i])
		}
	}
	return append(cells, cur.String())
}

func TestWriteComparisonGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteComparison(&buf, gateRun().Comparison); err != nil {
		t.Fatal(err)
	}
	golden(t, "gate.compare.golden", buf.Bytes())
}

func TestGitHubAnnotation(t *testing.T) {
	tests := []struct {
		file  string
		line  int
		title string
		msg   string
		want  string
	}{
		{"examples/ci/scenario.hcl", 42, "llmload ci: sla ttft_p99", "P99 TTFT <= 500 ms: measured 612 ms.",
			"::error file=examples/ci/scenario.hcl,line=42,title=llmload ci%3A sla ttft_p99::P99 TTFT <= 500 ms: measured 612 ms."},
		// Newlines, percent signs, and commas and colons in properties are
		// escaped as the Actions toolkit escapes them.
		{"a,b:c.hcl", 1, "", "rose 30%\nline two\r", "::error file=a%2Cb%3Ac.hcl,line=1::rose 30%25%0Aline two%0D"},
		{"", 0, "", "no file", "::error::no file"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, GitHubAnnotation("error", tt.file, tt.line, tt.title, tt.msg)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	}
}

// finishedEmpty is emptyRun run to its end: nothing completed.
func finishedEmpty() *results.Run {
	r := emptyRun()
	r.Interrupted = false
	return r
}

func TestResultVerdict(t *testing.T) {
	for name, tt := range map[string]struct {
		run  *results.Run
		want string
	}{
		"gate":    {gateRun(), results.Fail},
		"invalid": {openLoopRun(), results.VerdictInvalid},
		// Interrupted before anything completed: the run did not finish,
		// which the judge says first.
		"empty, interrupted": {emptyRun(), results.VerdictInterrupted},
		"empty":              {finishedEmpty(), results.VerdictNoResult},
	} {
		if got := result(t, tt.run).Verdict(); got != tt.want {
			t.Errorf("%s: verdict %q, want %q", name, got, tt.want)
		}
	}
}
