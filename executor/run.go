package executor

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	rand2 "math/rand/v2"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmload/llmload/metrics"
)

// run is the state of one Run.
type run struct {
	p       Plan
	c       *client
	preps   []prepared
	offsets []time.Duration // open loop: the schedule, drawn up front
	idPre   string          // x-request-id prefix, unique to the run

	sessions bool          // some requests are multi-turn sessions
	start    time.Time     // time zero of the measured phase
	late     time.Duration // how late after Plan.StartAt the measured phase began
	dispEnd  time.Duration // when dispatching stopped
	nextID   atomic.Int64
	inflight atomic.Int64
	sent     atomic.Int64 // measured requests dispatched
	active   atomic.Int64 // closed-loop users let run by the gate
	// dispatching is set while closed-loop users may dispatch (their
	// count is then a sample of the stage's users).
	dispatching atomic.Bool
	peakWin     atomic.Int64   // most in flight since the collector last looked
	peaks       []atomic.Int64 // peak in-flight count per stage (one for an open loop)
	wg          sync.WaitGroup // requests dispatched and not yet recorded
	unsent      sync.WaitGroup // open-loop requests waiting for a concurrency slot
	results     chan result
	stopWork    context.CancelCauseFunc // cancels the measured phase (abort_on)
}

// errAborted is the cause of a run stopped by Plan.AbortOn.
type errAborted struct{ reason string }

func (e errAborted) Error() string { return "aborted: " + e.reason }

// result is a finished request and when it finished (offset from start).
type result struct {
	req *metrics.Request
	end time.Duration
	// session, instead of req, is an ended session's figures.
	session *metrics.Session
}

func newRun(p Plan, c *client, preps []prepared) *run {
	p.Requests = withJoins(withFanOut(p.Requests, p.Sessions.FanOut))
	r := &run{p: p, c: c, preps: preps, results: make(chan result, 1024), sessions: hasSessions(p.Requests)}
	var b [4]byte
	_, _ = rand.Read(b[:])
	r.idPre = "llmload-" + hex.EncodeToString(b[:]) + "-"
	if p.sharded() {
		// Request ids carry the shard, so the shards' ids stay unique
		// however their random prefixes fall.
		r.idPre += "s" + strconv.Itoa(p.Shard) + "-"
	}
	stages := 1
	if p.Open != nil {
		r.offsets = Arrivals(p)
	} else {
		stages = len(p.Closed.Stages)
	}
	r.peaks = make([]atomic.Int64, stages)
	return r
}

// execute runs warmup, then the measured phase and the drain.
func (r *run) execute(ctx context.Context) *Outcome {
	warm, zero := r.warmup(ctx)
	r.start = time.Now()
	if at := r.p.StartAt; !at.IsZero() {
		// The common start as a monotonic reading: the wall-clock instant
		// is turned into an offset from now once, so a clock step during
		// the run cannot move the schedule.
		mono := r.start.Add(at.Sub(r.start))
		if d := mono.Sub(r.start); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-ctx.Done():
			}
			t.Stop()
		} else {
			r.late = -d
		}
		r.start = mono
	}
	shift := r.start.Sub(zero)
	for _, w := range warm {
		w.Intended -= shift
		w.Dispatched -= shift
		w.Sent -= shift
		w.End -= shift
	}
	for _, o := range r.p.Observers {
		if st, ok := o.(Starter); ok {
			st.Start(r.start)
		}
	}
	work, stopWork := context.WithCancelCause(ctx)
	defer stopWork(nil)
	r.stopWork = stopWork
	col := newCollector(r)
	done := make(chan struct{})
	go func() { col.loop(warm); close(done) }()
	if ctx.Err() == nil {
		if r.p.Open != nil {
			r.open(work)
		} else {
			r.closed(work)
		}
	}
	r.dispEnd = time.Since(r.start)
	r.unsent.Wait()
	r.drain(stopWork)
	r.c.close()
	close(r.results)
	<-done

	out := col.outcome()
	out.Aborted = col.aborted
	out.Interrupted = ctx.Err() != nil
	out.Started = r.start
	out.Elapsed = time.Since(r.start)
	out.StartLate = r.late
	return out
}

