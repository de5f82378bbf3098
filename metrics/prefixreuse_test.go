package metrics

import (
	"math"
	"testing"
)

// TestPrefixReuseSources: the answers' cached_tokens first; when no answer
// reported any, the server's cached prompt tokens, else its prefix-cache
// hits, over the ideal of the requests that did not report.
func TestPrefixReuseSources(t *testing.T) {
	f := func(v float64) ServerFigure { return ServerFigure{Delta: &v} }
	for _, tc := range []struct {
		name   string
		s      Summary
		want   float64
		source string
	}{
		{"answers", Summary{CacheReports: 3, CachedTokens: 48, IdealCachedTokens: 64, IdealUnreported: 10,
			Server: &ServerMetrics{Figures: map[string]ServerFigure{"prompt_tokens_cached": f(1)}}}, 0.75, "answers"},
		{"server cached tokens", Summary{IdealUnreported: 100,
			Server: &ServerMetrics{Figures: map[string]ServerFigure{"prompt_tokens_cached": f(80), "prefix_cache_hits": f(50)}}}, 0.8, "prompt_tokens_cached"},
		{"server hits", Summary{IdealUnreported: 100,
			Server: &ServerMetrics{Figures: map[string]ServerFigure{"prefix_cache_hits": f(50)}}}, 0.5, "prefix_cache_hits"},
		{"no counter", Summary{IdealUnreported: 100, Server: &ServerMetrics{}}, math.NaN(), ""},
		{"no scrape", Summary{IdealUnreported: 100}, math.NaN(), ""},
		{"nothing shared", Summary{CacheReports: 3, CachedTokens: 48}, math.NaN(), ""},
	} {
		got := tc.s.PrefixReuse()
		if got != tc.want && !(math.IsNaN(got) && math.IsNaN(tc.want)) || tc.s.PrefixReuseSource() != tc.source {
			t.Errorf("%s: prefix_reuse %v from %q, want %v from %q", tc.name, got, tc.s.PrefixReuseSource(), tc.want, tc.source)
		}
	}
}
