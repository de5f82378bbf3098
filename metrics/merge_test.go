package metrics

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// saved round-trips a summary through JSON, as a result file does.
func saved(t *testing.T, s *Summary) *Summary {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Summary
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return &back
}

// record feeds reqs into a recorder and a series recorder sharing base.
func record(base time.Time, opts Options, reqs []*Request) *Summary {
	opts.Base = base
	r := NewRecorder(opts)
	sr := NewSeriesRecorder(base, time.Second)
	for _, req := range reqs {
		r.Add(req)
		sr.Add(req)
		sr.Observe(req.Sent, 1, 0)
	}
	s := r.Summary()
	s.Series = sr.Series()
	s.PeakOutputThroughput = s.Series.PeakOutput()
	return s
}

// TestMergeSummariesIsExact is the merge's contract: two recorders fed
// disjoint halves of a request set, saved, loaded and merged, give the
// same counts, percentiles, histograms, spans and throughputs as one
// recorder fed all of it.
func TestMergeSummariesIsExact(t *testing.T) {
	base := time.Date(2026, 12, 1, 10, 0, 0, 300_000_000, time.UTC)
	opts := Options{Goodput: SLO{TTFT: 300 * ms, ITL: 60 * ms}, Scheduled: true, LateThreshold: 10 * ms}
	reqs := randomRequests(7, 3000)
	for i, r := range reqs {
		// Sessions of four turns, so that the per-turn table merges too.
		r.Turn, r.Session, r.LastTurn = i%4+1, int64(i-i%4), i%4 == 3
		r.PromptTokens = 100 * r.Turn
		r.Retried = i%7 == 0
		if i%3 != 0 { // two in three prompts have a recorded answer
			r.ReferenceLen = 40 + i%50
		}
		r.End = r.Sent + r.E2E
		if !r.OK() {
			r.End = r.Sent + 5*ms
		}
	}
	var a, b []*Request
	for i, r := range reqs {
		if i%2 == 0 {
			a = append(a, r)
		} else {
			b = append(b, r)
		}
	}
	want := record(base, opts, reqs)
	got, err := MergeSummaries(saved(t, record(base, opts, a)), saved(t, record(base, opts, b)))
	if err != nil {
		t.Fatal(err)
	}
	// Mean and stddev are recombined from float sums: equal up to rounding.
	// In-flight counts are per-part samples, summed: compared apart.
	approx := cmpopts.EquateApprox(1e-12, 1e-9)
	ignore := cmpopts.IgnoreFields(Window{}, "InFlight")
	ignorePeak := cmpopts.IgnoreFields(Summary{}, "PeakConcurrency")
	if diff := cmp.Diff(saved(t, want), got, approx, ignore, ignorePeak, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("merged halves differ from one recorder (-want +got):\n%s", diff)
	}
	if got.TTFT.P99 != want.TTFT.P99 || got.ITL.P50 != want.ITL.P50 || got.TTFT.Histogram != want.TTFT.Histogram {
		t.Errorf("percentiles or histograms differ: p99 %v vs %v", got.TTFT.P99, want.TTFT.P99)
	}
	if got.PeakConcurrency != got.Series.PeakInFlight() || got.PeakConcurrency != 2 {
		t.Errorf("merged peak concurrency %d, want the fullest window's sum over the parts (2)", got.PeakConcurrency)
	}
	if len(got.Turns) != 4 || got.TTFTLastTurn.Count == 0 || got.Turns[3].TTFT.Histogram != want.Turns[3].TTFT.Histogram {
		t.Errorf("per-turn figures did not merge: %d turns, %d last-turn samples", len(got.Turns), got.TTFTLastTurn.Count)
	}
	if got.Completed+got.Failed < 2800 || got.RequestThroughput == 0 || got.StaleRetries == 0 || got.ReferenceTokens == 0 {
		t.Fatalf("the fixture is too small to mean anything: %+v", got)
	}
}

func TestMergeSummariesRefusesDifferentSchedules(t *testing.T) {
	a := &Summary{LateThreshold: 10, Scheduled: true}
	b := &Summary{LateThreshold: 10, Scheduled: false}
	if _, err := MergeSummaries(a, b); err == nil {
		t.Error("merging an open loop's summary with a closed loop's succeeded")
	}
}

