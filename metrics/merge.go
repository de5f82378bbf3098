package metrics

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

// MergeSummaries combines the whole-run summaries of several runs or
// shards of one scenario into the summary of all their requests: counters
// add up, histograms merge exactly (so percentiles equal those of one
// recorder fed every request), the measured span is the union of the
// parts' wall-clock spans, and throughputs and rates are recomputed over
// it. Time series merge window by window on wall-clock time; the peak
// output throughput and, for more than one part, the peak concurrency come
// from the merged series (the most requests in flight in one window,
// summed over the parts).
func MergeSummaries(parts ...*Summary) (*Summary, error) {
	s, err := merge(parts)
	if err != nil {
		return nil, err
	}
	var d time.Duration
	if !s.SpanStart.IsZero() {
		d = s.SpanEnd.Sub(s.SpanStart)
	}
	s.Duration = d.Seconds()
	s.fillRates(d)
	return s, nil
}

// MergeStageSummaries combines one closed-loop stage's summaries from
// several parts; throughputs divide by duration, the stage's length.
func MergeStageSummaries(duration time.Duration, parts ...*Summary) (*Summary, error) {
	s, err := merge(parts)
	if err != nil {
		return nil, err
	}
	s.Duration = duration.Seconds()
	s.fillRates(duration)
	return s, nil
}