// drain waits for the requests in flight, once every request has been sent,
// for at most the target timeout; then it cancels what is left (recorded as
// timeouts).
func (r *run) drain(stopWork context.CancelCauseFunc) {
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	if r.c.timeout <= 0 {
		<-done
		return
	}
	t := time.NewTimer(r.c.timeout)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		stopWork(errDrain)
		<-done
	}
}

// warmup sends the warmup requests, a few at a time, and returns their
// results, with offsets from zero, the time warmup began.
func (r *run) warmup(ctx context.Context) (warm []*metrics.Request, zero time.Time) {
	zero = time.Now()
	n := r.p.Warmup
	if n == 0 {
		return nil, zero
	}
	out := make([]*metrics.Request, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, WarmupConcurrency) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				now := time.Since(zero)
				res := r.newResult(now, now)
				res.Warmup = true
				r.c.do(ctx, zero, r.prep(i), res)
				res.End = time.Since(zero)
				out[i] = res
			}
		})
	}
	wg.Wait()
	// Requests never sent because ctx ended are left out.
	for _, res := range out {
		if res != nil {
			warm = append(warm, res)
		}
	}
	return warm, zero
}

// prep is the request at place i of the run: warmup requests take places
// 0 to Warmup-1 and measured request k place Warmup+k, so that the first
// measured prompts are not the ones warmup has just sent (a prefix cache
// would answer those faster). Places cycle through the dataset.
func (r *run) prep(i int) *prepared { return &r.preps[i%len(r.preps)] }

// newResult starts the result of the next request.
func (r *run) newResult(intended, dispatched time.Duration) *metrics.Request {
	id := r.nextID.Add(1) - 1
	return &metrics.Request{
		ID:         id,
		RequestID:  r.idPre + strconv.FormatInt(id, 10),
		Intended:   intended,
		Dispatched: dispatched,
	}
}

// send sends the request and hands the result to the recorder goroutine.
// A request whose turn comes after ctx ended (an interruption) is dropped
// unrecorded: it was never attempted (its kind is then ErrCanceled). It
// returns the request's failure kind and what a session's next turn needs,
// read before the result leaves for the recorder (to which it then
// belongs).
func (r *run) send(ctx context.Context, res *metrics.Request, p *prepared) (out turnOutcome) {
	defer r.wg.Done()
	if ctx.Err() != nil {
		return turnOutcome{kind: metrics.ErrCanceled}
	}
	n := r.inflight.Add(1)
	raise(&r.peaks[res.Stage], n)
	raise(&r.peakWin, n)
	actx, stop := r.abandoning(ctx, res)
	r.c.do(actx, r.start, p, res)
	stop()
	r.inflight.Add(-1)
	res.End = time.Since(r.start)
	out = turnOutcome{sent: true, kind: res.Error, text: res.GeneratedText, calls: res.Calls, end: res.End, prompt: res.PromptTokens, output: res.OutputTokens}
	res.Calls = nil // the session has them; the record need not
	r.results <- result{req: res, end: res.End}
	return out
}

// raise sets a to n when n is larger.
func raise(a *atomic.Int64, n int64) {
	for old := a.Load(); n > old && !a.CompareAndSwap(old, n); old = a.Load() {
	}
}

// job is an open-loop arrival waiting for a concurrency slot.
type job struct {
	res   *metrics.Request
	place int
}

// slot is one of an open loop's MaxConcurrency slots: it sends queued
// arrivals in arrival order, one at a time, however long they wait. Arrivals
// still queued when ctx ends (an interruption) are dropped unrecorded: they
// were never attempted.
func (r *run) slot(ctx context.Context, queue <-chan job) {
	for j := range queue {
		r.unsent.Done()
		r.dispatch(ctx, j.res, j.place, nil, r.p.Duration)
	}
}

