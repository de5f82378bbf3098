package sim

import (
	"math/rand"
	"time"
)

// Timed is one request of SimulateOpenLoop, in virtual time: when it
// arrived, its first token, the gaps between its later token events, and
// when its last token came.
type Timed struct {
	Arrival, TTFT, End time.Duration
	ITL                []time.Duration
	OutputTokens       int
}

// SimulateOpenLoop runs the engine in virtual time (no sleeping) under
// Poisson arrivals at rate requests per second until total requests have
// completed: a queue that builds and drains as a real server's does, so
// that consecutive requests' latencies are correlated. Work is drawn from
// reqs by a generator seeded by seed, which also draws the arrivals.
// Requests are returned in the order they completed.
func SimulateOpenLoop(p Profile, reqs []Work, rate float64, total int, seed int64) []Timed {
	if len(reqs) == 0 || rate <= 0 || total <= 0 {
		return nil
	}
	rng := rand.New(rand.NewSource(seed))
	e := newEngine(p)
	var now, next time.Duration
	byseq := map[*seq]*Timed{}
	out := make([]Timed, 0, total)
	arrive := func() {
		w := reqs[rng.Intn(len(reqs))]
		prompt := min(max(w.PromptTokens, 1), p.MaxModelLen-1)
		maxTokens := p.MaxModelLen - prompt
		if w.MaxTokens > 0 {
			maxTokens = min(w.MaxTokens, maxTokens)
		}
		n, _ := outputLength(p, maxTokens, w.IgnoreEOS, rng)
		s := &seq{prompt: prompt, target: n, arrival: next}
		e.add(s)
		byseq[s] = &Timed{Arrival: next}
		next += time.Duration(rng.ExpFloat64() / rate * float64(time.Second))
	}
	sent := 0
	for len(out) < total {
		if e.idle() && now < next {
			now = next
		}
		for sent < total && next <= now {
			arrive()
			sent++
		}
		d, emits := e.step()
		e.takeAdmitted()
		if d == 0 {
			if sent >= total && e.idle() {
				break
			}
			now = max(now, next)
			continue
		}
		now += d
		for _, o := range emits {
			t := byseq[o.s]
			t.OutputTokens += o.n
			if o.first {
				t.TTFT = now - t.Arrival
			} else {
				t.ITL = append(t.ITL, now-o.s.last)
			}
			o.s.last = now
			if o.done {
				t.End = now
				out = append(out, *t)
				delete(byseq, o.s)
			}
		}
	}
	return out
}
