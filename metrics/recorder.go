package metrics

import (
	"maps"
	"time"
)

// Options configure a Recorder.
type Options struct {
	// Goodput is the per-request SLO that makes a request good.
	Goodput SLO
	// Base is the run's time zero: request offsets are relative to it, and
	// the summary's wall-clock times are Base plus an offset.
	Base time.Time
	// Scheduled says the dispatches follow a real schedule (an open loop at
	// a finite rate): only then is a dispatch late, when it left more than
	// LateThreshold after its intended time.
	Scheduled     bool
	LateThreshold time.Duration
}

// Recorder turns request results into a Summary. It has one owner: it is
// not safe for concurrent use (workers send results over a channel to the
// goroutine that owns it).
type Recorder struct {
	opts Options

	completed, truncated, approxOutput            int
	shortOutputs                                  int
	canceled                                      int
	abandoned, abandonedTokens                    int
	errors                                        map[ErrorKind]int
	finish                                        map[string]int
	defects                                       map[string]int
	defective                                     int // completed requests with any defect
	expectedJudged, expectedPassed                int // completed requests judged against an expected answer, and those that met it
	referenced, referenceTokens, referencedOutput int // completed requests with a recorded answer, its tokens and theirs
	inputTokens, serverInputTokens                int
	outputTokens                                  int
	goodRequests, goodOutputTokens                int
	peakConcurrency                               int
	tokenStreams, buffered, coalesced, multiToken int
	otherModel, overMaxTokens                     int
	fingerprints                                  map[string]int
	countsCompared, countMismatches               int

	measured                    int // every measured request, canceled ones too
	firstDisp, lastEnd          time.Duration
	dispatches, late            int
	dispFirst, dispLast         time.Duration
	intendedFirst, intendedLast time.Duration

	ttft, itl, tpot, e2el              *dist
	queue, lag                         *dist
	ttftFromIntended, e2elFromIntended *dist
	userTPS                            *dist
	ttftAnswer, ttftReasoning          *dist
	ttftToolCall                       *dist
	toolCalls, toolCallRequests        int
	toolRounds                         int
	images                             int
	promptBytes                        int64
	itlAnswer, itlReasoning            *dist
	reasoningTokens                    *dist
	ttftFirstTurn, ttftLastTurn        *dist
	turns                              []*turnRecord // by turn index - 1
	sessions                           sessionDists
	newConns, staleRetries             int
	blocked, dns, connect, tls         *dist
	ttfb, ttftServer                   *dist
	engineTTFT, engineQueue            *dist
	enginePrefill, engineTPOT          *dist
	clientOverhead                     *dist
	cachedTokens, cacheReports         int
	cacheReportedPrompt, idealCached   int
	idealUnreported                    int
	draftTokens, acceptedDraftTokens   int
}

// turnRecord is one turn index's data.
type turnRecord struct {
	completed, promptTokens int
	ttft                    *dist
}

// NewRecorder returns an empty recorder.
func NewRecorder(opts Options) *Recorder {
	return &Recorder{
		opts:             opts,
		errors:           map[ErrorKind]int{},
		finish:           map[string]int{},
		defects:          map[string]int{},
		ttft:             newDist(),
		itl:              newDist(),
		tpot:             newDist(),
		e2el:             newDist(),
		queue:            newDist(),
		lag:              newDist(),
		ttftFromIntended: newDist(),
		e2elFromIntended: newDist(),
		userTPS:          newDist(),
		ttftAnswer:       newDist(),
		ttftReasoning:    newDist(),
		ttftToolCall:     newDist(),
		itlAnswer:        newDist(),
		itlReasoning:     newDist(),
		reasoningTokens:  newDist(),
		ttftFirstTurn:    newDist(),
		ttftLastTurn:     newDist(),
		blocked:          newDist(),
		dns:              newDist(),
		connect:          newDist(),
		tls:              newDist(),
		ttfb:             newDist(),
		ttftServer:       newDist(),
		engineTTFT:       newDist(),
		engineQueue:      newDist(),
		enginePrefill:    newDist(),
		engineTPOT:       newDist(),
		clientOverhead:   newDist(),
		sessions:         newSessionDists(),
	}
}

