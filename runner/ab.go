package runner

// Interleaved A/B runs: one schedule cut into blocks, each block sent to
// both arms in turn (the arm that goes first alternating), so that drift in
// the machine, the network or the time of day falls on both arms alike.

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/llmload/llmload/assert"
	"github.com/llmload/llmload/compare"
	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/executor"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/scenario"
)

// abBlock is one block of the schedule: measured requests first..end-1 of
// the run.
type abBlock struct{ first, end int }

// abBlocks cuts a schedule into blocks of n requests, or of the arrivals
// in each span d of the schedule (empty spans are skipped).
func abBlocks(offs []time.Duration, il scenario.Interleave) []abBlock {
	var out []abBlock
	for i := 0; i < len(offs); {
		end := i + 1
		if il.Requests > 0 {
			end = min(i+il.Requests, len(offs))
		} else {
			limit := (offs[i]/il.Duration + 1) * il.Duration
			for end < len(offs) && offs[end] < limit {
				end++
			}
		}
		out = append(out, abBlock{i, end})
		i = end
	}
	return out
}

// ABBlocks is how many blocks an A/B run cuts a schedule's arrivals into.
func ABBlocks(arrivals []time.Duration, il scenario.Interleave) int {
	return len(abBlocks(arrivals, il))
}

// blockPlan is the plan of one block for one arm: the block's arrivals
// replayed from 0 with the run's prompts in their places (warmup and the
// preflight probe only with the arm's first block), and the map from the
// block plan's places back to the dataset's.
func blockPlan(base executor.Plan, offs []time.Duration, b abBlock, first bool) executor.Plan {
	p := base
	n := len(base.Requests)
	var reqs []dataset.Request
	if first {
		for i := range base.Warmup {
			reqs = append(reqs, base.Requests[i%n])
		}
	} else {
		p.Warmup, p.Preflight = 0, false
	}
	for k := b.first; k < b.end; k++ {
		place := (base.Warmup + k) % n
		r := base.Requests[place]
		r.At = offs[k]
		reqs = append(reqs, r)
	}
	o := *base.Open
	// A replay of the block's own arrival times; the configured rate stays
	// the run's, for reports and for judging the dispatches against a
	// schedule.
	o.Arrival, o.Speed = executor.ArrivalReplay, 1
	p.Open = &o
	p.Requests, p.MaxRequests, p.Duration = reqs, b.end-b.first, 0
	return p
}

// abAnswerTexts is how many of each block's first answers keep their
// text for the arms' agreement (metrics.AnswerBook keeps at most 1,000).
const abAnswerTexts = 1000

// abArm is an arm's target and what its blocks measured.
type abArm struct {
	name    string // results.ArmBaseline or results.ArmCandidate
	lt      *liveTarget
	target  *scenario.Target
	version string
	outs    []*executor.Outcome
	started bool
	// book holds the arm's answers by prompt, for their agreement.
	book *metrics.AnswerBook
	// salt is the arm's prompt cache salt: its blocks are one run to the
	// engine's cache (prompt_cache = "isolate"), apart from the other
	// arm's.
	salt string
}

// abOutcome is what an A/B run measured: each arm's blocks pooled, and
// every block pooled (the load generator's own figures, for validity).
type abOutcome struct {
	baseline, candidate *metrics.Summary
	all                 *metrics.Summary
	// baseBlocks and candBlocks are each arm's blocks, in order (block k
	// of both arms ran back to back: paired).
	baseBlocks, candBlocks []*metrics.Summary
	ab                     *results.AB
	// confidence is what the regression block is judged at: a
	// sequential gate's last look's (0: the default).
	confidence float64
}

// interleaved is an A/B run: the schedule cut into blocks, each block run
// on both arms in turn (the arm that goes first alternating). The run's
// outcome is the candidate arm's blocks pooled; ab keeps both arms'.
type interleaved struct {
	s    *scenario.Scenario
	log  io.Writer
	arms [2]*abArm
	stop *stop
	// ab is what the arms measured, for the result.
	ab *abOutcome
}