// open dispatches the schedule: it sleeps until each arrival and releases
// the request, never waiting for a response. With MaxConcurrency, arrivals
// queue (first in, first out) for that many slots.
func (r *run) open(ctx context.Context) {
	var queue chan job
	if n := r.p.Open.MaxConcurrency; n > 0 {
		queue = make(chan job, len(r.offsets))
		defer close(queue)
		for range n {
			go r.slot(ctx, queue)
		}
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for i, off := range r.offsets {
		if !sleepUntil(ctx, timer, r.start.Add(off)) {
			return
		}
		res := r.newResult(off, time.Since(r.start))
		r.sent.Add(1)
		place := r.p.Warmup + r.p.global(i)
		r.wg.Add(1)
		if queue != nil {
			r.unsent.Add(1)
			queue <- job{res, place}
		} else {
			go r.dispatch(ctx, res, place, nil, r.p.Duration)
		}
	}
}

// sleepUntil waits on timer until t; false when ctx ended first.
func sleepUntil(ctx context.Context, timer *time.Timer, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer.Reset(d)
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// gate tells closed-loop users how many of them may run.
type gate struct {
	active  *atomic.Int64 // this shard's part of users, for snapshots
	local   func(int) int // this shard's part of a user count
	mu      sync.Mutex
	users   int
	changed chan struct{} // closed and replaced on every change
	stop    chan struct{} // closed when users must stop
	once    sync.Once
	// exhausted is closed when the run's request count is used up: users
	// waiting for their turn leave, while those in the middle of a
	// multi-turn session finish it.
	exhausted     chan struct{}
	exhaustedOnce sync.Once
}

func (g *gate) set(users int) {
	g.mu.Lock()
	g.users = users
	g.active.Store(int64(g.local(users)))
	close(g.changed)
	g.changed = make(chan struct{})
	g.mu.Unlock()
}

func (g *gate) state() (int, <-chan struct{}) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.users, g.changed
}

func (g *gate) halt() { g.once.Do(func() { close(g.stop) }) }

func (g *gate) exhaust() { g.exhaustedOnce.Do(func() { close(g.exhausted) }) }

// closed runs the virtual users and moves their number along the stages.
func (r *run) closed(ctx context.Context) {
	cl := r.p.Closed
	g := &gate{active: &r.active, local: r.p.usersOf, changed: make(chan struct{}), stop: make(chan struct{}), exhausted: make(chan struct{})}
	steps := userSteps(cl.Stages)
	users := 0
	for _, s := range cl.Stages {
		users = max(users, s.Users)
	}
	end := stagesLength(cl.Stages)
	if d := r.p.Duration; d > 0 && (end == 0 || d < end) {
		end = d
	}
	var tickets atomic.Int64
	// A shard runs the users u with u mod Shards == Shard; each follows the
	// whole run's user count, so the shards' users together are one
	// process's.
	var running sync.WaitGroup
	for u := range users {
		if r.p.sharded() && u%r.p.Shards != r.p.Shard {
			continue
		}
		r.wg.Add(1)
		running.Go(func() { r.user(ctx, u, g, &tickets, end) })
	}
	// Once every user has left (the request count used up, sessions
	// finished), the run is over.
	go func() { running.Wait(); g.halt() }()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	defer g.halt()
	defer r.active.Store(0)
	r.dispatching.Store(true)
	defer r.dispatching.Store(false)
	for _, s := range steps {
		if end > 0 && s.at >= end {
			break
		}
		if !sleepUntil(ctx, timer, r.start.Add(s.at)) {
			return
		}
		select {
		case <-g.stop:
			return
		default:
		}
		g.set(s.users)
	}
	var deadline <-chan time.Time
	if end > 0 {
		timer.Reset(time.Until(r.start.Add(end)))
		deadline = timer.C
	}
	select {
	case <-deadline:
	case <-g.stop:
	case <-ctx.Done():
	}
}

// user is virtual user u (numbered across shards): while the gate counts it in, it sends a request,
// reads the whole stream and thinks, until the run stops (at the latest at
// end, when end is set).
func (r *run) user(ctx context.Context, u int, g *gate, tickets *atomic.Int64, end time.Duration) {
	defer r.wg.Done()
	cl := r.p.Closed
	rng := rand2.New(rand2.NewPCG(uint64(r.p.Seed), uint64(u)))
	think := time.NewTimer(time.Hour)
	defer think.Stop()
	fails := 0 // failures in a row, for the backoff
	for {
		for {
			n, changed := g.state()
			if u < n {
				break
			}
			select {
			case <-changed:
			case <-g.stop:
				return
			case <-g.exhausted:
				return
			case <-ctx.Done():
				return
			}
		}
		select {
		case <-g.stop:
			return
		case <-g.exhausted:
			return
		case <-ctx.Done():
			return
		default:
		}
		now := time.Since(r.start)
		if end > 0 && now >= end {
			return
		}
		t := tickets.Add(1) - 1 // the shard's t-th request: place Warmup+global(t)
		if r.p.MaxRequests > 0 && t >= int64(r.p.maxRequests()) {
			// The count is used up: this user leaves, and so do those
			// waiting for a turn; a user still in a session finishes it.
			g.exhaust()
			return
		}
		res := r.newResult(now, now)
		r.sent.Add(1)
		res.Stage = stageAt(cl.Stages, now)
		r.wg.Add(1)
		kind := r.dispatch(ctx, res, r.p.Warmup+r.p.global(int(t)), g.stop, end)

		d := cl.ThinkMin
		if cl.ThinkMax > cl.ThinkMin {
			d += time.Duration(rng.Int64N(int64(cl.ThinkMax - cl.ThinkMin + 1)))
		}
		switch kind {
		case metrics.ErrNone, metrics.ErrAbandoned: // leaving was the reader's choice, not a failure
			fails = 0
		case metrics.ErrCanceled: // the run is ending
		default:
			fails++
			if b := cl.Backoff.wait(fails); b > 0 {
				b = b/2 + time.Duration(rng.Int64N(int64(b/2)+1))
				d = max(d, b)
			}
		}
		if d > 0 {
			think.Reset(d)
			select {
			case <-think.C:
			case <-g.stop:
				return
			case <-g.exhausted:
				return
			case <-ctx.Done():
				return
			}
		}
	}
}

// collector is the single owner of the recorders: every result passes
// through its goroutine, is recorded, handed to the observers and dropped
// (unless the plan keeps results). Only histograms, counters and the time
// series stay in memory.
type collector struct {
	r        *run
	overall  *metrics.Recorder
	stages   []*metrics.Recorder
	series   *metrics.SeriesRecorder
	results  []*metrics.Request
	sessions []*metrics.Session

	// userSum and userN accumulate the active users sampled during each
	// closed-loop stage, for its mean (a ramp's users are not its target).
	userSum []float64
	userN   []int

	completed, failed, canceled, outputTokens int
	abandoned                                 int
	aborted                                   string // why AbortOn stopped the run
	lastWindow                                int    // index of the last window whose rate was reported
	rate                                      float64
}

func newCollector(r *run) *collector {
	opts := metrics.Options{
		Goodput:       r.p.Goodput,
		Base:          r.start,
		Scheduled:     r.p.Open != nil && !math.IsInf(r.p.Open.Rate, 1),
		LateThreshold: LateThreshold,
	}
	c := &collector{r: r, overall: metrics.NewRecorder(opts), series: metrics.NewSeriesRecorder(r.start, r.p.Interval)}
	if r.p.Closed != nil {
		for range r.p.Closed.Stages {
			c.stages = append(c.stages, metrics.NewRecorder(opts))
		}
		c.userSum = make([]float64, len(r.p.Closed.Stages))
		c.userN = make([]int, len(r.p.Closed.Stages))
	}
	return c
}

// loop records the warmup results, then every result until the channel
// closes; on every tick it samples concurrency for the time series, closes
// finished windows and sends observers a snapshot.
func (c *collector) loop(warm []*metrics.Request) {
	for _, w := range warm {
		c.add(w)
	}
	const sample = 100 * time.Millisecond
	every := c.r.p.SnapshotEvery
	if every <= 0 {
		every = 250 * time.Millisecond
	}
	tick := time.NewTicker(min(sample, every))
	defer tick.Stop()
	var lastSnap time.Duration
	for {
		select {
		case res, ok := <-c.r.results:
			if !ok {
				c.observe(time.Since(c.r.start))
				c.snapshot(time.Since(c.r.start), true)
				return
			}
			if res.session != nil {
				c.addSession(res.session)
				continue
			}
			c.add(res.req)
		case <-tick.C:
			now := time.Since(c.r.start)
			c.observe(now)
			if now-lastSnap >= every {
				lastSnap = now
				c.snapshot(now, false)
			}
		}
	}
}

// observe samples the requests in flight and the active users into the
// time series, and closes the windows no request can still add to.
func (c *collector) observe(now time.Duration) {
	peak := c.r.peakWin.Swap(c.r.inflight.Load())
	users := int(c.r.active.Load())
	c.series.Observe(now, int(peak), users)
	c.series.Close(now)
	if cl := c.r.p.Closed; cl != nil && c.r.dispatching.Load() {
		i := stageAt(cl.Stages, now)
		c.userSum[i] += float64(users)
		c.userN[i]++
	}
}

func (c *collector) snapshot(now time.Duration, final bool) {
	if len(c.r.p.Observers) == 0 {
		return
	}
	s := metrics.Snapshot{
		Elapsed:      now,
		Planned:      c.r.planned(),
		Sent:         int(c.r.sent.Load()),
		Completed:    c.completed,
		Failed:       c.failed,
		Canceled:     c.canceled,
		Abandoned:    c.abandoned,
		InFlight:     int(c.r.inflight.Load()),
		ActiveUsers:  int(c.r.active.Load()),
		OutputTokens: c.outputTokens,
		OutputRate:   c.series.LastRate(now),
		Final:        final,
	}
	for _, o := range c.r.p.Observers {
		o.Snapshot(s)
	}
}

func (c *collector) add(req *metrics.Request) {
	if c.r.p.KeepResults {
		c.results = append(c.results, req)
	}
	if !req.Warmup {
		c.overall.Add(req)
		if c.stages != nil {
			c.stages[req.Stage].Add(req)
		}
		c.series.Add(req)
		switch {
		case req.Error == metrics.ErrCanceled:
			c.canceled++
		case req.Error == metrics.ErrAbandoned:
			c.abandoned++
			c.outputTokens += req.OutputTokens
		case !req.OK():
			c.failed++
		default:
			c.completed++
			c.outputTokens += req.OutputTokens
		}
		c.checkAbort()
	}
	for _, o := range c.r.p.Observers {
		o.Result(req)
	}
}

// addSession records an ended session's figures.
func (c *collector) addSession(s *metrics.Session) {
	if c.r.p.KeepResults {
		c.sessions = append(c.sessions, s)
	}
	c.overall.AddSession(s)
	if c.stages != nil {
		c.stages[s.Stage].AddSession(s)
	}
}

// checkAbort stops the run when Plan.AbortOn's condition holds.
func (c *collector) checkAbort() {
	a := c.r.p.AbortOn
	n := c.completed + c.failed
	if a == nil || c.aborted != "" || n < a.MinRequests {
		return
	}
	if rate := float64(c.failed) / float64(n); rate > a.ErrorRate {
		c.aborted = fmt.Sprintf("abort_on: error rate %.3g (%d of %d requests failed) is over %g after at least %d requests",
			rate, c.failed, n, a.ErrorRate, a.MinRequests)
		c.r.stopWork(errAborted{c.aborted})
	}
}

// planned is how many measured requests the run means to send (0 when
// unknown).
func (r *run) planned() int {
	n := r.p.maxRequests()
	if r.p.Open != nil {
		n = len(r.offsets)
	}
	if r.sessions {
		// Each planned session sends its turns and its sub-agents.
		turns := 0
		for k := range n {
			ts := r.turns(r.p.Warmup + r.p.global(k))
			turns += max(1, len(ts))
			for _, t := range ts {
				turns += len(t.FanOut)
			}
		}
		return turns
	}
	return n
}

// outcome computes the summaries once every result is in.
func (c *collector) outcome() *Outcome {
	r := c.r
	out := &Outcome{Results: c.results, Sessions: c.sessions, Planned: r.planned()}
	sort.SliceStable(out.Results, func(i, j int) bool { return out.Results[i].ID < out.Results[j].ID })
	if r.p.Open != nil {
		out.ConfiguredRate = r.p.Open.Rate
	}
	peak := 0
	for i := range r.peaks {
		peak = max(peak, int(r.peaks[i].Load()))
	}
	c.overall.ObserveConcurrency(peak)
	out.Overall = c.overall.Summary()
	out.Overall.Series = c.series.Series()
	out.Overall.PeakOutputThroughput = out.Overall.Series.PeakOutput()
	if r.p.Closed != nil {
		var start time.Duration
		stop := r.dispEnd
		for i, s := range r.p.Closed.Stages {
			d := s.Duration
			if d == 0 || start+d > stop {
				d = max(0, stop-start)
			}
			c.stages[i].ObserveConcurrency(int(r.peaks[i].Load()))
			st := StageOutcome{Index: i, Users: r.p.usersOf(s.Users), Duration: d, Summary: c.stages[i].SummaryOver(d)}
			if c.userN[i] > 0 {
				st.MeanUsers = c.userSum[i] / float64(c.userN[i])
			}
			out.Stages = append(out.Stages, st)
			start += s.Duration
		}
	}
	return out
}