// turn returns turn index n's record, growing the table.
func (r *Recorder) turn(n int) *turnRecord {
	for len(r.turns) < n {
		r.turns = append(r.turns, &turnRecord{ttft: newDist()})
	}
	return r.turns[n-1]
}

// Add records one finished request. Warmup requests are ignored.
//
// Queue and lag are recorded for every measured request, failed or not
// (they describe the client's schedule, not the server), so Intended,
// Dispatched and Sent must always be set: a request canceled before it was
// sent carries Dispatched = Sent = the cancel time. The other latencies,
// token counts and goodput come from successful requests only.
func (r *Recorder) Add(req *Request) {
	if req.Warmup {
		return
	}
	if r.measured == 0 || req.Dispatched < r.firstDisp {
		r.firstDisp = req.Dispatched
	}
	if r.measured == 0 || req.End > r.lastEnd {
		r.lastEnd = req.End
	}
	r.measured++
	if req.Error == ErrCanceled {
		// Cut off by an interruption: it says nothing of the server.
		r.canceled++
		return
	}
	r.queue.add(int64(req.Queue()))
	r.lag.add(int64(req.Lag()))
	if r.dispatches == 0 {
		r.dispFirst, r.dispLast = req.Dispatched, req.Dispatched
		r.intendedFirst, r.intendedLast = req.Intended, req.Intended
	}
	r.dispFirst, r.dispLast = min(r.dispFirst, req.Dispatched), max(r.dispLast, req.Dispatched)
	r.intendedFirst, r.intendedLast = min(r.intendedFirst, req.Intended), max(r.intendedLast, req.Intended)
	r.dispatches++
	if r.opts.Scheduled && req.Lag() > r.opts.LateThreshold {
		r.late++
	}
	if req.Retried {
		r.staleRetries++
	}
	if req.Error == ErrAbandoned {
		r.addAbandoned(req)
		return
	}
	if !req.OK() {
		r.errors[req.Error]++
		return
	}
	r.completed++
	r.finish[FinishKey(req.FinishReason)]++
	if req.ToolCalls > 0 {
		r.toolCalls += req.ToolCalls
		r.toolCallRequests++
	}
	if ds := defects(req); len(ds) > 0 {
		r.defective++
		for _, d := range ds {
			r.defects[d]++
		}
	}
	if req.ExpectedPass != nil {
		r.expectedJudged++
		if *req.ExpectedPass {
			r.expectedPassed++
		}
	}
	if req.ReferenceLen > 0 {
		r.referenced++
		r.referenceTokens += req.ReferenceLen
		r.referencedOutput += req.OutputTokens
	}
	r.inputTokens += req.DatasetPromptTokens
	if req.PromptTokensSource == SourceUsage {
		r.serverInputTokens += req.PromptTokens
	}
	r.outputTokens += req.OutputTokens
	if req.OutputTokensSource == SourceEvents {
		r.approxOutput++
	}
	truncated := req.Truncated()
	if truncated {
		r.truncated++
	}
	if req.TimingExpected() {
		r.tokenStreams++
	}
	if req.Buffered() {
		r.buffered++
	}
	if req.Coalesced() {
		r.coalesced++
	}
	if req.MultiTokenEvents() {
		r.multiToken++
	}
	if f := req.SystemFingerprint; f != "" {
		r.fingerprints = addFingerprint(r.fingerprints, f, 1)
	}
	if req.ServedModel != "" {
		r.otherModel++
	}
	if req.OverMaxTokens() {
		r.overMaxTokens++
	}
	if compared, mismatch := req.TokenCountMismatch(); compared {
		r.countsCompared++
		if mismatch {
			r.countMismatches++
		}
	}
	if req.ShortOutput {
		r.shortOutputs++
	}

	// A non-streamed answer (embeddings) has no first token: its latency
	// is its E2EL alone.
	if req.OutputTokensSource != SourceNone {
		r.addFirstTokens(req)
	}
	if req.ToolRound > 0 {
		r.toolRounds++
	}
	r.images += req.Images
	r.promptBytes += int64(req.PromptBytes)
	if req.Turn > 0 && req.ToolRound == 0 && req.SubAgent == 0 {
		t := r.turn(req.Turn)
		t.completed++
		t.promptTokens += req.PromptTokens
		t.ttft.add(int64(req.TTFT))
		if req.Turn == 1 {
			r.ttftFirstTurn.add(int64(req.TTFT))
		}
		if req.LastTurn {
			r.ttftLastTurn.add(int64(req.TTFT))
		}
	}
	if req.ReasoningEvents > 0 || req.ReasoningTokens > 0 {
		r.reasoningTokens.add(int64(req.ReasoningTokens) * tokenScale)
	}
	r.e2el.add(int64(req.E2E))
	if req.Written > 0 {
		// The request was traced to a connection and written.
		r.blocked.add(int64(req.Blocked))
		if req.NewConn {
			r.newConns++
			r.dns.add(int64(req.DNS))
			r.connect.add(int64(req.Connect))
			if req.TLS > 0 {
				r.tls.add(int64(req.TLS))
			}
		}
		r.ttftServer.add(int64(req.TTFTServerView()))
	}
	if req.TTFB > 0 {
		r.ttfb.add(int64(req.TTFB))
	}
	r.addEngine(req)
	fromIntended := req.Sent - req.Intended
	r.e2elFromIntended.add(int64(fromIntended + req.E2E))
	tpot, hasTPOT := req.TPOT()
	if hasTPOT {
		r.tpot.add(int64(tpot))
		if decode := req.E2E - req.TTFT; decode > 0 {
			tps := float64(req.OutputTokens-1) / decode.Seconds()
			r.userTPS.add(int64(tps*tpsScale + 0.5))
		}
	}

	if !truncated && r.meetsSLO(req, tpot, hasTPOT) {
		r.goodRequests++
		r.goodOutputTokens += req.OutputTokens
	}
}

