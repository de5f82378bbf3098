package runner

// A run is a tree. A sweep or a capacity search has steps (steps, in
// sweep.go), a step has repeats (repeat), a scenario's repeat = N is the
// same repeat at the top, an interleaved A/B run has blocks (interleaved,
// in ab.go), and every leaf is one executor run (once). Each level is one
// type with one job that runs its parts through the level interface; the
// observers see every leaf as a part of one run (partObservers), and parts
// that ran one after another are pooled by one function (pool).
//
// A part that cannot start after the first stops the run where it is
// (stop): what ran is kept and the run is invalid, not interrupted; Ctrl-C
// interrupts it; abort_on fails it.
//
// What cannot combine (A/B with repeats or a sweep, a split repeated run,
// and so on) never reaches the tree: scenario refuses it with the file and
// line of the block that makes it impossible, and validate says the same
// (scenario.CheckRunFlags for what flags add).

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/llmload/llmload/assert"
	"github.com/llmload/llmload/executor"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/scenario"
)

// level is one level of a run's tree: it runs its parts on plan p and
// returns what the run measured, as one executor run's outcome. What a
// level records besides (its repeats, steps or arms) it keeps in its own
// fields, for the result.
type level interface {
	run(ctx context.Context, p executor.Plan) (*executor.Outcome, error)
}

// once is a leaf: one executor run.
type once struct{}

func (once) run(ctx context.Context, p executor.Plan) (*executor.Outcome, error) {
	return executor.Run(ctx, p)
}

// treeOf is the tree of s's run: the level at its top. A sweep or search
// (steps) comes first, then an A/B run's blocks, then repeats; a plain run
// is one executor run.
func treeOf(log io.Writer, s *scenario.Scenario, bounds scenario.Validity, arms [2]*abArm, base *assert.Baseline, st *stop) level {
	switch {
	case s.Varies() != "":
		return &steps{s: s, log: log, stop: st}
	case s.AB():
		return &interleaved{s: s, log: log, arms: arms, stop: st}
	case s.Repeats() > 1:
		return &repeats{s: s, log: log, bounds: bounds, stop: st, base: base}
	}
	return once{}
}

// repeat runs its part n times, cooldown apart: every run with its warmup,
// only the first with the preflight probe. The observers see each run as a
// part of one run, marked by mark. A run that cannot start, after the
// first, stops the run (stop): what the earlier runs measured stands.
type repeat struct {
	n        int
	cooldown time.Duration
	log      io.Writer
	po       *partObservers
	stop     *stop
	// say is the log line that starts run k (none when nil); mark places
	// run k's requests.
	say  func(run int) string
	mark func(run int, r *metrics.Request)
	// part runs one repeat.
	part level
	// after, when set, is called once run k has run, taking took (its
	// cooldown included), with the runs so far; true stops the repeat
	// there (a budget or stop_early).
	after func(run int, took time.Duration, runs []repeatRun) bool
}

// repeatRun is one run of a repeat and when it ran.
type repeatRun struct {
	out            *executor.Outcome
	started, ended time.Time
}

// run runs the repeats and returns the runs that measured something, and
// whether the repeats were cut short (interrupted, aborted, or a run that
// could not start). Only the first run's error is returned.
func (rp *repeat) run(ctx context.Context, p executor.Plan) ([]repeatRun, bool, error) {
	var runs []repeatRun
	for i := range rp.n {
		run := i + 1
		began := time.Now()
		if i > 0 {
			fmt.Fprintf(rp.log, "llmload: cooldown %v\n", rp.cooldown)
			if !pause(ctx, rp.cooldown) {
				return runs, true, nil
			}
			p.Preflight = false
		}
		if rp.say != nil {
			fmt.Fprintln(rp.log, "llmload: "+rp.say(run))
		}
		rp.po.next(func(r *metrics.Request) { rp.mark(run, r) })
		started := time.Now()
		out, err := rp.part.run(ctx, p)
		if err != nil {
			if i == 0 {
				return nil, false, err
			}
			rp.stop.set(ctx, rp.log, fmt.Sprintf("run %d of %d", run, rp.n), err, rp.n, i)
			return runs, true, nil
		}
		runs = append(runs, repeatRun{out: out, started: started, ended: time.Now()})
		if out.Interrupted || out.Aborted != "" {
			return runs, true, nil
		}
		if rp.after != nil && rp.after(run, time.Since(began), runs) {
			break
		}
	}
	return runs, false, nil
}

// stop is what ended a run before its plan, shared by the levels of its
// tree: a part that could not start after the first (the target went
// down, say). The run keeps what it measured and is invalid (its
// parts_not_run validity rule); it was not interrupted.
type stop struct {
	err          error
	planned, ran int
}

// set records that part what (ran of planned parts having run) could not
// start, unless ctx ended (an interruption) or a part already stopped the
// run; it says so on log.
func (st *stop) set(ctx context.Context, log io.Writer, what string, err error, planned, ran int) {
	if ctx.Err() != nil || st.err != nil {
		return
	}
	st.err, st.planned, st.ran = fmt.Errorf("%s: %w", what, err), planned, ran
	fmt.Fprintf(log, "llmload: %s could not start: %v; the run stops, keeps what it measured, and is invalid\n", what, err)
}