func (il *interleaved) run(ctx context.Context, plan executor.Plan) (*executor.Outcome, error) {
	s, arms := il.s, il.arms
	offs := executor.Arrivals(plan)
	if len(offs) == 0 {
		return nil, fmt.Errorf("the schedule has no arrival to interleave")
	}
	blocks := abBlocks(offs, s.Interleave)
	po := observeParts(&plan)
	res := &results.AB{Interleave: s.Interleave.String()}
	var all []*executor.Outcome
	cut := false
	fmt.Fprintf(il.log, "llmload: A/B: %d blocks of %s, baseline %s and candidate %s in turn\n", len(blocks), s.Interleave, arms[0].target.Name, arms[1].target.Name)
	// A block pair takes about twice its span of the schedule.
	es := newEarlyStop(s, il.log, "block", len(blocks), 2*blockSpan(offs, blocks[0], s.Interleave))
run:
	for k, b := range blocks {
		blockStarted := time.Now()
		order := arms
		if k%2 == 1 {
			order[0], order[1] = arms[1], arms[0]
		}
		res.First = append(res.First, order[0].name)
		for _, arm := range order {
			p := blockPlan(plan, offs, b, !arm.started)
			p.Target = arm.lt.target
			// The first answers' texts, for prefix agreement and
			// similarity (the book keeps at most its own share of them).
			p.KeepOutputs = max(p.KeepOutputs, abAnswerTexts)
			if arm.book == nil {
				arm.book = metrics.NewAnswerBook()
			}
			if arm.salt == "" {
				arm.salt = executor.NewCacheSalt()
			}
			p.CacheSalt = arm.salt
			block, name := k+1, arm.name
			book := arm.book
			po.part = fmt.Sprintf("block %d/%d arm %s", block, len(blocks), name)
			po.next(func(r *metrics.Request) {
				r.Arm, r.Block = name, block
				book.Add(r)
			})
			out, err := once{}.run(ctx, p)
			if err != nil {
				if len(all) == 0 {
					return nil, fmt.Errorf("%s arm (target %q): %w", arm.name, arm.target.Name, err)
				}
				il.stop.set(ctx, il.log, fmt.Sprintf("block %d on the %s arm (target %q)", block, arm.name, arm.target.Name), err, 2*len(blocks), len(all))
				cut = true
				break run
			}
			arm.started = true
			arm.outs = append(arm.outs, out)
			all = append(all, out)
			if out.Interrupted || out.Aborted != "" {
				cut = true
				break run
			}
		}
		res.Blocks = k + 1
		if es.after(k+1, time.Since(blockStarted), func(conf float64) []compare.Delta { return il.look(conf) }) {
			break
		}
	}
	res.Stopping = es.finish(cut)
	o := &abOutcome{ab: res, baseBlocks: summaries(arms[0].outs), candBlocks: summaries(arms[1].outs), confidence: es.confidence()}
	if n := min(len(o.baseBlocks), len(o.candBlocks)); cut {
		// A block cut short on one arm has no pair: the per-block
		// interval rests on the whole pairs (the pooled figures keep
		// everything measured).
		o.baseBlocks, o.candBlocks = o.baseBlocks[:n], o.candBlocks[:n]
	}
	il.ab = o
	base, err := pool(ctx, arms[0].outs, cut, il.stop)
	if err != nil {
		return nil, err
	}
	cand, err := pool(ctx, arms[1].outs, cut, il.stop)
	if err != nil {
		return nil, err
	}
	both, err := pool(ctx, all, cut, il.stop)
	if err != nil {
		return nil, err
	}
	o.baseline, o.candidate, o.all = base.Overall, cand.Overall, both.Overall
	// The candidate's answers against the baseline's, prompt by prompt.
	if arms[0].book != nil && arms[1].book != nil && cand.Overall != nil {
		b, c := arms[0].lt.target.Scrubber(), arms[1].lt.target.Scrubber()
		ag := metrics.Agree(arms[0].book, arms[1].book, "the baseline arm", func(t string) string { return c.Scrub(b.Scrub(t)) })
		ag.Sampled = arms[0].lt.target.Samples() || arms[1].lt.target.Samples()
		cand.Overall.Agreement = ag
	}
	for _, a := range arms {
		arm := results.Arm{Target: a.target.Name, TargetURL: RedactURL(a.target.BaseURL), ServerVersion: a.version}
		if a.name == results.ArmBaseline {
			own := *o.baseline
			arm.Summary = &own
			res.Baseline = arm
		} else {
			res.Candidate = arm
		}
	}
	// The run's figures are the candidate's; its span and its plan are
	// both arms'.
	first, last := all[0], all[len(all)-1]
	out := cand
	out.Started, out.ConfiguredRate, out.Planned = first.Started, first.ConfiguredRate, len(offs)
	out.Interrupted, out.Aborted = both.Interrupted, last.Aborted
	out.Elapsed = time.Since(first.Started)
	return out, nil
}