// addFirstTokens records what a request that streamed output measured up
// to the moment it stopped, whether it completed or was abandoned: TTFT
// (from t0 and from the intended time), the phases' first tokens and
// every gap.
func (r *Recorder) addFirstTokens(req *Request) {
	r.ttft.add(int64(req.TTFT))
	r.ttftFromIntended.add(int64(req.Sent - req.Intended + req.TTFT))
	if req.AnswerEvents > 0 {
		r.ttftAnswer.add(int64(req.TTFTAnswer))
	}
	if req.ToolCallEvents > 0 {
		r.ttftToolCall.add(int64(req.TTFTToolCall))
	}
	if req.ReasoningEvents > 0 {
		r.ttftReasoning.add(int64(req.TTFTReasoning))
	}
	for _, gap := range req.ITL {
		r.itl.add(int64(gap))
	}
	for _, gap := range req.AnswerITL() {
		r.itlAnswer.add(int64(gap))
	}
	for _, gap := range req.ITLReasoning {
		r.itlReasoning.add(int64(gap))
	}
}

// addAbandoned records a request the client closed part-way: its tokens
// so far count in the token totals (and so in throughput: the server did
// that work), its prompt too once it had a first token (the prefill was
// done); its TTFT and gaps count, since they measured real tokens; its
// E2EL, TPOT and user TPS do not (its end was the reader's, not the
// server's), and it is never good for goodput nor a failure.
func (r *Recorder) addAbandoned(req *Request) {
	r.abandoned++
	r.abandonedTokens += req.OutputTokens
	r.outputTokens += req.OutputTokens
	if req.OutputEvents > 0 {
		r.inputTokens += req.DatasetPromptTokens
		if req.PromptTokensSource == SourceUsage {
			r.serverInputTokens += req.PromptTokens
		}
		r.addFirstTokens(req)
	}
}

// meetsSLO reports whether a successful request meets every set field of
// the goodput SLO. A TPOT objective cannot be judged on a request with
// fewer than two tokens, and such a request passes it (as in vLLM, whose
// TPOT for those requests is 0).
func (r *Recorder) meetsSLO(req *Request, tpot time.Duration, hasTPOT bool) bool {
	slo := r.opts.Goodput
	if slo.TTFT > 0 && req.TTFT > slo.TTFT {
		return false
	}
	if slo.E2EL > 0 && req.E2E > slo.E2EL {
		return false
	}
	if slo.TPOT > 0 && hasTPOT && tpot > slo.TPOT {
		return false
	}
	if slo.ITL > 0 {
		for _, gap := range req.ITL {
			if gap > slo.ITL {
				return false
			}
		}
	}
	return true
}