// rule is the validity rule of a run that stop ended (nil when none did).
func (st *stop) rule() *results.Rule {
	if st == nil || st.err == nil {
		return nil
	}
	planned := max(st.planned, st.ran+1)
	return &results.Rule{
		Name: "parts_not_run", Description: "share of the run's parts (repeats, steps, A/B blocks) left unrun because one could not start",
		Value: float64(planned-st.ran) / float64(planned), Bound: 0, Unit: "fraction", Applies: true, Valid: false,
		Why: st.err.Error(),
	}
}

// interrupted says whether parts cut short (cut) make an interrupted run:
// when ctx ended or the last part was interrupted, or when the parts were
// cut short by neither abort_on (a failed run) nor a part that could not
// start (an invalid one).
func interrupted(ctx context.Context, cut bool, last *executor.Outcome, st *stop) bool {
	return last.Interrupted || ctx.Err() != nil || cut && last.Aborted == "" && (st == nil || st.err == nil)
}

// pool is the outcome of parts that ran one after another (repeats, or
// one arm's blocks): their summaries pooled (metrics.PoolSummaries), each
// closed-loop stage pooled over the parts, the planned requests summed,
// and the span from the first part's start to the last one's end. cut
// says the parts were cut short (see interrupted).
func pool(ctx context.Context, outs []*executor.Outcome, cut bool, st *stop) (*executor.Outcome, error) {
	pooled, err := metrics.PoolSummaries(summaries(outs)...)
	if err != nil {
		return nil, err
	}
	if len(outs) == 0 {
		// An arm that never ran (the run was cut short before its turn).
		return &executor.Outcome{Overall: pooled, Interrupted: interrupted(ctx, cut, &executor.Outcome{}, st)}, nil
	}
	first, last := outs[0], outs[len(outs)-1]
	out := &executor.Outcome{
		Overall: pooled, Started: first.Started, ConfiguredRate: first.ConfiguredRate,
		Interrupted: interrupted(ctx, cut, last, st), Aborted: last.Aborted,
		Elapsed: last.Started.Add(last.Elapsed).Sub(first.Started),
	}
	for _, o := range outs {
		out.Planned += o.Planned
	}
	if out.Stages, err = poolStages(outs); err != nil {
		return nil, err
	}
	return out, nil
}

// summaries are the outcomes' summaries.
func summaries(outs []*executor.Outcome) []*metrics.Summary {
	sums := make([]*metrics.Summary, len(outs))
	for i, o := range outs {
		sums[i] = o.Overall
	}
	return sums
}

// outcomes are the runs' outcomes.
func outcomes(runs []repeatRun) []*executor.Outcome {
	outs := make([]*executor.Outcome, len(runs))
	for i, r := range runs {
		outs[i] = r.out
	}
	return outs
}

// partObservers hands the results of several executor runs to the run's
// observers as one run's: offsets count from the first part's time zero,
// ids keep rising, and mark places each request (its repeat, arm and
// block). Dataset indexes are the dataset's own already: each request
// carries its entry's.
type partObservers struct {
	obs    []executor.Observer
	zero   time.Time
	shift  time.Duration
	idBase int64
	maxID  int64
	mark   func(*metrics.Request)
	// part names the part running, for the progress line ("" for none).
	part string
}

// observeParts makes p's observers see every part of the run as one run.
func observeParts(p *executor.Plan) *partObservers {
	po := &partObservers{obs: p.Observers}
	p.Observers = []executor.Observer{po}
	return po
}

// Start takes the first part's time zero as the run's.
func (po *partObservers) Start(zero time.Time) {
	if po.zero.IsZero() {
		po.zero = zero
		for _, o := range po.obs {
			if st, ok := o.(executor.Starter); ok {
				st.Start(zero)
			}
		}
	}
	po.shift = zero.Sub(po.zero)
}

// Result passes a copy of r moved onto the run's offsets and ids.
func (po *partObservers) Result(r *metrics.Request) {
	c := *r
	c.ID += po.idBase
	c.Intended += po.shift
	c.Dispatched += po.shift
	c.Sent += po.shift
	c.End += po.shift
	if c.Turn > 0 {
		c.Session += po.idBase
	}
	if po.mark != nil {
		po.mark(&c)
	}
	po.maxID = max(po.maxID, c.ID)
	for _, o := range po.obs {
		o.Result(&c)
	}
}

// Snapshot passes snapshots on, named by the part running (after any
// name a part within it gave).
func (po *partObservers) Snapshot(s metrics.Snapshot) {
	if po.part != "" {
		s.Part = strings.TrimSpace(po.part + " " + s.Part)
	}
	for _, o := range po.obs {
		o.Snapshot(s)
	}
}

// next starts a part: its ids follow the previous part's.
func (po *partObservers) next(mark func(*metrics.Request)) {
	if !po.zero.IsZero() {
		po.idBase = po.maxID + 1
	}
	po.mark = mark
}

// again starts another executor run of the same part (a probe run
// again, longer): its ids follow the previous run's, its requests are
// marked alike.
func (po *partObservers) again() { po.next(po.mark) }

// pause waits d, or until ctx ends (false).
func pause(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