func merge(parts []*Summary) (*Summary, error) {
	s := &Summary{Errors: map[ErrorKind]int{}}
	first := true
	var series []*Series
	var servers []*ServerMetrics
	for _, p := range parts {
		if p == nil {
			continue
		}
		if first {
			s.LateThreshold, s.Scheduled = p.LateThreshold, p.Scheduled
		} else if p.LateThreshold != s.LateThreshold || p.Scheduled != s.Scheduled {
			return nil, fmt.Errorf("summaries with different schedules (late threshold %g ms vs %g ms) cannot be merged", s.LateThreshold, p.LateThreshold)
		}
		s.Completed += p.Completed
		s.Failed += p.Failed
		for k, n := range p.Errors {
			s.Errors[k] += n
		}
		s.Finish = addCounts(s.Finish, p.Finish)
		s.OutputDefects = addCounts(s.OutputDefects, p.OutputDefects)
		s.DefectiveOutputs += p.DefectiveOutputs
		s.ExpectedJudged += p.ExpectedJudged
		s.ExpectedPassed += p.ExpectedPassed
		s.ReferencedAnswers += p.ReferencedAnswers
		s.ReferenceTokens += p.ReferenceTokens
		s.ReferencedOutputTokens += p.ReferencedOutputTokens
		if p.Agreement != nil {
			if s.Agreement == nil {
				s.Agreement = &Agreement{Against: p.Agreement.Against}
			}
			s.Agreement.Add(p.Agreement)
		}
		// In order, "other" last: the same parts always merge alike.
		for _, f := range slices.Sorted(maps.Keys(p.Fingerprints)) {
			if f != "other" {
				s.Fingerprints = addFingerprint(s.Fingerprints, f, p.Fingerprints[f])
			}
		}
		if n := p.Fingerprints["other"]; n > 0 {
			s.Fingerprints = addFingerprint(s.Fingerprints, "other", n)
		}
		s.Canceled += p.Canceled
		s.Abandoned += p.Abandoned
		s.AbandonedTokens += p.AbandonedTokens
		s.Truncated += p.Truncated
		s.ShortOutputs += p.ShortOutputs
		s.ToolCalls += p.ToolCalls
		s.ToolCallRequests += p.ToolCallRequests
		s.ToolRounds += p.ToolRounds
		s.Images += p.Images
		s.PromptBytes += p.PromptBytes
		s.TotalInputTokens += p.TotalInputTokens
		s.ServerInputTokens += p.ServerInputTokens
		s.TotalOutputTokens += p.TotalOutputTokens
		s.ApproxOutputCounts += p.ApproxOutputCounts
		s.GoodRequests += p.GoodRequests
		s.GoodOutputTokens += p.GoodOutputTokens
		s.PeakConcurrency = max(s.PeakConcurrency, p.PeakConcurrency)
		s.NewConnections += p.NewConnections
		s.StaleRetries += p.StaleRetries
		s.TokenStreams += p.TokenStreams
		s.BufferedStreams += p.BufferedStreams
		s.CoalescedStreams += p.CoalescedStreams
		s.CachedTokens += p.CachedTokens
		s.CacheReports += p.CacheReports
		s.CacheReportedPrompt += p.CacheReportedPrompt
		s.IdealCachedTokens += p.IdealCachedTokens
		s.IdealUnreported += p.IdealUnreported
		s.DraftTokens += p.DraftTokens
		s.AcceptedDraftTokens += p.AcceptedDraftTokens
		s.OtherModel += p.OtherModel
		s.OverMaxTokens += p.OverMaxTokens
		s.MultiTokenStreams += p.MultiTokenStreams
		s.TokenCountsCompared += p.TokenCountsCompared
		s.TokenCountMismatches += p.TokenCountMismatches
		s.Sessions += p.Sessions
		s.SessionsComplete += p.SessionsComplete
		// Each part's client ran on its own: the busiest one is the
		// figure that can invalidate the whole.
		s.ClientCPU = max(s.ClientCPU, p.ClientCPU)
		s.PeakOutputThroughput = max(s.PeakOutputThroughput, p.PeakOutputThroughput)
		s.LateDispatches += p.LateDispatches
		s.SpanStart, s.SpanEnd = unionSpan(s.SpanStart, s.SpanEnd, p.SpanStart, p.SpanEnd)
		if p.Dispatches > 0 {
			s.FirstDispatch, s.LastDispatch = unionSpan(s.FirstDispatch, s.LastDispatch, p.FirstDispatch, p.LastDispatch)
			s.FirstIntended, s.LastIntended = unionSpan(s.FirstIntended, s.LastIntended, p.FirstIntended, p.LastIntended)
			s.Dispatches += p.Dispatches
		}
		for _, m := range Catalogue {
			if m.Kind != Distribution {
				continue
			}
			merged, err := MergeLatency(*m.Dist(s), *m.Dist(p))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", m.Name, err)
			}
			*m.Dist(s) = merged
		}
		turns, err := mergeTurns(s.Turns, p.Turns)
		if err != nil {
			return nil, err
		}
		s.Turns = turns
		if p.Series != nil {
			series = append(series, p.Series)
		}
		if p.Server != nil {
			servers = append(servers, p.Server)
		}
		first = false
	}
	if len(series) > 0 {
		merged, err := MergeSeries(series...)
		if err != nil {
			return nil, err
		}
		s.Series = merged
		s.PeakOutputThroughput = merged.PeakOutput()
		if len(series) > 1 {
			s.PeakConcurrency = max(merged.PeakInFlight(), s.PeakConcurrency)
		}
	}
	s.Server = MergeServer(servers...)
	if s.Dispatches > 0 {
		s.AchievedRate = spanRate(s.Dispatches, s.LastDispatch.Sub(s.FirstDispatch))
		s.ScheduledRate = spanRate(s.Dispatches, s.LastIntended.Sub(s.FirstIntended))
	}
	return s, nil
}

// mergeTurns merges two per-turn tables turn by turn.
func mergeTurns(a, b []TurnSummary) ([]TurnSummary, error) {
	out := append([]TurnSummary(nil), a...)
	for _, t := range b {
		for len(out) < t.Turn {
			out = append(out, TurnSummary{Turn: len(out) + 1})
		}
		m := &out[t.Turn-1]
		ttft, err := MergeLatency(m.TTFT, t.TTFT)
		if err != nil {
			return nil, fmt.Errorf("turn %d: %w", t.Turn, err)
		}
		m.Completed += t.Completed
		m.PromptTokens += t.PromptTokens
		m.TTFT = ttft
	}
	return out, nil
}

