package executor

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/executor/executortest"
)

// trace returns requests recorded at the given times (ms).
func trace(ms ...int) []dataset.Request {
	out := make([]dataset.Request, len(ms))
	for i, m := range ms {
		out[i] = dataset.Request{Index: i, Prompt: "p", PromptLen: 3, OutputLen: 2, At: time.Duration(m) * time.Millisecond}
	}
	return out
}

func millis(ms ...float64) []time.Duration {
	out := make([]time.Duration, len(ms))
	for i, m := range ms {
		out[i] = time.Duration(m * float64(time.Millisecond))
	}
	return out
}

func TestReplayArrivals(t *testing.T) {
	reqs := trace(0, 100, 100, 250, 1000, 1600)
	replay := func(speed float64) *OpenLoop { return &OpenLoop{Arrival: ArrivalReplay, Speed: speed} }
	tests := []struct {
		name string
		p    Plan
		want []time.Duration
	}{
		{"recorded times", Plan{Requests: reqs, Open: replay(1)}, millis(0, 100, 100, 250, 1000, 1600)},
		{"twice as fast", Plan{Requests: reqs, Open: replay(2)}, millis(0, 50, 50, 125, 500, 800)},
		{"slowed down", Plan{Requests: reqs, Open: replay(0.5)}, millis(0, 200, 200, 500, 2000, 3200)},
		// Warmup takes the first records; the replay counts from the first
		// measured one.
		{"after warmup", Plan{Requests: reqs, Open: replay(1), Warmup: 2}, millis(0, 150, 900, 1500)},
		{"requests cap", Plan{Requests: reqs, Open: replay(1), MaxRequests: 3}, millis(0, 100, 100)},
		{"no cycling", Plan{Requests: reqs, Open: replay(1), MaxRequests: 10}, millis(0, 100, 100, 250, 1000, 1600)},
		{"duration cut", Plan{Requests: reqs, Open: replay(1), Duration: time.Second}, millis(0, 100, 100, 250)},
		{"shard 1 of 2", Plan{Requests: reqs, Open: replay(1), Shard: 1, Shards: 2}, millis(100, 250, 1600)},
		{"shard 0 of 4", Plan{Requests: reqs, Open: replay(2), Shard: 0, Shards: 4}, millis(0, 500)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Arrivals(tt.p)); diff != "" {
				t.Errorf("arrivals (-want +got):\n%s", diff)
			}
		})
	}
	if r := MeanRate(millis(0, 500, 1000)); r != 2 {
		t.Errorf("mean rate of 3 arrivals over 1 s: %v, want 2", r)
	}
	if err := (&Plan{Requests: reqs, Open: replay(0)}).validate(); err == nil {
		t.Error("a replay at speed 0 validates")
	}
}

// TestRunReplay replays a trace against the fake server: every request's
// intended time is its recorded time over the speed, and the dispatches
// keep to them (a scheduled load). It runs on the fake clock of a
// testing/synctest bubble, where a dispatch that keeps to its time lands
// on it exactly: the lag a real machine adds is its own, with its own
// figures.
func TestRunReplay(t *testing.T) {
	inBubble(t, executortest.Config{Tokens: 2}, func(t *testing.T, srv *executortest.Server) {
		reqs := trace(0, 40, 40, 100, 160, 300)
		const speed = 2
		out := mustRun(t, context.Background(), Plan{
			Target:   Target{BaseURL: srv.URL, Model: "m"},
			Requests: reqs,
			Open:     &OpenLoop{Arrival: ArrivalReplay, Speed: speed},
		})
		if len(out.Results) != len(reqs) || out.Overall.Completed != len(reqs) {
			t.Fatalf("%d results, %d completed; want %d", len(out.Results), out.Overall.Completed, len(reqs))
		}
		for i, res := range out.Results {
			want := reqs[i].At / speed
			if res.Intended != want || res.DatasetIndex != i {
				t.Errorf("request %d: intended %v (dataset index %d), want %v (%d)", i, res.Intended, res.DatasetIndex, want, i)
			}
			if lag := res.Lag(); lag != 0 {
				t.Errorf("request %d: dispatched %v after its time, want on it", i, lag)
			}
		}
		if !out.Overall.Scheduled || out.Overall.Dispatches != len(reqs) {
			t.Errorf("scheduled %v, %d dispatches: a replay is a schedule", out.Overall.Scheduled, out.Overall.Dispatches)
		}
		if want := 5 / 0.150; math.Abs(out.Overall.ScheduledRate-want) > 1e-9 {
			t.Errorf("scheduled rate %v, want %v (5 gaps over 150 ms)", out.Overall.ScheduledRate, want)
		}
	})
}

// TestRunReplaySharded: two shards of a replay send, together, each
// request of the trace once at its recorded time.
func TestRunReplaySharded(t *testing.T) {
	srv := executortest.New(executortest.Config{Tokens: 2})
	defer srv.Close()
	reqs := trace(0, 10, 30, 30, 70, 90, 120)
	got := map[int]time.Duration{}
	for shard := range 2 {
		out := mustRun(t, context.Background(), Plan{
			Target:   Target{BaseURL: srv.URL, Model: "m"},
			Requests: reqs,
			Open:     &OpenLoop{Arrival: ArrivalReplay, Speed: 1},
			Shard:    shard, Shards: 2,
		})
		for _, r := range out.Results {
			if _, dup := got[r.DatasetIndex]; dup || r.DatasetIndex%2 != shard {
				t.Errorf("shard %d sent dataset entry %d", shard, r.DatasetIndex)
			}
			got[r.DatasetIndex] = r.Intended
		}
	}
	want := map[int]time.Duration{}
	for i, r := range reqs {
		want[i] = r.At
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("intended times by dataset entry (-want +got):\n%s", diff)
	}
}
