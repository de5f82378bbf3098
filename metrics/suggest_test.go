package metrics_test

import (
	"testing"

	"github.com/llmload/llmload/metrics"
)

// TestSuggest: a mistyped percentile suggests the numerically nearest one
// of the same metric; anything else the nearest name by edit distance.
func TestSuggest(t *testing.T) {
	slaLike := []string{"ttft_mean", "ttft_p50", "ttft_p90", "ttft_p95", "ttft_p99", "ttft_p999", "ttft_max",
		"itl_mean", "itl_p50", "itl_p90", "itl_p95", "itl_p99", "itl_p999", "itl_max", "error_rate", "min_output_throughput"}
	tests := []struct {
		given string
		names []string
		want  string
	}{
		{"ttft_p96", slaLike, "ttft_p95"}, // an edit distance says ttft_p50
		{"ttft_p97", slaLike, "ttft_p95"}, // a tie: the first
		{"ttft_p98", slaLike, "ttft_p99"},
		{"ttft_p42", slaLike, "ttft_p50"},
		{"ttft_p75", slaLike, "ttft_p90"},
		{"ttft_p9999", slaLike, "ttft_p999"}, // 99.99
		{"ttft_p99.9", slaLike, "ttft_p999"},
		{"ttft_p100", slaLike, "ttft_p999"},
		{"itl_p96", slaLike, "itl_p95"}, // the same metric's, not ttft's
		{"p96", metrics.Stats, "p95"},   // a statistic alone
		{"p1", metrics.Stats, "p50"},
		{"ttft_p96", []string{"ttft_p50", "itl_p95"}, "ttft_p50"}, // only the same metric's percentiles
		{"tft_p99", slaLike, "ttft_p99"},                          // another base: by edit distance
		{"eror_rate", slaLike, "error_rate"},
		{"ttft_p96", []string{"itl_p95", "error_rate"}, ""}, // nothing near
		{"nonsense", slaLike, ""},
		{"ttft_mena", slaLike, "ttft_mean"},
	}
	for _, tt := range tests {
		if got := metrics.Suggest(tt.given, tt.names); got != tt.want {
			t.Errorf("Suggest(%q) = %q, want %q", tt.given, got, tt.want)
		}
	}
}
