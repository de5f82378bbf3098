package metrics

import (
	"time"
)

// Options configure a Recorder.
type Options struct {
	// Goodput is the per-request SLO that makes a request good.
	Goodput SLO
}

// Recorder turns request results into a Summary. It has one owner: it is
// not safe for concurrent use (workers send results over a channel to the
// goroutine that owns it).
type Recorder struct {
	opts Options

	completed, truncated, approxOutput int
	canceled                           int
	errors                             map[ErrorKind]int
	inputTokens, serverInputTokens     int
	outputTokens                       int
	goodRequests, goodOutputTokens     int
	peakConcurrency                    int

	ttft, itl, tpot, e2el              *dist
	queue, lag                         *dist
	ttftFromIntended, e2elFromIntended *dist
	userTPS                            *dist
}

// NewRecorder returns an empty recorder.
func NewRecorder(opts Options) *Recorder {
	return &Recorder{
		opts:             opts,
		errors:           map[ErrorKind]int{},
		ttft:             newDist(),
		itl:              newDist(),
		tpot:             newDist(),
		e2el:             newDist(),
		queue:            newDist(),
		lag:              newDist(),
		ttftFromIntended: newDist(),
		e2elFromIntended: newDist(),
		userTPS:          newDist(),
	}
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
	if req.Error == ErrCanceled {
		// Cut off by an interruption: it says nothing of the server.
		r.canceled++
		return
	}
	r.queue.add(int64(req.Queue()))
	r.lag.add(int64(req.Lag()))
	if !req.OK() {
		r.errors[req.Error]++
		return
	}
	r.completed++
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

	r.ttft.add(int64(req.TTFT))
	r.e2el.add(int64(req.E2E))
	for _, gap := range req.ITL {
		r.itl.add(int64(gap))
	}
	fromIntended := req.Sent - req.Intended
	r.ttftFromIntended.add(int64(fromIntended + req.TTFT))
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

// ObserveConcurrency records the number of requests in flight, for the
// peak-concurrency figure.
func (r *Recorder) ObserveConcurrency(n int) {
	r.peakConcurrency = max(r.peakConcurrency, n)
}

// Summary computes every figure. duration is the measured span (first
// dispatch to last completion) that throughputs divide by.
func (r *Recorder) Summary(duration time.Duration) *Summary {
	s := &Summary{
		Completed:          r.completed,
		Errors:             map[ErrorKind]int{},
		Truncated:          r.truncated,
		Duration:           duration.Seconds(),
		Canceled:           r.canceled,
		TotalInputTokens:   r.inputTokens,
		ServerInputTokens:  r.serverInputTokens,
		TotalOutputTokens:  r.outputTokens,
		ApproxOutputCounts: r.approxOutput,
		GoodRequests:       r.goodRequests,
		GoodOutputTokens:   r.goodOutputTokens,
		PeakConcurrency:    r.peakConcurrency,

		TTFT:             r.ttft.latency(),
		ITL:              r.itl.latency(),
		TPOT:             r.tpot.latency(),
		E2EL:             r.e2el.latency(),
		Queue:            r.queue.latency(),
		Lag:              r.lag.latency(),
		TTFTFromIntended: r.ttftFromIntended.latency(),
		E2ELFromIntended: r.e2elFromIntended.latency(),
		UserTPS:          r.userTPS.latency(),
	}
	for kind, n := range r.errors {
		s.Errors[kind] = n
		s.Failed += n
	}
	if secs := duration.Seconds(); secs > 0 {
		s.RequestThroughput = float64(r.completed) / secs
		s.OutputThroughput = float64(r.outputTokens) / secs
		s.TotalTokenThroughput = float64(r.inputTokens+r.outputTokens) / secs
		s.RequestGoodput = float64(r.goodRequests) / secs
		s.TokenGoodput = float64(r.goodOutputTokens) / secs
	}
	return s
}

// Merge adds another recorder's data (same Options) into r, exactly: the
// result is what r would hold had it recorded o's requests too. The peak
// concurrency is the larger of the two peaks.
func (r *Recorder) Merge(o *Recorder) {
	r.completed += o.completed
	r.truncated += o.truncated
	r.approxOutput += o.approxOutput
	for kind, n := range o.errors {
		r.errors[kind] += n
	}
	r.inputTokens += o.inputTokens
	r.serverInputTokens += o.serverInputTokens
	r.canceled += o.canceled
	r.outputTokens += o.outputTokens
	r.goodRequests += o.goodRequests
	r.goodOutputTokens += o.goodOutputTokens
	r.peakConcurrency = max(r.peakConcurrency, o.peakConcurrency)

	r.ttft.merge(o.ttft)
	r.itl.merge(o.itl)
	r.tpot.merge(o.tpot)
	r.e2el.merge(o.e2el)
	r.queue.merge(o.queue)
	r.lag.merge(o.lag)
	r.ttftFromIntended.merge(o.ttftFromIntended)
	r.e2elFromIntended.merge(o.e2elFromIntended)
	r.userTPS.merge(o.userTPS)
}