// MaxFingerprints bounds the distinct system fingerprints a summary
// keeps: a server that sends a new one with every answer cannot grow it.
const MaxFingerprints = 8

// addFingerprint counts n answers of fingerprint f in m (made when nil),
// under "other" once MaxFingerprints are kept.
func addFingerprint(m map[string]int, f string, n int) map[string]int {
	if m == nil {
		m = map[string]int{}
	}
	if _, ok := m[f]; !ok && len(m) >= MaxFingerprints {
		f = "other"
	}
	m[f] += n
	return m
}

// addEngine records what the engine reported of a completed request.
func (r *Recorder) addEngine(req *Request) {
	if req.EngineTTFT > 0 {
		r.engineTTFT.add(int64(req.EngineTTFT))
	}
	if req.EngineQueue > 0 {
		r.engineQueue.add(int64(req.EngineQueue))
	}
	if req.EnginePrefill > 0 {
		r.enginePrefill.add(int64(req.EnginePrefill))
	}
	if req.EngineTPOT > 0 {
		r.engineTPOT.add(int64(req.EngineTPOT))
	}
	if d, ok := req.ClientOverhead(); ok {
		r.clientOverhead.add(int64(d))
	}
	if req.CacheReported {
		r.cacheReports++
		r.cachedTokens += req.CachedTokens
		r.cacheReportedPrompt += req.PromptTokens
		r.idealCached += req.IdealCachedTokens
	} else {
		r.idealUnreported += req.IdealCachedTokens
	}
	r.draftTokens += req.DraftTokens
	r.acceptedDraftTokens += req.AcceptedDraftTokens
}

// ObserveConcurrency records the number of requests in flight, for the
// peak-concurrency figure.
func (r *Recorder) ObserveConcurrency(n int) {
	r.peakConcurrency = max(r.peakConcurrency, n)
}

// Summary computes every figure over the measured span, from the first
// dispatch to the last completion.
func (r *Recorder) Summary() *Summary {
	var d time.Duration
	if r.measured > 0 {
		d = r.lastEnd - r.firstDisp
	}
	return r.SummaryOver(d)
}

