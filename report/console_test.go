package report

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/results/resultstest"
)

var errShort = errors.New("short write")

func inf() float64 { return math.Inf(1) }

func TestWriteConsoleGolden(t *testing.T) {
	for _, tt := range runs {
		t.Run(tt.Name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteConsole(&buf, result(t, tt.Run())); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.Name+".console.golden", buf.Bytes())
		})
	}
}

// TestVLLMBlock checks the first block against text laid out by hand the
// way vLLM's "{:<40} {:<10}" / "{:<40} {:<10.2f}" formats and centred
// headers lay it out (trailing spaces included).
func TestVLLMBlock(t *testing.T) {
	lat := func(mean, p50, p99 float64) metrics.Latency { return metrics.Latency{Mean: mean, P50: p50, P99: p99} }
	run := &results.Run{
		MaxConcurrency: 32, RequestRate: 4, Scenario: "x",
		Goodput: metrics.SLO{TTFT: 1},
		Overall: &metrics.Summary{
			Completed: 32, Failed: 1, Duration: 150.8749,
			TotalInputTokens: 65536, TotalOutputTokens: 65536,
			RequestThroughput: 0.2121, RequestGoodput: 0.125, OutputThroughput: 434.4049, TotalTokenThroughput: 868.8,
			PeakConcurrency: 32, PeakOutputThroughput: 511,
			TTFT: lat(7279.554, 7099.88, 10999.46),
			TPOT: lat(70.14, 70.23, 72.63),
			ITL:  lat(70.14, 68.15, 72.47),
			E2EL: lat(12345.678, 12000, 15000.001),
		},
	}
	want := strings.Join([]string{
		"============ Serving Benchmark Result ============",
		"Successful requests:                     32        ",
		"Failed requests:                         1         ",
		"Maximum request concurrency:             32        ",
		"Request rate configured (RPS):           4.00      ",
		"Benchmark duration (s):                  150.87    ",
		"Total input tokens:                      65536     ",
		"Total generated tokens:                  65536     ",
		"Request throughput (req/s):              0.21      ",
		"Request goodput (req/s):                 0.12      ",
		"Output token throughput (tok/s):         434.40    ",
		"Peak output token throughput (tok/s):    511.00    ",
		"Peak concurrent requests:                32.00     ",
		"Total token throughput (tok/s):          868.80    ",
		"---------------Time to First Token----------------",
		"Mean TTFT (ms):                          7279.55   ",
		"Median TTFT (ms):                        7099.88   ",
		"P99 TTFT (ms):                           10999.46  ",
		"-----Time per Output Token (excl. 1st token)------",
		"Mean TPOT (ms):                          70.14     ",
		"Median TPOT (ms):                        70.23     ",
		"P99 TPOT (ms):                           72.63     ",
		"---------------Inter-token Latency----------------",
		"Mean ITL (ms):                           70.14     ",
		"Median ITL (ms):                         68.15     ",
		"P99 ITL (ms):                            72.47     ",
		"----------------End-to-end Latency----------------",
		"Mean E2EL (ms):                          12345.68  ",
		"Median E2EL (ms):                        12000.00  ",
		"P99 E2EL (ms):                           15000.00  ",
		"==================================================",
		"",
	}, "\n")
	var buf bytes.Buffer
	writeVLLMBlock(&printer{w: &buf}, result(t, run), run.Overall)
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("vLLM block mismatch (-want +got):\n%s", diff)
	}
}

func TestVLLMBlockOptionalLines(t *testing.T) {
	tests := []struct {
		name    string
		run     results.Run
		present []string
		absent  []string
	}{
		{"inf rate, no limit, no goodput", results.Run{RequestRate: inf()},
			nil, []string{"Maximum request concurrency:", "Request rate configured", "Request goodput"}},
		{"closed loop", results.Run{RequestRate: 0, MaxConcurrency: 8},
			[]string{"Maximum request concurrency:"}, []string{"Request rate configured"}},
		{"goodput", results.Run{RequestRate: 2, Goodput: metrics.SLO{E2EL: 1}},
			[]string{"Request rate configured (RPS):           2.00", "Request goodput (req/s):"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteConsole(&buf, result(t, &tt.run)); err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.present {
				if !strings.Contains(buf.String(), s) {
					t.Errorf("output lacks %q", s)
				}
			}
			for _, s := range tt.absent {
				if strings.Contains(buf.String(), s) {
					t.Errorf("output has %q", s)
				}
			}
		})
	}
}

func TestCenter(t *testing.T) {
	// Python: "{s:{c}^{n}}".format(s="abc", n=50, c="-") puts the odd
	// padding character on the right.
	var buf bytes.Buffer
	(&printer{w: &buf}).center("abc", "-")
	want := strings.Repeat("-", 23) + "abc" + strings.Repeat("-", 24) + "\n"
	if buf.String() != want {
		t.Errorf("center = %q, want %q", buf.String(), want)
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errShort
	}
	f.n--
	return len(p), nil
}

func TestWriteConsoleReportsWriteErrors(t *testing.T) {
	if err := WriteConsole(&failWriter{n: 3}, result(t, openLoopRun())); err != errShort {
		t.Errorf("WriteConsole error = %v, want %v", err, errShort)
	}
}

// TestSavedResultRendersAsLive: a result written and read back renders as
// the live one did.
func TestSavedResultRendersAsLive(t *testing.T) {
	for _, tt := range runs {
		t.Run(tt.Name, func(t *testing.T) {
			live := result(t, tt.Run())
			path, err := results.WriteResult(t.TempDir(), live)
			if err != nil {
				t.Fatal(err)
			}
			saved, err := results.ReadResult(path)
			if err != nil {
				t.Fatal(err)
			}
			var a, b bytes.Buffer
			if err := WriteConsole(&a, live); err != nil {
				t.Fatal(err)
			}
			if err := WriteConsole(&b, saved); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(a.String(), b.String()); diff != "" {
				t.Errorf("the saved result renders differently (-live +saved):\n%s", diff)
			}
		})
	}
}

// TestConsoleAPIKeyNeverWritten: a resolved scenario that holds the API key
// in a json:"-" field does not leak it into the console report.
func TestConsoleAPIKeyNeverWritten(t *testing.T) {
	run := openLoopRun()
	if run.Config.(resultstest.SecretConfig).Target.APIKey != resultstest.Secret {
		t.Fatal("fixture lost its secret")
	}
	var console bytes.Buffer
	if err := WriteConsole(&console, result(t, run)); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(console.Bytes(), []byte(resultstest.Secret)) {
		t.Error("the console report contains the API key")
	}
}

// TestWriteConsoleMergedShards: a merge of shards shows the per-shard table
// and names the shards it lacks.
func TestWriteConsoleMergedShards(t *testing.T) {
	s := func(i, n int) *results.Result { return resultstest.Shard(t, "r", i, n) }
	for _, tt := range []struct {
		name    string
		parts   []*results.Result
		missing bool
	}{
		{"all shards", []*results.Result{s(0, 3), s(2, 3), s(1, 3)}, false},
		{"one missing", []*results.Result{s(0, 3), s(2, 3)}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := results.MergeResults(tt.parts)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := WriteConsole(&buf, m); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(buf.String(), "shard 2/3") || tt.missing != strings.Contains(buf.String(), "MISSING: shard 1 of 3") {
				t.Errorf("console lacks the per-shard table or the missing shard:\n%s", buf.String())
			}
		})
	}
}
