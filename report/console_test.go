package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmload/llmload/metrics"
)

func TestWriteConsoleGolden(t *testing.T) {
	for _, tt := range runs {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteConsole(&buf, result(t, tt.run())); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name+".console.golden", buf.Bytes())
		})
	}
}

// TestVLLMBlock checks the first block against text laid out by hand the
// way vLLM's "{:<40} {:<10}" / "{:<40} {:<10.2f}" formats and centred
// headers lay it out (trailing spaces included).
func TestVLLMBlock(t *testing.T) {
	lat := func(mean, p50, p99 float64) metrics.Latency { return metrics.Latency{Mean: mean, P50: p50, P99: p99} }
	run := &Run{
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
		run     Run
		present []string
		absent  []string
	}{
		{"inf rate, no limit, no goodput", Run{RequestRate: inf()},
			nil, []string{"Maximum request concurrency:", "Request rate configured", "Request goodput"}},
		{"closed loop", Run{RequestRate: 0, MaxConcurrency: 8},
			[]string{"Maximum request concurrency:"}, []string{"Request rate configured"}},
		{"goodput", Run{RequestRate: 2, Goodput: metrics.SLO{E2EL: 1}},
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
