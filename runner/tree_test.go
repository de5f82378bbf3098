package runner

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/llmload/llmload/executor"
	"github.com/llmload/llmload/metrics"
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
	}{
		{name: "all three", wantRuns: 3},
		{name: "the first cannot start", ends: map[int]string{1: "error"}, wantErr: true},
		// What the first runs measured stands: the run is cut short, as by
		// Ctrl-C, and reads as interrupted (never as a pass).
		{name: "the second cannot start", ends: map[int]string{2: "error"}, wantRuns: 1, wantCut: true, wantInterrupted: true},
		{name: "interrupted", ends: map[int]string{2: "interrupted"}, wantRuns: 2, wantCut: true, wantInterrupted: true},
		// abort_on ends the repeats; the run failed, it was not interrupted.
		{name: "aborted", ends: map[int]string{2: "aborted"}, wantRuns: 2, wantCut: true, wantAborted: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			part := &fakePart{ends: tc.ends}
			rp := &repeat{n: 3, log: io.Discard, po: &partObservers{}, part: part,
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
			out, err := pool(context.Background(), outcomes(runs), cut)
			if err != nil {
				t.Fatal(err)
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
	out, err := pool(context.Background(), nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Interrupted || out.Overall == nil || out.Overall.Completed != 0 {
		t.Errorf("pooled nothing: %+v", out)
	}
}
