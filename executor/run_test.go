package executor

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/executor/executortest"
	"github.com/llmload/llmload/metrics"
)

// requests returns n dataset requests asking for tokens tokens each.
func requests(n, tokens int) []dataset.Request {
	out := make([]dataset.Request, n)
	for i := range out {
		out[i] = dataset.Request{Index: i, Prompt: "p", PromptLen: 3, OutputLen: tokens}
	}
	return out
}

func mustRun(t *testing.T, ctx context.Context, p Plan) *Outcome {
	t.Helper()
	p.KeepResults = true
	out, err := Run(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// recorded is an Observer that keeps what it is told.
type recorded struct {
	ids       []int64
	snapshots []metrics.Snapshot
}

func (o *recorded) Result(r *metrics.Request)   { o.ids = append(o.ids, r.ID) }
func (o *recorded) Snapshot(s metrics.Snapshot) { o.snapshots = append(o.snapshots, s) }

func TestRunOpenLoop(t *testing.T) {
	srv := executortest.New(executortest.Config{TTFT: 5 * time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	o := OpenLoop{Rate: 200, Arrival: ArrivalPoisson}
	var obs recorded
	out := mustRun(t, context.Background(), Plan{
		Target:      Target{BaseURL: srv.URL, Timeout: 10 * time.Second},
		Requests:    requests(7, 4),
		Open:        &o,
		MaxRequests: 40,
		Seed:        3,
		Observers:   []Observer{&obs},
	})
	if out.Overall.Completed != 40 || out.Overall.Failed != 0 || srv.Count() != 40 {
		t.Fatalf("completed %d, failed %d, server saw %d; want 40, 0, 40", out.Overall.Completed, out.Overall.Failed, srv.Count())
	}
	if len(obs.ids) != 40 {
		t.Errorf("Result called %d times, want 40", len(obs.ids))
	}
	if n := len(obs.snapshots); n == 0 || !obs.snapshots[n-1].Final {
		t.Errorf("snapshots %+v: want a final one last", obs.snapshots)
	} else if last := obs.snapshots[n-1]; last.Sent != 40 || last.Completed != 40 || last.Planned != 40 || last.InFlight != 0 {
		t.Errorf("final snapshot %+v: want 40 planned, sent and completed, none in flight", last)
	}
	// Dispatch follows the schedule, in its order, never ahead of it: how
	// closely it keeps to it is the machine's (TestRunOpenLoopKeepsSchedule
	// checks the dispatcher's part on a fake clock).
	sched := Schedule(o, 40, 3)
	for i, r := range out.Results {
		if r.ID != int64(i) || r.Intended != sched[i] || r.DatasetIndex != i%7 {
			t.Fatalf("result %d: id %d, intended %v, dataset index %d; want %d, %v, %d", i, r.ID, r.Intended, r.DatasetIndex, i, sched[i], i%7)
		}
		if r.Dispatched < r.Intended || r.Sent < r.Dispatched || r.RequestID == "" {
			t.Fatalf("result %d: intended %v, dispatched %v, sent %v, request id %q", i, r.Intended, r.Dispatched, r.Sent, r.RequestID)
		}
		if i > 0 && r.Dispatched < out.Results[i-1].Dispatched {
			t.Errorf("result %d dispatched at %v, before result %d (%v): out of the schedule's order", i, r.Dispatched, i-1, out.Results[i-1].Dispatched)
		}
	}
	if out.ConfiguredRate != 200 {
		t.Errorf("configured rate %v", out.ConfiguredRate)
	}
	if out.Interrupted || out.Stages != nil {
		t.Errorf("interrupted %v, stages %v", out.Interrupted, out.Stages)
	}
	ids := map[string]bool{}
	for _, r := range srv.Received() {
		ids[r.Header.Get("X-Request-Id")] = true
	}
	if len(ids) != 40 {
		t.Errorf("%d distinct x-request-id values, want 40", len(ids))
	}
}

// The open loop dispatches each request at its scheduled time, whatever
// the requests in flight: on the fake clock of a testing/synctest bubble,
// where waiting takes exactly its time and nothing else takes any, every
// dispatch lands on its arrival and the achieved rate is the schedule's.
// Each request lasts 10 arrival gaps, so most start while others stream.
func TestRunOpenLoopKeepsSchedule(t *testing.T) {
	inBubble(t, executortest.Config{TTFT: 50 * time.Millisecond, ITL: time.Millisecond}, func(t *testing.T, srv *executortest.Server) {
		o := OpenLoop{Rate: 200, Arrival: ArrivalPoisson}
		out := mustRun(t, context.Background(), Plan{
			Target:      Target{BaseURL: srv.URL, Timeout: 10 * time.Second},
			Requests:    requests(7, 4),
			Open:        &o,
			MaxRequests: 40,
			Seed:        3,
		})
		if s := out.Overall; s.Completed != 40 || s.PeakConcurrency < 5 {
			t.Fatalf("completed %d, peak concurrency %d; want 40 completed, several at once (errors %v)", s.Completed, s.PeakConcurrency, s.Errors)
		}
		sched := Schedule(o, 40, 3)
		for i, r := range out.Results {
			if r.Intended != sched[i] || r.Dispatched != r.Intended {
				t.Errorf("result %d: intended %v, dispatched %v; want both at the schedule's %v", i, r.Intended, r.Dispatched, sched[i])
			}
		}
		want := 39 / sched[39].Seconds()
		if got := 39 / (out.Results[39].Dispatched - out.Results[0].Dispatched).Seconds(); got != want {
			t.Errorf("achieved rate %v/s, want the schedule's %v/s", got, want)
		}
	})
}

func TestRunMaxConcurrency(t *testing.T) {
	srv := executortest.New(executortest.Config{TTFT: 20 * time.Millisecond})
	defer srv.Close()
	out := mustRun(t, context.Background(), Plan{
		Target:      Target{BaseURL: srv.URL},
		Requests:    requests(1, 2),
		Open:        &OpenLoop{Rate: math.Inf(1), MaxConcurrency: 3},
		MaxRequests: 15,
	})
	if got := srv.MaxConcurrent(); got > 3 {
		t.Errorf("server saw %d concurrent requests, want at most 3", got)
	}
	if out.Overall.Completed != 15 || out.Overall.PeakConcurrency > 3 || out.Overall.PeakConcurrency < 1 {
		t.Errorf("completed %d, peak concurrency %d", out.Overall.Completed, out.Overall.PeakConcurrency)
	}
	// Arrivals beyond the cap queue: the last ones waited for several
	// requests' worth of time.
	last := out.Results[len(out.Results)-1]
	if q := last.Queue(); q < 40*time.Millisecond {
		t.Errorf("last request queued %v, want at least 40ms", q)
	}
	// Queueing for a slot is not dispatch lag: the dispatcher released it
	// on schedule, long before a slot was free. (Compared with the queue
	// time, not a fixed bound: under the race detector on a busy machine
	// the dispatcher itself can be a few milliseconds late.)
	if last.Lag() > last.Queue()/2 {
		t.Errorf("last request's dispatch lag %v of a %v queue: queueing leaked into lag", last.Lag(), last.Queue())
	}
}

func TestRunClosedLoopUsers(t *testing.T) {
	srv := executortest.New(executortest.Config{TTFT: 3 * time.Millisecond, ITL: time.Millisecond, Tokens: 3})
	defer srv.Close()
	stages := []Stage{
		{Users: 2, Duration: 150 * time.Millisecond},
		{Users: 5, Duration: 200 * time.Millisecond, Ramp: 100 * time.Millisecond},
		{Users: 1, Duration: 150 * time.Millisecond},
	}
	out := mustRun(t, context.Background(), Plan{
		Target:   Target{BaseURL: srv.URL},
		Requests: requests(3, 8),
		Closed:   &ClosedLoop{Stages: stages, ThinkMin: time.Millisecond, ThinkMax: 3 * time.Millisecond},
		Seed:     1,
	})
	if got := srv.MaxConcurrent(); got > 5 {
		t.Errorf("server saw %d concurrent requests, want at most 5 (the most users of any stage)", got)
	}
	if len(out.Stages) != 3 {
		t.Fatalf("%d stage outcomes, want 3", len(out.Stages))
	}
	sum := 0
	for i, s := range out.Stages {
		if s.Index != i || s.Users != stages[i].Users || s.Summary.Completed == 0 {
			t.Errorf("stage %d: index %d, users %d, completed %d", i, s.Index, s.Users, s.Summary.Completed)
		}
		if s.Summary.PeakConcurrency > maxUsersBefore(stages, i) {
			t.Errorf("stage %d: peak concurrency %d", i, s.Summary.PeakConcurrency)
		}
		sum += s.Summary.Completed + s.Summary.Failed
	}
	if sum != out.Overall.Completed+out.Overall.Failed || out.Overall.Failed != 0 {
		t.Errorf("stages hold %d requests, overall %d completed + %d failed", sum, out.Overall.Completed, out.Overall.Failed)
	}
	for _, r := range out.Results {
		if want := stageAt(stages, r.Dispatched); r.Stage != want {
			t.Fatalf("request %d dispatched at %v is in stage %d, want %d", r.ID, r.Dispatched, r.Stage, want)
		}
	}
	if out.ConfiguredRate != 0 {
		t.Errorf("closed loop configured rate %v, want 0", out.ConfiguredRate)
	}
	// Dispatch stops at the end of the stages.
	if last := out.Results[len(out.Results)-1].Dispatched; last > 500*time.Millisecond {
		t.Errorf("last dispatch at %v, after the stages ended (500ms)", last)
	}
}

// maxUsersBefore is the most users a stage can see in flight: its own and
// (finishing their requests) the previous stage's.
func maxUsersBefore(stages []Stage, i int) int {
	n := stages[i].Users
	if i > 0 {
		n = max(n, stages[i-1].Users)
	}
	return n
}

// With one user and a request count the server never sees two requests at
// once and gets exactly that many.
func TestRunClosedLoopRequests(t *testing.T) {
	srv := executortest.New(executortest.Config{Tokens: 2})
	defer srv.Close()
	out := mustRun(t, context.Background(), Plan{
		Target:      Target{BaseURL: srv.URL},
		Requests:    requests(4, 2),
		Closed:      &ClosedLoop{Stages: []Stage{{Users: 3}}},
		MaxRequests: 25,
	})
	if out.Overall.Completed != 25 || srv.Count() != 25 || srv.MaxConcurrent() > 3 {
		t.Errorf("completed %d, server saw %d requests, %d at once; want 25, 25, <= 3", out.Overall.Completed, srv.Count(), srv.MaxConcurrent())
	}
	// Keep-alive: connections are reused. (A request may dial while the
	// previous one's connection is on its way back to the idle pool, so a
	// few more than 3 can open; without reuse there would be 25.)
	if n := srv.Conns(); n > 6 {
		t.Errorf("server accepted %d connections for 3 users and 25 requests, want at most 6", n)
	}
	counts := map[int]int{}
	for _, r := range out.Results {
		counts[r.DatasetIndex]++
	}
	if diff := cmp.Diff(map[int]int{0: 7, 1: 6, 2: 6, 3: 6}, counts); diff != "" {
		t.Errorf("dataset entries sent (-want +got):\n%s", diff)
	}
}

func TestRunWarmup(t *testing.T) {
	srv := executortest.New(executortest.Config{})
	defer srv.Close()
	var obs recorded
	out := mustRun(t, context.Background(), Plan{
		Target:      Target{BaseURL: srv.URL},
		Requests:    requests(5, 3),
		Open:        &OpenLoop{Rate: math.Inf(1)},
		MaxRequests: 5,
		Warmup:      3,
		Observers:   []Observer{&obs},
	})
	if srv.Count() != 8 || len(out.Results) != 8 || out.Overall.Completed != 5 {
		t.Fatalf("server saw %d, results %d, completed %d; want 8, 8, 5", srv.Count(), len(out.Results), out.Overall.Completed)
	}
	for i, r := range out.Results {
		if want := i < 3; r.Warmup != want {
			t.Errorf("result %d: warmup %v, want %v", i, r.Warmup, want)
		}
		if r.Warmup && r.Sent >= 0 {
			t.Errorf("warmup result %d sent at %v, want before the start (negative)", i, r.Sent)
		}
	}
	// Measured requests start after the warmup ones in the dataset.
	var warm []int
	for _, r := range out.Results[:3] {
		warm = append(warm, r.DatasetIndex)
	}
	slices.Sort(warm) // warmup requests run side by side
	if diff := cmp.Diff([]int{0, 1, 2}, warm); diff != "" {
		t.Errorf("warmup dataset indexes (-want +got):\n%s", diff)
	}
	var measured []int
	for _, r := range out.Results[3:] {
		measured = append(measured, r.DatasetIndex)
	}
	if diff := cmp.Diff([]int{3, 4, 0, 1, 2}, measured); diff != "" {
		t.Errorf("measured dataset indexes (-want +got):\n%s", diff)
	}
	if n := len(obs.ids); n != 8 {
		t.Errorf("observer saw %d results, want 8 (warmup included)", n)
	}
	if last := obs.snapshots[len(obs.snapshots)-1]; !last.Final || last.Completed != 5 || last.Sent != 5 {
		t.Errorf("final snapshot %+v: want 5 sent and completed (warmup excluded)", last)
	}
}

// A closed loop's measured requests also start after the warmup ones.
func TestRunClosedLoopWarmupPlaces(t *testing.T) {
	srv := executortest.New(executortest.Config{Tokens: 1})
	defer srv.Close()
	out := mustRun(t, context.Background(), Plan{
		Target:      Target{BaseURL: srv.URL},
		Requests:    requests(4, 1),
		Closed:      &ClosedLoop{Stages: []Stage{{Users: 1}}},
		MaxRequests: 3,
		Warmup:      2,
	})
	var got []int
	for _, r := range out.Results {
		if !r.Warmup {
			got = append(got, r.DatasetIndex)
		}
	}
	if diff := cmp.Diff([]int{2, 3, 0}, got); diff != "" {
		t.Errorf("measured dataset indexes (-want +got):\n%s", diff)
	}
}

// Ctrl-C: dispatch stops, requests in flight are canceled, the partial
// outcome comes back without error. Two users; the fifth and sixth requests
// hang, and the run is interrupted once both are at the server (by then the
// first four have completed: each user sends only after its last request).
func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := executortest.New(executortest.Config{Vary: func(i int, c *executortest.Config) {
		if i >= 4 {
			c.TTFT = time.Minute
		}
		if i == 5 {
			time.AfterFunc(20*time.Millisecond, cancel)
		}
	}})
	defer srv.Close()
	began := time.Now()
	out := mustRun(t, ctx, Plan{
		Target:   Target{BaseURL: srv.URL, Timeout: time.Minute},
		Requests: requests(1, 2),
		Closed:   &ClosedLoop{Stages: []Stage{{Users: 2, Duration: time.Minute}}},
	})
	if took := time.Since(began); took > 10*time.Second {
		t.Errorf("took %v to stop", took)
	}
	if !out.Interrupted {
		t.Error("Interrupted not set")
	}
	// The two cut off are canceled: counted apart, not as failures. (The
	// users' requests may reach the server in another order than their IDs.)
	kinds := map[metrics.ErrorKind]int{}
	for _, r := range out.Results {
		kinds[r.Error]++
	}
	want := map[metrics.ErrorKind]int{"": 4, metrics.ErrCanceled: 2}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	if s := out.Overall; s.Completed != 4 || s.Failed != 0 || s.Canceled != 2 {
		t.Errorf("completed %d, failed %d, canceled %d; want 4, 0, 2", s.Completed, s.Failed, s.Canceled)
	}
}

// Ctrl-C with arrivals queued for a concurrency slot: the request in flight
// is canceled, the queued ones were never attempted and are not recorded.
func TestRunInterruptedQueue(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := executortest.New(executortest.Config{TTFT: time.Minute, Vary: func(i int, _ *executortest.Config) {
		if i == 0 {
			time.AfterFunc(20*time.Millisecond, cancel)
		}
	}})
	defer srv.Close()
	out := mustRun(t, ctx, Plan{
		Target:      Target{BaseURL: srv.URL, Timeout: time.Minute},
		Requests:    requests(1, 2),
		Open:        &OpenLoop{Rate: math.Inf(1), MaxConcurrency: 1},
		MaxRequests: 5,
	})
	if !out.Interrupted || srv.Count() != 1 {
		t.Fatalf("interrupted %v, server saw %d requests; want true, 1", out.Interrupted, srv.Count())
	}
	var kinds []metrics.ErrorKind
	for _, r := range out.Results {
		kinds = append(kinds, r.Error)
	}
	if diff := cmp.Diff([]metrics.ErrorKind{metrics.ErrCanceled}, kinds); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	if s := out.Overall; s.Completed != 0 || s.Failed != 0 || s.Canceled != 1 {
		t.Errorf("completed %d, failed %d, canceled %d; want 0, 0, 1", s.Completed, s.Failed, s.Canceled)
	}
}

// Every dispatched request is sent, however long it waits for its slot (a
// vLLM --max-concurrency run): the target timeout bounds each request, and
// the drain only after the last one was sent. With rate inf every arrival
// is dispatched at 0, and 8 requests of 300 ms take 2.4 s through one slot,
// over twice the 1 s timeout.
func TestRunQueuedRequestsAllSent(t *testing.T) {
	srv := executortest.New(executortest.Config{TTFT: 300 * time.Millisecond, Tokens: 1})
	defer srv.Close()
	out := mustRun(t, context.Background(), Plan{
		Target:      Target{BaseURL: srv.URL, Timeout: time.Second},
		Requests:    requests(1, 1),
		Open:        &OpenLoop{Rate: math.Inf(1), MaxConcurrency: 1},
		MaxRequests: 8,
	})
	if s := out.Overall; s.Completed != 8 || srv.Count() != 8 {
		t.Errorf("completed %d, errors %v, server saw %d; want 8 completed and sent", s.Completed, s.Errors, srv.Count())
	}
	if q := out.Results[7].Queue(); q < 2*time.Second {
		t.Errorf("last request queued %v, want about 2.1s", q)
	}
}

// A request that never ends is cut off by its own timeout, and the run
// ends. On the fake clock of a testing/synctest bubble the 100 ms requests
// take exactly 100 ms, well inside the 250 ms timeout, and the hung one is
// cut exactly at it: the run ends 450 ms in.
func TestRunHungLastRequest(t *testing.T) {
	cfg := executortest.Config{TTFT: 100 * time.Millisecond, Tokens: 1, Vary: func(i int, c *executortest.Config) {
		if i == 2 {
			c.TTFT = time.Minute
		}
	}}
	inBubble(t, cfg, func(t *testing.T, srv *executortest.Server) {
		out := mustRun(t, context.Background(), Plan{
			Target:      Target{BaseURL: srv.URL, Timeout: 250 * time.Millisecond},
			Requests:    requests(1, 1),
			Open:        &OpenLoop{Rate: math.Inf(1), MaxConcurrency: 1},
			MaxRequests: 3,
		})
		var kinds []metrics.ErrorKind
		for _, r := range out.Results {
			kinds = append(kinds, r.Error)
		}
		if diff := cmp.Diff([]metrics.ErrorKind{"", "", metrics.ErrTimeout}, kinds); diff != "" {
			t.Errorf("outcomes (-want +got):\n%s", diff)
		}
		if last := out.Results[len(out.Results)-1]; last.End-last.Sent != 250*time.Millisecond || out.Elapsed != 450*time.Millisecond {
			t.Errorf("hung request cut %v after it was sent, run ended at %v; want 250ms (its timeout), 450ms", last.End-last.Sent, out.Elapsed)
		}
	})
}

func TestRunDuration(t *testing.T) {
	srv := executortest.New(executortest.Config{Tokens: 1})
	defer srv.Close()
	out := mustRun(t, context.Background(), Plan{
		Target:      Target{BaseURL: srv.URL},
		Requests:    requests(1, 1),
		Open:        &OpenLoop{Rate: 100, Arrival: ArrivalConstant},
		MaxRequests: 1000,
		Duration:    100 * time.Millisecond,
	})
	if n := len(out.Results); n != 10 {
		t.Errorf("%d requests in 100ms at 100/s (constant), want 10", n)
	}
}

func TestRunSetupErrors(t *testing.T) {
	ok := Plan{Target: Target{BaseURL: "http://127.0.0.1:1"}, Requests: requests(1, 1), Open: &OpenLoop{Rate: 1}}
	for _, tc := range []struct {
		name string
		edit func(*Plan)
		want string
	}{
		{"bad url", func(p *Plan) { p.Target.BaseURL = "127.0.0.1:8000" }, "base_url"},
		{"bad api", func(p *Plan) { p.Target.API = "tgi" }, "api"},
		{"missing CA file", func(p *Plan) { p.Target.CAFile = "testdata/nope.pem" }, "ca_file"},
		{"CA file without PEM", func(p *Plan) { p.Target.CAFile = "testdata/sse/basic.sse" }, "no PEM"},
		{"no requests", func(p *Plan) { p.Requests = nil }, "no requests"},
		{"both loops", func(p *Plan) { p.Closed = &ClosedLoop{Stages: []Stage{{Users: 1, Duration: 1}}} }, "exactly one"},
		{"no rate", func(p *Plan) { p.Open.Rate = 0 }, "rate"},
		{"bad arrival", func(p *Plan) { p.Open.Arrival = "uniform" }, "arrival"},
		{"gamma without burstiness", func(p *Plan) { p.Open.Arrival = ArrivalGamma }, "burstiness"},
		{"endless closed loop", func(p *Plan) { p.Open = nil; p.Closed = &ClosedLoop{Stages: []Stage{{Users: 1}}} }, "no end"},
		{"unbounded middle stage", func(p *Plan) {
			p.Open = nil
			p.Closed = &ClosedLoop{Stages: []Stage{{Users: 1}, {Users: 2, Duration: 1}}}
		}, "only the last stage"},
		{"think range", func(p *Plan) {
			p.Open = nil
			p.Closed = &ClosedLoop{Stages: []Stage{{Users: 1, Duration: 1}}, ThinkMin: 2, ThinkMax: 1}
		}, "think"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := ok
			o := *ok.Open
			p.Open = &o
			tc.edit(&p)
			_, err := Run(context.Background(), p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

// KeepText keeps every request's generated text for the observers, even
// when usage gives the count and no tokenizer needs the text; without it
// the text is dropped.
func TestRunKeepText(t *testing.T) {
	srv := executortest.New(executortest.Config{Tokens: 3, Text: "ab "})
	defer srv.Close()
	for _, keep := range []bool{true, false} {
		out := mustRun(t, context.Background(), Plan{
			Target:   Target{BaseURL: srv.URL},
			Requests: requests(2, 3),
			Open:     &OpenLoop{Rate: math.Inf(1)},
			KeepText: keep,
		})
		for _, r := range out.Results {
			want := ""
			if keep {
				want = "ab ab ab "
			}
			if r.GeneratedText != want || r.OutputTokensSource != metrics.SourceUsage {
				t.Errorf("KeepText %v: text %q (tokens from %s), want %q (from usage)", keep, r.GeneratedText, r.OutputTokensSource, want)
			}
		}
	}
}

// A stage's mean users is what ran, not its target: a ramp from 4 to 20
// users over the whole stage averages about 12. The users are sampled every
// 100 ms; on the fake clock of a testing/synctest bubble each sample sees
// exactly the users the ramp's steps had let in by then, so the means are
// exact. The stages are laid out so that no step falls on a sample.
func TestRunClosedLoopMeanUsers(t *testing.T) {
	inBubble(t, executortest.Config{TTFT: 2 * time.Millisecond, ITL: time.Millisecond, Tokens: 3}, func(t *testing.T, srv *executortest.Server) {
		stages := []Stage{
			{Users: 4, Duration: 450 * time.Millisecond},
			{Users: 20, Duration: 640 * time.Millisecond, Ramp: 640 * time.Millisecond},
		}
		out := mustRun(t, context.Background(), Plan{
			Target:   Target{BaseURL: srv.URL},
			Requests: requests(3, 8),
			Closed:   &ClosedLoop{Stages: stages, ThinkMin: 5 * time.Millisecond, ThinkMax: 5 * time.Millisecond},
		})
		if len(out.Stages) != 2 {
			t.Fatalf("%d stages, want 2", len(out.Stages))
		}
		// Stage 1 is sampled at 100 to 400 ms, 4 users each time.
		if got := out.Stages[0].MeanUsers; got != 4 {
			t.Errorf("stage 1 (4 users throughout): mean users %v, want 4", got)
		}
		// The ramp lets one more user in every 40 ms from 450 ms on (5 at
		// 450, 6 at 490, ...); the samples at 500 to 1000 ms see 6, 8, 11,
		// 13, 16 and 18 users: 12 on average, well under the 20 targeted.
		if got := out.Stages[1].MeanUsers; got != 12 {
			t.Errorf("stage 2 (ramp 4 -> 20 over the stage): mean users %v, want 12", got)
		}
	})
}
