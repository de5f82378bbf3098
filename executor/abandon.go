package executor

import (
	"context"
	"errors"
	"fmt"
	rand2 "math/rand/v2"
	"time"

	"github.com/llmload/llmload/metrics"
)

// Abandon closes a share of the measured requests part-way, as readers who
// close the tab do: each request is drawn (seeded by Plan.Seed and its
// place in the run) to be abandoned with probability Share, and an
// abandoned one is closed once it has received a number of output events
// drawn uniformly in AfterTokens, or once a time drawn uniformly in After
// has passed since it was sent; exactly one of the two is set. A request
// that ends before its point completes as usual. An abandoned request is
// its own outcome (metrics.ErrAbandoned): not a failure, never good for
// goodput; its tokens so far count in the token totals.
type Abandon struct {
	Share       float64
	AfterTokens [2]int
	After       [2]time.Duration
}

func (a *Abandon) validate() error {
	var errs []error
	if !(a.Share > 0 && a.Share <= 1) {
		errs = append(errs, fmt.Errorf("abandon share %v: want a fraction in (0, 1]", a.Share))
	}
	tokens, after := a.AfterTokens != [2]int{}, a.After != [2]time.Duration{}
	switch {
	case tokens == after:
		errs = append(errs, errors.New("abandon: set exactly one of after_tokens and after"))
	case tokens && (a.AfterTokens[0] < 1 || a.AfterTokens[1] < a.AfterTokens[0]):
		errs = append(errs, fmt.Errorf("abandon after_tokens %v: want [min, max] with 1 <= min <= max", a.AfterTokens))
	case after && (a.After[0] <= 0 || a.After[1] < a.After[0]):
		errs = append(errs, fmt.Errorf("abandon after %v: want [min, max] with 0 < min <= max", a.After))
	}
	return errors.Join(errs...)
}

// abandonment is one request's drawn abandonment, carried by its context
// to the client: the event count or the time after which it is closed,
// and how to cancel it.
type abandonment struct {
	tokens int
	after  time.Duration
	cancel context.CancelCauseFunc
}

type abandonKey struct{}

// abandonmentOf returns the abandonment ctx carries, or nil.
func abandonmentOf(ctx context.Context) *abandonment {
	a, _ := ctx.Value(abandonKey{}).(*abandonment)
	return a
}

// abandonSeed separates the abandonment draws from the other seeded ones.
const abandonSeed = 0xab4d0

// draw decides whether the request at place k of the run (counting
// measured requests across shards) is abandoned, and where: a pure
// function of the seed and k, so that a run's abandoned requests do not
// depend on timing.
func (a *Abandon) draw(seed int64, k int) (tokens int, after time.Duration, ok bool) {
	rng := rand2.New(rand2.NewPCG(uint64(seed)^abandonSeed, uint64(k)))
	if rng.Float64() >= a.Share {
		return 0, 0, false
	}
	if a.AfterTokens != [2]int{} {
		lo, hi := a.AfterTokens[0], a.AfterTokens[1]
		return lo + rng.IntN(hi-lo+1), 0, true
	}
	lo, hi := a.After[0], a.After[1]
	return 0, lo + time.Duration(rng.Int64N(int64(hi-lo)+1)), true
}

// abandoning returns the context a measured request is sent with: when
// the plan abandons it, one that carries its abandonment (a timer cancels
// it at its time; the client closes it at its token count). stop releases
// the timer and the context.
func (r *run) abandoning(ctx context.Context, res *metrics.Request) (context.Context, func()) {
	a := r.p.Abandon
	// A sub-agent is the agent's own request: no reader leaves it.
	if a == nil || res.Warmup || res.SubAgent > 0 {
		return ctx, func() {}
	}
	tokens, after, ok := a.draw(r.p.Seed, r.p.global(int(res.ID)-r.p.Warmup))
	if !ok {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	ab := &abandonment{tokens: tokens, after: after, cancel: cancel}
	ctx = context.WithValue(ctx, abandonKey{}, ab)
	if after <= 0 {
		return ctx, func() { cancel(nil) }
	}
	t := time.AfterFunc(after, func() { cancel(errAbandoned) })
	return ctx, func() { t.Stop(); cancel(nil) }
}

// abandon records res as abandoned by the client at ab.
func (c *client) abandon(res *metrics.Request, ab *abandonment) {
	res.Error, res.Abandoned = metrics.ErrAbandoned, true
	switch {
	case ab == nil:
		res.ErrorMessage = "abandoned by the client"
	case ab.tokens > 0:
		res.ErrorMessage = fmt.Sprintf("abandoned by the client after %d output events (drawn in the scenario's abandon range)", ab.tokens)
	default:
		res.ErrorMessage = fmt.Sprintf("abandoned by the client %v after it was sent (drawn in the scenario's abandon range)", ab.after)
	}
}
