package runner

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmload/llmload/executor"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/scenario"
)

// fakePart is a level whose runs end as told: err for an error, aborted
// or interrupted for an outcome that says so; each run completes one
// request.
type fakePart struct {
	ends  map[int]string // run -> "error", "aborted", "interrupted"
	calls int
	// preflight records each run's plan.Preflight.
	preflight []bool
}

func (f *fakePart) run(_ context.Context, p executor.Plan) (*executor.Outcome, error) {
	f.calls++
	f.preflight = append(f.preflight, p.Preflight)
	zero := time.Unix(1000, 0).Add(time.Duration(f.calls) * time.Minute)
	out := &executor.Outcome{Overall: &metrics.Summary{Completed: 1, Duration: 1}, Started: zero, Elapsed: time.Second, Planned: 1}
	switch f.ends[f.calls] {
	case "error":
		return nil, errors.New("target down")
	case "aborted":
		out.Aborted = "error rate over 50%"
	case "interrupted":
		out.Interrupted = true
	}
	return out, nil
}

// TestRepeatLevel checks the one repeat every repeated part of a run goes
// through (a scenario's repeats and a step's): how many runs it keeps, and
// whether the pooled run reads as interrupted, for each way a run ends.
func TestRepeatLevel(t *testing.T) {
	for _, tc := range []struct {
		name            string
		ends            map[int]string
		wantErr         bool
		wantRuns        int
		wantCut         bool
		wantInterrupted bool
		wantAborted     bool
		wantStopped     bool
	}{
		{name: "all three", wantRuns: 3},
		{name: "the first cannot start", ends: map[int]string{1: "error"}, wantErr: true},
		// What the first run measured stands: the run stops there, and is
		// invalid (never a pass), not interrupted.
		{name: "the second cannot start", ends: map[int]string{2: "error"}, wantRuns: 1, wantCut: true, wantStopped: true},
		{name: "interrupted", ends: map[int]string{2: "interrupted"}, wantRuns: 2, wantCut: true, wantInterrupted: true},
		// abort_on ends the repeats; the run failed, it was not interrupted.
		{name: "aborted", ends: map[int]string{2: "aborted"}, wantRuns: 2, wantCut: true, wantAborted: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			part := &fakePart{ends: tc.ends}
			st := &stop{}
			rp := &repeat{n: 3, log: io.Discard, po: &partObservers{}, stop: st, part: part,
				mark: func(int, *metrics.Request) {}}
			runs, cut, err := rp.run(context.Background(), executor.Plan{Preflight: true})
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if len(runs) != tc.wantRuns || cut != tc.wantCut {
				t.Errorf("%d runs, cut %v; want %d, %v", len(runs), cut, tc.wantRuns, tc.wantCut)
			}
			for i, pf := range part.preflight {
				if pf != (i == 0) {
					t.Errorf("run %d: preflight %v; only the first run probes", i+1, pf)
				}
			}
			out, err := pool(context.Background(), outcomes(runs), cut, st)
			if err != nil {
				t.Fatal(err)
			}
			if r := st.rule(); (r != nil) != tc.wantStopped {
				t.Errorf("validity rule %+v; want one: %v", r, tc.wantStopped)
			} else if r != nil && (r.Valid || r.Value != 2.0/3 || !strings.Contains(r.Why, "run 2 of 3: target down")) {
				t.Errorf("validity rule %+v; want 2 of 3 runs left, invalid, with the cause", r)
			}
			if out.Interrupted != tc.wantInterrupted || (out.Aborted != "") != tc.wantAborted {
				t.Errorf("pooled: interrupted %v, aborted %q; want %v, %v", out.Interrupted, out.Aborted, tc.wantInterrupted, tc.wantAborted)
			}
			if out.Overall.Completed != tc.wantRuns || out.Planned != tc.wantRuns {
				t.Errorf("pooled: %d completed of %d planned, want %d of %d", out.Overall.Completed, out.Planned, tc.wantRuns, tc.wantRuns)
			}
			// The span runs from the first run's start to the last one's end.
			if want := time.Duration(tc.wantRuns-1)*time.Minute + time.Second; out.Elapsed != want {
				t.Errorf("pooled elapsed %v, want %v", out.Elapsed, want)
			}
		})
	}
}

// TestPoolNothing: an arm that never ran pools to an empty, interrupted
// outcome (an A/B run cut short before the candidate's first block).
func TestPoolNothing(t *testing.T) {
	out, err := pool(context.Background(), nil, true, &stop{})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Interrupted || out.Overall == nil || out.Overall.Completed != 0 {
		t.Errorf("pooled nothing: %+v", out)
	}
}

// idLeaf is a leaf that hands its plan's observers three requests, ids 0
// to 2 as every executor run numbers them, and measures one.
type idLeaf struct{ warmups []int }

func (l *idLeaf) run(_ context.Context, p executor.Plan) (*executor.Outcome, error) {
	l.warmups = append(l.warmups, p.Warmup)
	for _, o := range p.Observers {
		if st, ok := o.(executor.Starter); ok {
			st.Start(time.Unix(1000, 0))
		}
		for id := range 3 {
			o.Result(&metrics.Request{ID: int64(id)})
		}
	}
	return &executor.Outcome{Overall: &metrics.Summary{Completed: 1, Duration: 1}, Started: time.Unix(1000, 0)}, nil
}

// seen records the ids and stages the run's observers receive.
type seen struct{ ids, stages []int }

func (s *seen) Start(time.Time)           {}
func (s *seen) Snapshot(metrics.Snapshot) {}
func (s *seen) Result(r *metrics.Request) {
	s.ids, s.stages = append(s.ids, int(r.ID)), append(s.stages, r.Stage)
}

// TestLengthenedProbeIDs: a capacity probe that measured too few requests
// runs again, longer, up to maxLengthen times; every run's requests reach
// the requests file with ids of their own, as the step's (its stage), and
// only the first run warms up.
func TestLengthenedProbeIDs(t *testing.T) {
	s := &scenario.Scenario{Capacity: &scenario.CapacitySearch{Vary: scenario.VaryRate}}
	obs := &seen{}
	base := executor.Plan{Open: &executor.OpenLoop{Rate: 1}, Warmup: 2, Observers: []executor.Observer{obs}}
	po := observeParts(&base)
	leaf := &idLeaf{}
	pr := &stepProbe{s: s, log: io.Discard, po: po, step: 1, value: 4, first: true, leaf: leaf,
		len: stepLength{duration: time.Second, minRequests: 100}}
	po.next(func(r *metrics.Request) { r.Stage = 1 })
	if _, err := pr.run(context.Background(), base); err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 1, 2, 3, 4, 5, 6, 7, 8}; !slices.Equal(obs.ids, want) {
		t.Errorf("ids %v, want %v: each longer run's requests follow the last one's", obs.ids, want)
	}
	for _, st := range obs.stages {
		if st != 1 {
			t.Errorf("stages %v, want every request in the step's stage 1", obs.stages)
			break
		}
	}
	if want := []int{2, 0, 0}; !slices.Equal(leaf.warmups, want) {
		t.Errorf("warmups %v, want %v", leaf.warmups, want)
	}
	if pr.last.Lengthened != maxLengthen {
		t.Errorf("lengthened %d times, want %d", pr.last.Lengthened, maxLengthen)
	}
}
