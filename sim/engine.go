package sim

import (
	"sync/atomic"
	"time"
)

// seq is one request inside the engine. Its counting fields belong to the
// goroutine that runs the engine; the atomics are how the scheduler hands
// tokens to the request's HTTP handler.
type seq struct {
	prompt    int // prompt tokens
	target    int // output tokens this request will produce
	generated int // output tokens produced so far
	computed  int // context tokens whose KV entries are computed
	kv        int // KV-cache tokens allocated to it

	arrival time.Duration // when it reached the engine (engine clock)
	firstAt time.Duration // when it produced its first token (engine clock)
	last    time.Duration // when it last produced tokens (engine clock)
	reason  string        // finish_reason: "length" or "stop"

	// blocks are the prompt's prefix-cache block hashes (nil when the
	// engine caches no prefix); cached is how many prompt tokens the
	// cache served when the sequence was first admitted.
	blocks   []uint64
	cached   int
	admitted bool
	// scheduled is when the engine first admitted it (engine clock): its
	// queue time ends there, and vLLM's per-request TTFT starts there.
	scheduled time.Duration
	// Speculative decoding (TokensPerEvent > 1): steps that drafted,
	// draft tokens proposed and accepted, and the share of a draft token
	// accepted but not yet gained (SpecAcceptance × drafts, whole tokens
	// taken step by step).
	specSteps, drafted, accepted int
	acceptCarry                  float64

	cancelled atomic.Bool // set by the handler when it no longer wants tokens
	// leaked is set instead of cancelled under the LeakOnDisconnect fault:
	// the sequence stays in the running batch, holding its place and its
	// KV cache, and never runs again.
	leaked   atomic.Bool
	produced atomic.Int64  // tokens handed to the handler; target means done
	notify   chan struct{} // capacity 1: "produced changed"
}

// emit is what one sequence produced in a step: n tokens, and whether they
// were its last.
type emit struct {
	s     *seq
	n     int
	first bool
	done  bool
}

// engine is the continuous-batching scheduler, free of clocks and
// goroutines: step plans one iteration, updates the state and returns its
// duration and what each sequence produced. The caller advances time (by
// sleeping or virtually) and then delivers the tokens.
type engine struct {
	p           Profile
	waiting     []*seq // FIFO; preempted sequences go back to the front
	running     []*seq // in admission order
	kvUsed      int
	preemptions int64
	// prefixQueries counts the context tokens looked up in the prefix
	// cache when a sequence is admitted (again, after a preemption), as
	// vLLM's scheduler counts them, and prefixHits those found there
	// (always 0 without PrefixCaching).
	prefixQueries int64
	prefixHits    int64
	prefilled     int64 // prompt (and recomputed) tokens prefilled
	// admitted lists the sequences first admitted since takeAdmitted:
	// the caller stamps their scheduled time.
	admitted []*seq
	cache    *prefixCache // nil without PrefixCaching
	out      []emit       // reused between steps
}

func newEngine(p Profile) *engine {
	e := &engine{p: p}
	if p.PrefixCaching {
		e.cache = newPrefixCache(p.KVCacheTokens)
	}
	return e
}

// add queues a new request.
func (e *engine) add(s *seq) { e.waiting = append(e.waiting, s) }

// idle reports whether there is nothing to run.
func (e *engine) idle() bool { return len(e.running) == 0 && len(e.waiting) == 0 }

// kvUsage is the fraction of the KV cache in use.
func (e *engine) kvUsage() float64 { return float64(e.kvUsed) / float64(e.p.KVCacheTokens) }

func (e *engine) free(s *seq) {
	e.kvUsed -= s.kv
	s.kv = 0
}

// preempt moves the last running sequence back to the front of the queue;
// its context will be recomputed (vLLM's recompute preemption).
func (e *engine) preempt() *seq {
	victim := e.running[len(e.running)-1]
	e.running = e.running[:len(e.running)-1]
	e.free(victim)
	victim.computed = 0
	e.waiting = append([]*seq{victim}, e.waiting...)
	e.preemptions++
	return victim
}

// dropCancelled frees sequences whose clients went away (a leaked one
// stays).
func (e *engine) dropCancelled() {
	keep := e.running[:0]
	for _, s := range e.running {
		if s.cancelled.Load() {
			e.free(s)
			continue
		}
		keep = append(keep, s)
	}
	clear(e.running[len(keep):])
	e.running = keep
	wkeep := e.waiting[:0]
	for _, s := range e.waiting {
		// A leaked sequence that holds nothing yet is simply never run.
		if !s.cancelled.Load() && !s.leaked.Load() {
			wkeep = append(wkeep, s)
		}
	}
	clear(e.waiting[len(wkeep):])
	e.waiting = wkeep
}