// blockSpan is how long block b spans of the schedule: its interleave
// duration, or from its first arrival to its last.
func blockSpan(offs []time.Duration, b abBlock, il scenario.Interleave) time.Duration {
	if il.Duration > 0 {
		return il.Duration
	}
	return offs[b.end-1] - offs[b.first]
}

// look judges the regression block on the blocks so far, at a sequential
// gate's confidence: the arms' blocks pooled, paired block by block.
// Agreement figures are judged once, at the end (their answers are paired
// over the whole run).
func (il *interleaved) look(confidence float64) []compare.Delta {
	bb, cb := summaries(il.arms[0].outs), summaries(il.arms[1].outs)
	base, err1 := metrics.PoolSummaries(bb...)
	cand, err2 := metrics.PoolSummaries(cb...)
	if err1 != nil || err2 != nil {
		return nil
	}
	return compare.Compare(base, cand, []compare.Row{}, sequentialTolerances(il.s), compare.Options{
		Confidence: confidence, BaseRuns: bb, NewRuns: cb, Paired: true, MinSamples: int64(il.s.MinSamples)})
}

// sequentialTolerances are the regression block's tolerances a sequential
// gate judges at each look: all but the agreement figures.
func sequentialTolerances(s *scenario.Scenario) []compare.Tolerance {
	var out []compare.Tolerance
	for _, t := range s.Tolerances() {
		if !metrics.IsAgreement(t.Metric) {
			out = append(out, t)
		}
	}
	return out
}

// startBaselineArm starts the baseline arm's target (a simulator for
// sim://) and asks it its version.
func startBaselineArm(ctx context.Context, log io.Writer, s *scenario.Scenario, secrets []string) (*abArm, hcl.Diagnostics) {
	lt, diags := startTarget(s.BaselineTarget, s.Seed)
	if diags.HasErrors() {
		return nil, diags
	}
	lt.ctx = ctx
	lt.target.Secrets = secrets
	if lt.profile != "" {
		fmt.Fprintf(log, "llmload: baseline arm: %s\n", lt.simListening())
	}
	return &abArm{name: results.ArmBaseline, lt: lt, target: s.BaselineTarget, version: probeVersion(ctx, log, lt)}, nil
}

// armsBaseline is the baseline arm as the checks' baseline: baseline.*
// reads it, and the regression block judges the candidate against it.
func armsBaseline(s *scenario.Scenario, o *abOutcome) *assert.Baseline {
	return &assert.Baseline{Path: fmt.Sprintf("the baseline arm (target %q)", s.BaselineTarget.Name), Summary: o.baseline,
		Runs: o.baseBlocks, NewRuns: o.candBlocks, Paired: true, Confidence: o.confidence}
}

// abComparison compares the candidate arm with the baseline arm by the
// scenario's regression tolerances (none: the deltas alone, not judged).
func abComparison(s *scenario.Scenario, o *abOutcome, rep *results.Run) *results.Comparison {
	base := &results.Result{Extras: results.Extras{Summary: o.baseline, RunID: rep.RunID, ServerVersion: o.ab.Baseline.ServerVersion}}
	cand := &results.Result{Extras: results.Extras{Summary: o.candidate, RunID: rep.RunID, ServerVersion: rep.ServerVersion}}
	if !rep.Goodput.Empty() {
		base.Goodput, cand.Goodput = &results.SLOms{}, &results.SLOms{}
	}
	b := armsBaseline(s, o)
	c := compareWith(b.Path, base, cand, s.Tolerances(), compare.Options{BaseRuns: b.Runs, NewRuns: b.NewRuns, Paired: b.Paired, Confidence: b.Confidence, MinSamples: int64(s.MinSamples)})
	if len(s.Regression) == 0 {
		c.Verdict = ""
	}
	return c
}
