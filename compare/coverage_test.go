package compare_test

import (
	"testing"
	"time"

	"github.com/llmload/llmload/compare"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/sim"
)

// queueRun is one run of the simulator's engine in virtual time under
// Poisson arrivals near its capacity: a queue builds and drains, so
// neighbouring requests' latencies are correlated. It is recorded as the
// executor records a run, with windows of span/50.
func queueRun(t testing.TB, rate float64, n int, seed int64) *metrics.Summary {
	p, err := sim.LookupProfile("tiny")
	if err != nil {
		t.Fatal(err)
	}
	reqs := []sim.Work{{PromptTokens: 200, MaxTokens: 20, IgnoreEOS: true}}
	out := sim.SimulateOpenLoop(p, reqs, rate, n, seed)
	var span time.Duration
	for _, r := range out {
		span = max(span, r.End)
	}
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	rec := metrics.NewRecorder(metrics.Options{Base: base})
	ser := metrics.NewSeriesRecorder(base, span/50)
	for i, r := range out {
		req := &metrics.Request{ID: int64(i), Intended: r.Arrival, Dispatched: r.Arrival, Sent: r.Arrival, End: r.End,
			TTFT: r.TTFT, ITL: r.ITL, E2E: r.End - r.Arrival, OutputTokens: r.OutputTokens, OutputEvents: len(r.ITL) + 1,
			OutputTokensSource: metrics.SourceUsage, MaxTokens: r.OutputTokens, IgnoreEOS: true, FinishReason: "length"}
		rec.Add(req)
		ser.Add(req)
	}
	s := rec.SummaryOver(span)
	s.Series = ser.Series()
	return s
}

// unbatched is a run without the windows the batches are cut from, for
// the interval that treats its samples as independent (throughputs keep
// their windows: their independent interval is over windows).
func unbatched(s *metrics.Summary) *metrics.Summary {
	c := *s
	c.Series = &metrics.Series{Interval: s.Series.Interval}
	for _, w := range s.Series.Windows {
		w.TTFT, w.ITL = metrics.Latency{}, metrics.Latency{}
		c.Series.Windows = append(c.Series.Windows, w)
	}
	return &c
}

// TestCoverageUnderQueueing draws pairs of runs of one system (the
// simulator's engine near saturation, where a queue makes consecutive
// latencies correlated) and counts how often each figure's 95% interval
// holds the true delta, 0. Intervals that assume independent samples hold
// it far less often than 95%; widened to the spread over batches of
// consecutive windows, they hold it near 95%.
func TestCoverageUnderQueueing(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates hundreds of runs")
	}
	const trials, n, rate = 80, 2500, 330.0
	figures := []struct{ metric, stat string }{{"ttft", "p50"}, {"ttft", "p90"}, {"ttft", "mean"}, {"itl", "p50"}, {"itl", "p90"}, {"output_throughput", ""}}
	covered := map[string]int{}
	widened := map[string]int{}
	independent := map[string]int{} // the same runs, judged as if independent
	for i := range trials {
		a := queueRun(t, rate, n, int64(2*i+1))
		b := queueRun(t, rate, n, int64(2*i+2))
		for _, f := range figures {
			d := compare.Measure(a, b, f.metric, f.stat, compare.Options{Replicates: 1000})
			key := compare.Key(f.metric, f.stat)
			if d.HasInterval && d.Lower <= 0 && d.Upper >= 0 {
				covered[key]++
			}
			if d.Method == compare.MethodBatches {
				widened[key]++
				if narrow := compare.Measure(unbatched(a), unbatched(b), f.metric, f.stat, compare.Options{Replicates: 1000}); narrow.Lower <= 0 && narrow.Upper >= 0 {
					independent[key]++
				}
			} else if d.HasInterval && d.Lower <= 0 && d.Upper >= 0 {
				independent[key]++
			}
		}
	}
	for _, f := range figures {
		key := compare.Key(f.metric, f.stat)
		t.Logf("%-18s covered %3d of %d (%.0f%%), widened by batches %d; as if independent %d (%.0f%%)", key, covered[key], trials, 100*float64(covered[key])/trials, widened[key],
			independent[key], 100*float64(independent[key])/trials)
		// 95% of 80 is 76; a binomial's 99.9% range reaches down to 70.
		if covered[key] < 70 {
			t.Errorf("%s: the 95%% interval held the true delta in %d of %d pairs of runs", key, covered[key], trials)
		}
		// The queue is what makes the difference: judged as if the
		// latencies were independent, the intervals miss most of the time.
		if f.metric == "ttft" && independent[key] > trials*3/4 {
			t.Errorf("%s: as if independent, the interval held the true delta in %d of %d: the runs made no correlated queue", key, independent[key], trials)
		}
	}
}
