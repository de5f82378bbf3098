package report

import (
	"fmt"
	"math"

	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
)

// ConnShareWarn is the share of TTFT spent getting connections (blocked,
// DNS, connect, TLS) above which the console warns: the TTFT figures then
// measure the client's connections as much as the server.
const ConnShareWarn = 0.10

// writeConnections prints the connection phases next to TTFT, and a
// warning naming the likely cause when getting connections took a large
// share of TTFT.
func writeConnections(p *printer, r *results.Result, s *metrics.Summary) {
	if s.Blocked.Count == 0 {
		return // no traced request (a result from before the phases)
	}
	pair := func(l metrics.Latency) string {
		if l.Count == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f/%.2f", l.P50, l.P99)
	}
	p.printf("Connections: %d new for %s; p50/p99 ms: blocked %s, connect %s", s.NewConnections, count(s.Completed, "request", "requests"), pair(s.Blocked), pair(s.Connect))
	if s.TLS.Count > 0 {
		p.printf(", tls %s", pair(s.TLS))
	}
	if s.DNS.Count > 0 && s.DNS.Max > 0 {
		p.printf(", dns %s", pair(s.DNS))
	}
	p.printf(", ttfb %s, TTFT from written %s (TTFT %s)\n", pair(s.TTFB), pair(s.TTFTServerView), pair(s.TTFT))
	if w := ConnectionWarning(r, s); w != "" {
		p.printf("WARNING: %s\n", w)
	}
}

// ConnectionWarning says, when getting connections took more than
// ConnShareWarn of the requests' TTFT, how much and the likely cause
// ("" otherwise). It reads only the summary and the schedule, so a saved
// result warns as the live run did.
func ConnectionWarning(r *results.Result, s *metrics.Summary) string {
	share := s.ConnShare()
	if share <= ConnShareWarn || s.Completed == 0 {
		return ""
	}
	conn := s.Blocked.Sum + s.DNS.Sum + s.Connect.Sum + s.TLS.Sum
	newFrac := float64(s.NewConnections) / float64(s.Completed)
	var cause string
	switch {
	case s.TLS.Sum >= conn/2:
		cause = fmt.Sprintf("mostly TLS handshakes (p50 %.2f ms) on %d new connections", s.TLS.P50, s.NewConnections)
	case math.IsInf(r.Schedule.ConfiguredRate, 1) && newFrac >= 0.5:
		cause = fmt.Sprintf("a connect storm: rate = \"inf\" sends every request at once and %d of them opened a connection together", s.NewConnections)
	case newFrac >= 0.9 && float64(s.NewConnections) > 1.5*float64(s.PeakConcurrency):
		cause = fmt.Sprintf("a new connection per request (%d of %d, for at most %d in flight): new_connection_per_request = true, or a server or proxy closing connections", s.NewConnections, s.Completed, s.PeakConcurrency)
	case s.Blocked.Sum >= conn/2:
		cause = "requests waiting for a free connection: more requests in flight than connections, or dials queued behind others"
	case newFrac >= 0.5:
		cause = fmt.Sprintf("opening a connection for each new stream as the load rose to %d in flight (%d new connections, connect p99 %.2f ms)", s.PeakConcurrency, s.NewConnections, s.Connect.P99)
	default:
		cause = fmt.Sprintf("%d new connections (connect p99 %.2f ms)", s.NewConnections, s.Connect.P99)
	}
	fix := "prewarm_connections = N opens N connections before the measured phase"
	if newFrac >= 0.9 && float64(s.NewConnections) > 1.5*float64(s.PeakConcurrency) && !math.IsInf(r.Schedule.ConfiguredRate, 1) {
		fix = "keep-alive (the default) reuses connections"
	}
	return fmt.Sprintf("getting connections took %.0f%% of TTFT (blocked + dns + connect + tls over every request; TTFT p50 %.2f ms, from the written request p50 %.2f ms): %s. To leave them out: %s; metrics.ttft_server_view is TTFT from the written request.",
		100*share, s.TTFT.P50, s.TTFTServerView.P50, cause, fix)
}