func TestMergeSeriesAlignsWindows(t *testing.T) {
	w := func(sec int, started, tokens, inFlight int) Window {
		return Window{Start: time.Unix(int64(sec), 0).UTC(), Started: started, OutputTokens: tokens, InFlight: inFlight}
	}
	a := &Series{Interval: 1, Windows: []Window{w(100, 1, 10, 2), w(101, 2, 20, 3)}}
	b := &Series{Interval: 1, Windows: []Window{w(101, 5, 7, 4), w(103, 1, 1, 1)}}
	got, err := MergeSeries(a, b)
	if err != nil {
		t.Fatal(err)
	}
	want := &Series{Interval: 1, Windows: []Window{w(100, 1, 10, 2), w(101, 7, 27, 7), w(102, 0, 0, 0), w(103, 1, 1, 1)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("MergeSeries (-want +got):\n%s", diff)
	}
	if got.PeakOutput() != 27 || got.PeakInFlight() != 7 {
		t.Errorf("peaks %v, %v; want 27, 7", got.PeakOutput(), got.PeakInFlight())
	}
	if _, err := MergeSeries(a, &Series{Interval: 2}); err == nil {
		t.Error("merging series of different intervals succeeded")
	}
}

// TestSeriesRecorder checks window assignment: dispatches by dispatch
// time, outcomes by end time, tokens by the arrival of each event, and
// windows aligned on wall-clock seconds.
func TestSeriesRecorder(t *testing.T) {
	base := time.Date(2026, 12, 1, 10, 0, 0, 600_000_000, time.UTC) // 0.6 s into a second
	sr := NewSeriesRecorder(base, time.Second)
	// Sent at 0.1 s (wall 0.7), first token at 0.3 (wall 0.9), then tokens at
	// 0.5 and 0.7 (wall 1.1, 1.3): end in window 1.
	r := ok(100*ms, 0, 200*ms, 200*ms, 200*ms)
	r.Dispatched = 100 * ms
	r.End = r.Sent + r.E2E
	sr.Add(r)
	f := failed(ErrHTTPStatus)
	f.Dispatched, f.End = 1500*ms, 1600*ms // wall 2.1, 2.2
	sr.Add(f)
	sr.Add(with(ok(0, 0, ms), func(r *Request) { r.Warmup = true }))
	sr.Observe(50*ms, 3, 2)
	s := sr.Series()
	if len(s.Windows) != 3 {
		t.Fatalf("%d windows, want 3: %+v", len(s.Windows), s.Windows)
	}
	if !s.Windows[0].Start.Equal(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("window 0 starts at %v, want the whole second", s.Windows[0].Start)
	}
	type counts struct{ Started, Completed, Failed, Tokens, InFlight, Users int }
	var got []counts
	for _, w := range s.Windows {
		got = append(got, counts{w.Started, w.Completed, w.Failed, w.OutputTokens, w.InFlight, w.ActiveUsers})
	}
	want := []counts{{1, 0, 0, 1, 3, 2}, {0, 1, 0, 2, 0, 0}, {1, 0, 1, 0, 0, 0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("windows (-want +got):\n%s", diff)
	}
	if s.Windows[1].TTFT.Count != 1 || s.Windows[1].ITL.Count != 2 || s.Windows[0].TTFT.Count != 0 {
		t.Errorf("latencies land in the window the request ended in: %+v", s.Windows)
	}
	if math.Abs(s.PeakOutput()-2) > 1e-9 {
		t.Errorf("peak output %v, want 2", s.PeakOutput())
	}
}

// TestSeriesReopensClosedWindow: a request recorded after its window was
// closed still counts, exactly.
func TestSeriesReopensClosedWindow(t *testing.T) {
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	sr := NewSeriesRecorder(base, time.Second)
	add := func(end time.Duration) {
		r := ok(0, 0, 10*ms, 5*ms)
		r.End = end
		sr.Add(r)
	}
	add(100 * ms)
	sr.Close(5 * time.Second) // window 0 is closed and encoded
	add(200 * ms)
	s := sr.Series()
	if n := s.Windows[0].TTFT.Count; n != 2 {
		t.Errorf("window 0 holds %d TTFT samples, want 2", n)
	}
	if _, err := s.Windows[0].TTFT.DecodeHistogram(); err != nil {
		t.Error(err)
	}
}

// TestPoolSummariesSumsDurations: two runs an hour apart pool into the
// figures of their requests over the sum of their own durations, not the
// hour between them; counts and histograms are those of the merge.
func TestPoolSummariesSumsDurations(t *testing.T) {
	opts := Options{Scheduled: true, LateThreshold: 10 * ms}
	reqs := randomRequests(11, 1200)
	for _, r := range reqs {
		r.End = r.Sent + r.E2E
		if !r.OK() {
			r.End = r.Sent + 5*ms
		}
	}
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	a := saved(t, record(base, opts, reqs[:600]))
	b := saved(t, record(base.Add(time.Hour), opts, reqs[600:]))
	got, err := PoolSummaries(a, b)
	if err != nil {
		t.Fatal(err)
	}
	merged, err := MergeSummaries(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Completed != merged.Completed || got.TTFT.Histogram != merged.TTFT.Histogram || got.TTFT.P99 != merged.TTFT.P99 {
		t.Errorf("pooled counts or histograms differ from the merge: %d vs %d completed", got.Completed, merged.Completed)
	}
	approx := func(x, y float64) bool { return math.Abs(x-y) <= 1e-9*math.Max(1, math.Abs(y)) }
	if want := a.Duration + b.Duration; !approx(got.Duration, want) {
		t.Errorf("pooled duration %v s, want the sum of the runs' %v s", got.Duration, want)
	}
	if want := float64(a.TotalOutputTokens+b.TotalOutputTokens) / (a.Duration + b.Duration); !approx(got.OutputThroughput, want) {
		t.Errorf("pooled output throughput %v, want %v", got.OutputThroughput, want)
	}
	if merged.Duration < 3600 || merged.OutputThroughput >= got.OutputThroughput/10 {
		t.Fatalf("the fixture does not show the union's inflation: merged duration %v s", merged.Duration)
	}
	spans := a.LastDispatch.Sub(a.FirstDispatch) + b.LastDispatch.Sub(b.FirstDispatch)
	if want := float64(a.Dispatches+b.Dispatches-2) / spans.Seconds(); !approx(got.AchievedRate, want) {
		t.Errorf("pooled achieved rate %v, want %v", got.AchievedRate, want)
	}
	if want := len(a.Series.Windows) + len(b.Series.Windows); len(got.Series.Windows) != want {
		t.Errorf("pooled series has %d windows, want the runs' %d (the hour between them dropped)", len(got.Series.Windows), want)
	}
}
