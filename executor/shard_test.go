package executor

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/llmload/llmload/executor/executortest"
)

func TestShareOf(t *testing.T) {
	for _, n := range []int{0, 1, 3, 7, 40, 41} {
		for _, shards := range []int{1, 2, 3, 4, 8} {
			sum, lo, hi := 0, n, 0
			for i := range shards {
				s := ShareOf(n, i, shards)
				sum += s
				lo, hi = min(lo, s), max(hi, s)
			}
			if sum != n || hi-lo > 1 {
				t.Errorf("ShareOf(%d, i, %d): shares add to %d (want %d), spread %d..%d", n, shards, sum, n, lo, hi)
			}
		}
	}
}

// TestArrivalsSharded: the shards' arrivals, dealt back in turn, are the
// unsharded schedule, with a duration cut too.
func TestArrivalsSharded(t *testing.T) {
	for _, p := range []Plan{
		{Requests: requests(5, 4), Open: &OpenLoop{Rate: 50}, MaxRequests: 101, Seed: 7},
		{Requests: requests(5, 4), Open: &OpenLoop{Rate: 50, Arrival: ArrivalGamma, Burstiness: 0.5}, MaxRequests: 100, Seed: 1, Duration: time.Second},
	} {
		whole := Arrivals(p)
		for _, shards := range []int{2, 3, 4} {
			var union []time.Duration
			parts := make([][]time.Duration, shards)
			for i := range shards {
				q := p
				q.Shard, q.Shards = i, shards
				parts[i] = Arrivals(q)
			}
			for k := range whole {
				i, j := k%shards, k/shards
				if j >= len(parts[i]) {
					t.Fatalf("%d shards: shard %d has %d arrivals, arrival %d of the whole run missing", shards, i, len(parts[i]), k)
				}
				union = append(union, parts[i][j])
			}
			if diff := cmp.Diff(whole, union); diff != "" {
				t.Errorf("%d shards (-whole +union):\n%s", shards, diff)
			}
		}
	}
}

// TestRunShardedOpenLoop runs an open loop whole and as 3 shards against
// the fake server: the shards together send the same intended times with
// the same prompts, and their request ids do not collide.
func TestRunShardedOpenLoop(t *testing.T) {
	srv := executortest.New(executortest.Config{TTFT: time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	plan := Plan{
		Target:      Target{BaseURL: srv.URL, Timeout: 10 * time.Second},
		Requests:    requests(7, 3),
		Open:        &OpenLoop{Rate: 400},
		MaxRequests: 50,
		Warmup:      2,
		Seed:        5,
	}
	type sent struct {
		intended time.Duration
		index    int
	}
	var whole, union []sent
	for _, r := range mustRun(t, context.Background(), plan).Results {
		if !r.Warmup {
			whole = append(whole, sent{r.Intended, r.DatasetIndex})
		}
	}
	ids := map[string]bool{}
	for i := range 3 {
		p := plan
		p.Shard, p.Shards = i, 3
		out := mustRun(t, context.Background(), p)
		warm := 0
		for _, r := range out.Results {
			if ids[r.RequestID] || !strings.Contains(r.RequestID, "-s"+string(rune('0'+i))+"-") {
				t.Errorf("shard %d: request id %q repeated or without the shard", i, r.RequestID)
			}
			ids[r.RequestID] = true
			if r.Warmup {
				warm++
				continue
			}
			union = append(union, sent{r.Intended, r.DatasetIndex})
		}
		if warm != 2 {
			t.Errorf("shard %d sent %d warmup requests, want 2 (warmup is per shard)", i, warm)
		}
		if want := ShareOf(50, i, 3); out.Overall.Completed != want || out.Planned != want {
			t.Errorf("shard %d completed %d of %d planned, want %d", i, out.Overall.Completed, out.Planned, want)
		}
	}
	cmpSent := func(a, b sent) int { return int(a.intended - b.intended) }
	slices.SortStableFunc(whole, cmpSent)
	slices.SortStableFunc(union, cmpSent)
	if diff := cmp.Diff(whole, union, cmp.AllowUnexported(sent{})); diff != "" {
		t.Errorf("shards' (intended, prompt) differ from the whole run's (-whole +shards):\n%s", diff)
	}
}

// TestRunShardedClosedLoop: a closed loop's users and request limit split
// across shards, prompts do not repeat across them, and the stages report
// each shard's users.
func TestRunShardedClosedLoop(t *testing.T) {
	srv := executortest.New(executortest.Config{TTFT: time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	plan := Plan{
		Target:      Target{BaseURL: srv.URL, Timeout: 10 * time.Second},
		Requests:    requests(100, 2),
		Closed:      &ClosedLoop{Stages: []Stage{{Users: 5}}},
		MaxRequests: 23,
		Seed:        1,
	}
	var places []int
	users := 0
	for i := range 3 {
		p := plan
		p.Shard, p.Shards = i, 3
		out := mustRun(t, context.Background(), p)
		if want := ShareOf(23, i, 3); out.Overall.Completed != want {
			t.Errorf("shard %d completed %d, want %d", i, out.Overall.Completed, want)
		}
		users += out.Stages[0].Users
		for _, r := range out.Results {
			places = append(places, r.DatasetIndex)
		}
	}
	slices.Sort(places)
	want := make([]int, 23)
	for k := range want {
		want[k] = k
	}
	if diff := cmp.Diff(want, places); diff != "" {
		t.Errorf("dataset places of the shards (-want +got):\n%s", diff)
	}
	if users != 5 {
		t.Errorf("the shards' stage users add to %d, want 5", users)
	}
}

// TestRunStartAt: time zero is StartAt, after warmup, and a StartAt already
// past keeps its instant and reports how late the shard was. It runs on
// the fake clock of a testing/synctest bubble, where setting up the run
// and its warmup request take no time: a StartAt 300 ms ahead is met
// exactly, whatever the machine is doing.
func TestRunStartAt(t *testing.T) {
	inBubble(t, executortest.Config{TTFT: time.Millisecond, ITL: time.Millisecond}, func(t *testing.T, srv *executortest.Server) {
		plan := Plan{
			Target:      Target{BaseURL: srv.URL, Timeout: 10 * time.Second},
			Requests:    requests(3, 2),
			Open:        &OpenLoop{Rate: 1000},
			MaxRequests: 3,
			Warmup:      1,
		}
		at := time.Now().Add(300 * time.Millisecond).Round(0)
		plan.StartAt = at
		out := mustRun(t, context.Background(), plan)
		if d := out.Started.Sub(at); d != 0 || out.StartLate != 0 {
			t.Errorf("time zero %v after StartAt, late %v; want exactly StartAt, not late", d, out.StartLate)
		}
		if first := out.Results[1]; first.Warmup || out.Started.Add(first.Dispatched).Before(at) {
			t.Errorf("first measured request dispatched %v after time zero: before StartAt", first.Dispatched)
		}
		if w := out.Results[0]; !w.Warmup || w.End >= 0 {
			t.Errorf("warmup %v, ended %v from time zero; want the warmup request done before it", w.Warmup, w.End)
		}
		plan.StartAt = time.Now().Add(-time.Second)
		out = mustRun(t, context.Background(), plan)
		if out.StartLate < time.Second || !out.Started.Equal(plan.StartAt) {
			t.Errorf("past StartAt: late %v, time zero %v; want >= 1s late, time zero at StartAt", out.StartLate, out.Started)
		}
	})
}