// step schedules one iteration: running sequences first (one decode each,
// or the next prefill chunk), then admission of waiting ones while
// max_num_seqs, the KV cache and the token budget allow. It returns the
// step's duration (0 when there was nothing to do) and the tokens produced;
// the returned slice is reused by the next call.
func (e *engine) step() (time.Duration, []emit) {
	e.dropCancelled()
	e.out = e.out[:0]
	budget := e.p.MaxNumBatchedTokens
	var decodes, prefill, ctx int
	preempted := false

	for i := 0; i < len(e.running); i++ {
		s := e.running[i]
		if s.leaked.Load() {
			continue // stuck: it holds its place and its cache, and does nothing
		}
		if need := s.prompt + s.generated - s.computed; need > 0 {
			chunk := min(need, budget)
			if chunk == 0 {
				continue
			}
			budget -= chunk
			prefill += chunk
			e.advancePrefill(s, chunk)
			ctx += s.computed
			continue
		}
		n := min(e.p.TokensPerEvent, s.target-s.generated)
		if n > budget {
			continue
		}
		for e.kvUsed+max(0, s.computed+n-s.kv) > e.p.KVCacheTokens {
			victim := e.preempt()
			preempted = true
			if victim == s {
				break
			}
		}
		if i >= len(e.running) || e.running[i] != s {
			break // s itself was preempted, and everything after it
		}
		budget -= n
		decodes++
		ctx += s.computed
		e.produce(s, e.gain(s))
	}

	// Admission (not in a step that had to preempt, as vLLM does).
	for !preempted && len(e.waiting) > 0 && len(e.running) < e.p.MaxNumSeqs && budget > 0 {
		s := e.waiting[0]
		need := s.prompt + s.generated + e.p.TokensPerEvent
		if e.kvUsed+need > e.p.KVCacheTokens {
			break
		}
		e.waiting[0] = nil
		e.waiting = e.waiting[1:]
		e.kvUsed += need
		s.kv = need
		e.prefixQueries += int64(s.prompt + s.generated)
		e.running = append(e.running, s)
		s.computed = e.lookup(s)
		chunk := min(s.prompt+s.generated-s.computed, budget)
		budget -= chunk
		prefill += chunk
		e.advancePrefill(s, chunk)
		ctx += s.computed
	}

	if decodes == 0 && prefill == 0 {
		return 0, nil
	}
	e.prefilled += int64(prefill)
	e.removeFinished()
	return e.p.stepTime(decodes, prefill, ctx), e.out
}

// lookup returns how many of s's leading prompt tokens the prefix cache
// holds, in whole blocks, and counts them. As in vLLM, at least the
// prompt's last token is computed again, so that it has logits to sample.
func (e *engine) lookup(s *seq) int {
	hit := 0
	if e.cache != nil && s.prompt > 0 {
		blocks := s.blocks[:min(len(s.blocks), (s.prompt-1)/prefixBlock)]
		hit = e.cache.match(blocks) * prefixBlock
		e.prefixHits += int64(hit)
	}
	if !s.admitted {
		s.admitted = true
		s.cached = hit
		e.admitted = append(e.admitted, s)
	}
	return hit
}

// takeAdmitted returns the sequences first admitted since the last call.
func (e *engine) takeAdmitted() []*seq {
	a := e.admitted
	e.admitted = e.admitted[:0]
	return a
}

// advancePrefill computes chunk more context tokens of s; when its whole
// context is computed the same step samples its next tokens, and the
// prompt's blocks are cached.
func (e *engine) advancePrefill(s *seq, chunk int) {
	s.computed += chunk
	if s.computed == s.prompt+s.generated {
		if e.cache != nil {
			e.cache.insert(s.blocks)
		}
		e.produce(s, e.gain(s))
	}
}

// gain is how many tokens s gains in a step: with speculative decoding
// (TokensPerEvent > 1) its accepted drafts and the bonus token, else one;
// never past its target. The step's budget and KV cache were reserved for
// all TokensPerEvent.
func (e *engine) gain(s *seq) int {
	left := s.target - s.generated
	k := e.p.TokensPerEvent - 1
	if k == 0 {
		return min(1, left)
	}
	s.acceptCarry += e.p.SpecAcceptance * float64(k)
	ok := min(int(s.acceptCarry+1e-9), k)
	s.acceptCarry -= float64(ok)
	s.specSteps++
	s.drafted += k
	// Counted as verified, as vLLM counts them, even when the answer's
	// end (max_tokens) cuts the step's tokens.
	s.accepted += ok
	return min(ok+1, left)
}

func (e *engine) produce(s *seq, n int) {
	first := s.generated == 0
	s.generated += n
	s.computed += n
	if grow := s.computed - s.kv; grow > 0 {
		s.kv += grow
		e.kvUsed += grow
	}
	e.out = append(e.out, emit{s: s, n: n, first: first, done: s.generated >= s.target})
}

func (e *engine) removeFinished() {
	keep := e.running[:0]
	for _, s := range e.running {
		if s.generated >= s.target {
			e.free(s)
			continue
		}
		keep = append(keep, s)
	}
	clear(e.running[len(keep):])
	e.running = keep
}
