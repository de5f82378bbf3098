package sim

import (
	"math"
	"math/rand"
	"slices"
	"time"

	"github.com/llmload/llmload/internal/openaiwire"
)

// Work is one request for SimulateClosedLoop.
type Work struct {
	PromptTokens int  // prompt length (tokens)
	MaxTokens    int  // max_tokens; <= 0 means up to max_model_len
	IgnoreEOS    bool // generate exactly MaxTokens
}

// ClosedLoopResult is what SimulateClosedLoop measured, in virtual time.
type ClosedLoopResult struct {
	Users           int           // concurrent closed-loop users
	Completed       int           // requests completed (the latency samples)
	Duration        time.Duration // virtual time until the last one completed
	OutputTokens    int           // tokens produced in Duration, in-flight requests included
	OutputTokPerSec float64       // OutputTokens / Duration
	RequestsPerSec  float64       // Completed / Duration
	TTFTP50         time.Duration // arrival to first token
	TTFTP99         time.Duration
	ITLP50          time.Duration // gap between consecutive token events of a request
	ITLP99          time.Duration
	E2EP50          time.Duration // arrival to last token
	E2EP99          time.Duration
	MeanBatch       float64 // time-weighted mean of sequences producing tokens per step
	Steps           int     // engine steps
	Preemptions     int64   // sequences preempted for lack of KV cache
}

// SimulateClosedLoop runs the engine in virtual time (no sleeping) with
// `users` closed-loop users without think time: each sends a request, waits
// for its last token and sends the next at once. Request i's work is drawn
// from reqs with a generator seeded by seed (which also draws the natural
// lengths of requests without IgnoreEOS). It stops when `total` requests
// have completed and reports throughput and latency percentiles.
func SimulateClosedLoop(p Profile, reqs []Work, users int, total int, seed int64) ClosedLoopResult {
	res := ClosedLoopResult{Users: users}
	if len(reqs) == 0 || users <= 0 || total <= 0 {
		return res
	}
	rng := rand.New(rand.NewSource(seed))
	e := newEngine(p)
	var now time.Duration
	submit := func() {
		w := reqs[rng.Intn(len(reqs))]
		prompt := min(max(w.PromptTokens, 1), p.MaxModelLen-1)
		maxTokens := p.MaxModelLen - prompt
		if w.MaxTokens > 0 {
			maxTokens = min(w.MaxTokens, maxTokens)
		}
		n, _ := outputLength(p, maxTokens, w.IgnoreEOS, rng)
		e.add(&seq{prompt: prompt, target: n, arrival: now})
	}
	for range users {
		submit()
	}
	var ttft, itl, e2e []time.Duration
	var batchTime float64
	for res.Completed < total {
		d, out := e.step()
		e.takeAdmitted() // no HTTP answer to time
		if d == 0 {
			break // cannot happen with users > 0; guards against a bad profile
		}
		now += d
		res.Steps++
		batchTime += float64(len(out)) * float64(d)
		for _, o := range out {
			res.OutputTokens += o.n
			if o.first {
				ttft = append(ttft, now-o.s.arrival)
			} else {
				itl = append(itl, now-o.s.last)
			}
			o.s.last = now
			if o.done {
				res.Completed++
				e2e = append(e2e, now-o.s.arrival)
				submit()
			}
		}
	}
	res.Duration = now
	res.Preemptions = e.preemptions
	if now > 0 {
		res.OutputTokPerSec = float64(res.OutputTokens) / now.Seconds()
		res.RequestsPerSec = float64(res.Completed) / now.Seconds()
		res.MeanBatch = batchTime / float64(now)
	}
	res.TTFTP50, res.TTFTP99 = percentile(ttft, 50), percentile(ttft, 99)
	res.ITLP50, res.ITLP99 = percentile(itl, 50), percentile(itl, 99)
	res.E2EP50, res.E2EP99 = percentile(e2e, 50), percentile(e2e, 99)
	return res
}

// outputLength is how many tokens a request produces and why it stops: with
// ignore_eos exactly maxTokens ("length"); otherwise a natural length drawn
// from an exponential distribution with mean EOSMeanTokens, "stop" when it
// comes before maxTokens.
func outputLength(p Profile, maxTokens int, ignoreEOS bool, rng *rand.Rand) (int, string) {
	if ignoreEOS {
		return maxTokens, openaiwire.FinishLength
	}
	natural := 1 + int(rng.ExpFloat64()*float64(p.EOSMeanTokens-1))
	if natural < maxTokens {
		return natural, openaiwire.FinishStop
	}
	return maxTokens, openaiwire.FinishLength
}

// percentile is the nearest-rank percentile of xs (sorted in place).
func percentile(xs []time.Duration, q float64) time.Duration {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	rank := int(math.Ceil(q / 100 * float64(len(xs))))
	return xs[min(max(rank, 1), len(xs))-1]
}