// unionSpan is the smallest span holding both [a0, a1] and [b0, b1]; a zero
// start means an empty span.
func unionSpan(a0, a1, b0, b1 time.Time) (time.Time, time.Time) {
	switch {
	case b0.IsZero():
		return a0, a1
	case a0.IsZero():
		return b0, b1
	}
	if b0.Before(a0) {
		a0 = b0
	}
	if b1.After(a1) {
		a1 = b1
	}
	return a0, a1
}

// fillRates sets the throughputs over d.
func (s *Summary) fillRates(d time.Duration) {
	s.RequestThroughput, s.OutputThroughput, s.TotalTokenThroughput = 0, 0, 0
	s.RequestGoodput, s.TokenGoodput = 0, 0
	secs := d.Seconds()
	if secs <= 0 {
		return
	}
	s.RequestThroughput = float64(s.Completed) / secs
	s.OutputThroughput = float64(s.TotalOutputTokens) / secs
	s.TotalTokenThroughput = float64(s.TotalInputTokens+s.TotalOutputTokens) / secs
	s.RequestGoodput = float64(s.GoodRequests) / secs
	s.TokenGoodput = float64(s.GoodOutputTokens) / secs
}

// PoolSummaries combines the summaries of parts that ran one after another
// (a scenario's repeats, or one arm's blocks of an interleaved A/B run)
// into the summary of all their requests. Counters add up and histograms
// merge exactly, as MergeSummaries does; but the parts' wall-clock spans
// are disjoint, with pauses (a cooldown, the other arm's blocks) between
// them, so their union would count the pauses as load. Instead the
// duration is the sum of the parts' durations, and throughputs, goodput,
// the achieved and the scheduled rate are computed over the sum of the
// parts' own spans. The time series keeps the windows that lie within
// some part's own series (the windows between parts are dropped), so that
// per-window rates describe the load, not the pauses; SpanStart and
// SpanEnd remain the union, for reference.
func PoolSummaries(parts ...*Summary) (*Summary, error) {
	s, err := merge(parts)
	if err != nil {
		return nil, err
	}
	var d, dispatch, intended time.Duration
	dispatched := 0
	for _, p := range parts {
		if p == nil {
			continue
		}
		d += time.Duration(p.Duration * float64(time.Second))
		if p.Dispatches > 0 {
			dispatch += p.LastDispatch.Sub(p.FirstDispatch)
			intended += p.LastIntended.Sub(p.FirstIntended)
			dispatched += p.Dispatches - 1
		}
	}
	s.Duration = d.Seconds()
	s.fillRates(d)
	s.AchievedRate, s.ScheduledRate = 0, 0
	if dispatched > 0 && dispatch > 0 {
		s.AchievedRate = float64(dispatched) / dispatch.Seconds()
	}
	if dispatched > 0 && intended > 0 {
		s.ScheduledRate = float64(dispatched) / intended.Seconds()
	}
	if s.Series != nil {
		iv := s.Series.Interval.Duration()
		inPart := func(w Window) bool {
			for _, p := range parts {
				if p != nil && p.Series != nil && len(p.Series.Windows) > 0 &&
					!w.Start.Before(p.Series.Windows[0].Start) && w.Start.Before(p.Series.Windows[len(p.Series.Windows)-1].Start.Add(iv)) {
					return true
				}
			}
			return false
		}
		busy := s.Series.Windows[:0:0]
		for _, w := range s.Series.Windows {
			if inPart(w) {
				busy = append(busy, w)
			}
		}
		s.Series = &Series{Interval: s.Series.Interval, Windows: busy}
		s.PeakOutputThroughput = s.Series.PeakOutput()
	}
	return s, nil
}

// addCounts adds counts b to a (made when b has any).
func addCounts(a, b map[string]int) map[string]int {
	for k, n := range b {
		if a == nil {
			a = map[string]int{}
		}
		a[k] += n
	}
	return a
}