// SummaryOver computes every figure with throughputs over duration (a
// closed-loop stage's length, say) instead of the measured span.
func (r *Recorder) SummaryOver(duration time.Duration) *Summary {
	at := func(off time.Duration) time.Time {
		if r.opts.Base.IsZero() {
			return time.Time{}
		}
		return r.opts.Base.Add(off).Round(0).UTC()
	}
	s := &Summary{
		Completed:          r.completed,
		Errors:             map[ErrorKind]int{},
		Truncated:          r.truncated,
		ShortOutputs:       r.shortOutputs,
		ToolCalls:          r.toolCalls,
		ToolCallRequests:   r.toolCallRequests,
		ToolRounds:         r.toolRounds,
		Images:             r.images,
		PromptBytes:        r.promptBytes,
		Duration:           duration.Seconds(),
		Canceled:           r.canceled,
		Abandoned:          r.abandoned,
		AbandonedTokens:    r.abandonedTokens,
		TotalInputTokens:   r.inputTokens,
		ServerInputTokens:  r.serverInputTokens,
		TotalOutputTokens:  r.outputTokens,
		ApproxOutputCounts: r.approxOutput,
		GoodRequests:       r.goodRequests,
		GoodOutputTokens:   r.goodOutputTokens,
		PeakConcurrency:    r.peakConcurrency,

		TokenStreams:         r.tokenStreams,
		BufferedStreams:      r.buffered,
		CoalescedStreams:     r.coalesced,
		OtherModel:           r.otherModel,
		Fingerprints:         maps.Clone(r.fingerprints),
		OverMaxTokens:        r.overMaxTokens,
		MultiTokenStreams:    r.multiToken,
		TokenCountsCompared:  r.countsCompared,
		TokenCountMismatches: r.countMismatches,

		TTFT:             r.ttft.latency(),
		ITL:              r.itl.latency(),
		TPOT:             r.tpot.latency(),
		E2EL:             r.e2el.latency(),
		Queue:            r.queue.latency(),
		Lag:              r.lag.latency(),
		TTFTFromIntended: r.ttftFromIntended.latency(),
		E2ELFromIntended: r.e2elFromIntended.latency(),
		UserTPS:          r.userTPS.latency(),
		TTFTAnswer:       r.ttftAnswer.latency(),
		TTFTReasoning:    r.ttftReasoning.latency(),
		TTFTToolCall:     r.ttftToolCall.latency(),
		ITLAnswer:        r.itlAnswer.latency(),
		ITLReasoning:     r.itlReasoning.latency(),
		ReasoningTokens:  r.reasoningTokens.latency(),
		TTFTFirstTurn:    r.ttftFirstTurn.latency(),
		TTFTLastTurn:     r.ttftLastTurn.latency(),
		NewConnections:   r.newConns,
		StaleRetries:     r.staleRetries,
		Blocked:          r.blocked.latency(),
		DNS:              r.dns.latency(),
		Connect:          r.connect.latency(),
		TLS:              r.tls.latency(),
		TTFB:             r.ttfb.latency(),
		TTFTServerView:   r.ttftServer.latency(),
		EngineTTFT:       r.engineTTFT.latency(),
		EngineQueue:      r.engineQueue.latency(),
		EnginePrefill:    r.enginePrefill.latency(),
		EngineTPOT:       r.engineTPOT.latency(),
		ClientOverhead:   r.clientOverhead.latency(),

		CachedTokens:        r.cachedTokens,
		CacheReports:        r.cacheReports,
		CacheReportedPrompt: r.cacheReportedPrompt,
		IdealCachedTokens:   r.idealCached,
		IdealUnreported:     r.idealUnreported,
		DraftTokens:         r.draftTokens,
		AcceptedDraftTokens: r.acceptedDraftTokens,

		Dispatches:     r.dispatches,
		LateDispatches: r.late,
		LateThreshold:  float64(r.opts.LateThreshold) / float64(time.Millisecond),
		Scheduled:      r.opts.Scheduled,
	}
	if r.measured > 0 {
		s.SpanStart, s.SpanEnd = at(r.firstDisp), at(r.lastEnd)
	}
	if r.dispatches > 0 {
		s.FirstDispatch, s.LastDispatch = at(r.dispFirst), at(r.dispLast)
		s.FirstIntended, s.LastIntended = at(r.intendedFirst), at(r.intendedLast)
		s.AchievedRate = spanRate(r.dispatches, r.dispLast-r.dispFirst)
		s.ScheduledRate = spanRate(r.dispatches, r.intendedLast-r.intendedFirst)
	}
	for kind, n := range r.errors {
		s.Errors[kind] = n
		s.Failed += n
	}
	if len(r.finish) > 0 {
		s.Finish = maps.Clone(r.finish)
	}
	if len(r.defects) > 0 {
		s.OutputDefects = maps.Clone(r.defects)
	}
	s.DefectiveOutputs = r.defective
	s.ExpectedJudged, s.ExpectedPassed = r.expectedJudged, r.expectedPassed
	s.ReferencedAnswers, s.ReferenceTokens, s.ReferencedOutputTokens = r.referenced, r.referenceTokens, r.referencedOutput
	for i, t := range r.turns {
		s.Turns = append(s.Turns, TurnSummary{Turn: i + 1, Completed: t.completed, PromptTokens: t.promptTokens, TTFT: t.ttft.latency()})
	}
	r.sessions.fill(s)
	s.fillRates(duration)
	return s
}

// spanRate is n-1 events over span; 0 when there is no span (everything
// at once has no rate to speak of, and JSON has no Inf).
func spanRate(n int, span time.Duration) float64 {
	if n < 2 || span <= 0 {
		return 0
	}
	return float64(n-1) / span.Seconds()
}
