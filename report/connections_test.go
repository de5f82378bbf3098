package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
)

// The connection warning: over ConnShareWarn of TTFT spent getting
// connections, it names the likely cause; under it, none.
func TestConnectionWarning(t *testing.T) {
	lat := func(n int64, p50, sum float64) metrics.Latency {
		return metrics.Latency{Count: n, P50: p50, P99: p50, Sum: sum}
	}
	base := func(f func(s *metrics.Summary)) *metrics.Summary {
		s := &metrics.Summary{Completed: 100, TTFT: lat(100, 200, 20000), TTFTServerView: lat(100, 180, 18000),
			TTFB: lat(100, 5, 500), Blocked: lat(100, 0.01, 1)}
		f(s)
		return s
	}
	tests := []struct {
		name string
		rate float64
		s    *metrics.Summary
		want string // "" for no warning
	}{
		{"keep-alive, little connecting", 10, base(func(s *metrics.Summary) {
			s.NewConnections, s.Connect = 4, lat(4, 0.2, 0.8)
		}), ""},
		{"TLS handshakes", 10, base(func(s *metrics.Summary) {
			s.NewConnections, s.Connect, s.TLS = 100, lat(100, 1, 100), lat(100, 40, 4000)
		}), "mostly TLS handshakes"},
		{"connect storm at rate inf", math.Inf(1), base(func(s *metrics.Summary) {
			s.NewConnections, s.Connect = 100, lat(100, 30, 3000)
		}), `a connect storm: rate = "inf"`},
		{"a connection per request", 10, base(func(s *metrics.Summary) {
			s.NewConnections, s.Connect, s.PeakConcurrency = 100, lat(100, 30, 3000), 4
		}), "a new connection per request (100 of 100, for at most 4 in flight)"},
		{"connections for a rising load", 10, base(func(s *metrics.Summary) {
			s.NewConnections, s.Connect, s.PeakConcurrency = 100, lat(100, 30, 3000), 100
		}), "opening a connection for each new stream as the load rose to 100 in flight"},
		{"waiting for the pool", 10, base(func(s *metrics.Summary) {
			s.NewConnections, s.Blocked = 1, lat(100, 50, 5000)
		}), "requests waiting for a free connection"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &results.Result{Extras: results.Extras{Schedule: results.Schedule{ConfiguredRate: tt.rate}, Summary: tt.s}}
			got := ConnectionWarning(r, tt.s)
			if tt.want == "" {
				if got != "" {
					t.Errorf("warning %q, want none", got)
				}
				return
			}
			if !strings.Contains(got, tt.want) || !strings.Contains(got, "ttft_server_view") {
				t.Errorf("warning %q, want it to name %q and ttft_server_view", got, tt.want)
			}
			var buf bytes.Buffer
			writeConnections(&printer{w: &buf}, r, tt.s)
			if !strings.Contains(buf.String(), "Connections: ") || !strings.Contains(buf.String(), "WARNING: "+got) {
				t.Errorf("console:\n%s\nwant the phases line and the warning", buf.String())
			}
		})
	}
}
