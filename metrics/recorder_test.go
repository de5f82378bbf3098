package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const ms = time.Millisecond

// ok builds a successful request sent at intended+queue with the given
// TTFT and gaps; E2E is TTFT plus the gaps and there is one token per event.
func ok(intended, queue, ttft time.Duration, gaps ...time.Duration) *Request {
	e2e := ttft
	for _, g := range gaps {
		e2e += g
	}
	return &Request{
		Intended: intended, Dispatched: intended, Sent: intended + queue,
		TTFT: ttft, ITL: gaps, E2E: e2e,
		PromptTokens: 12, PromptTokensSource: SourceUsage, DatasetPromptTokens: 10,
		OutputTokens: len(gaps) + 1, OutputTokensSource: SourceUsage, OutputEvents: len(gaps) + 1,
		MaxTokens: 100, FinishReason: "stop",
	}
}

func failed(kind ErrorKind) *Request {
	return &Request{Error: kind, ErrorMessage: string(kind)}
}

func with(r *Request, f func(*Request)) *Request { f(r); return r }

// counts is the Summary without its latency distributions.
func counts(s *Summary) Summary {
	c := *s
	for _, m := range Catalogue {
		if m.Kind == Distribution {
			*m.Dist(&c) = Latency{}
		}
	}
	return c
}

func TestRecorderCounts(t *testing.T) {
	tests := []struct {
		name     string
		opts     Options
		reqs     []*Request
		duration time.Duration
		want     Summary
	}{
		{
			name:     "empty",
			duration: time.Second,
			want:     Summary{Errors: map[ErrorKind]int{}, Duration: 1},
		},
		{
			name:     "zero duration leaves throughputs at zero",
			reqs:     []*Request{ok(0, 0, 100*ms, 10*ms)},
			duration: 0,
			want: Summary{TokenCountsCompared: 1, Completed: 1, Errors: map[ErrorKind]int{}, Finish: map[string]int{"stop": 1}, TotalInputTokens: 10, ServerInputTokens: 12, TotalOutputTokens: 2,
				GoodRequests: 1, GoodOutputTokens: 2, Dispatches: 1, TokenStreams: 1},
		},
		{
			name: "successes failures warmup and truncation",
			reqs: []*Request{
				ok(0, 0, 100*ms, 10*ms, 10*ms),                                      // 3 tokens
				with(ok(0, 0, 100*ms, 10*ms), func(r *Request) { r.Warmup = true }), // ignored
				with(ok(0, 0, 100*ms), func(r *Request) { r.FinishReason = "length" }),
				with(ok(0, 0, 100*ms), func(r *Request) { r.FinishReason = "length"; r.IgnoreEOS = true }),
				with(ok(0, 0, 100*ms, 10*ms), func(r *Request) { r.OutputTokensSource = SourceEvents }),
				failed(ErrHTTPStatus), failed(ErrHTTPStatus), failed(ErrStall),
				with(failed(ErrTimeout), func(r *Request) { r.Warmup = true }),
				// Cut off by Ctrl-C: counted apart, not a failure, no queue sample.
				with(failed(ErrCanceled), func(r *Request) { r.Sent = time.Hour }),
			},
			duration: 2 * time.Second,
			want: Summary{
				TokenCountsCompared: 3,
				Completed:           4, Failed: 3, Canceled: 1,
				Errors:             map[ErrorKind]int{ErrHTTPStatus: 2, ErrStall: 1},
				Finish:             map[string]int{"length": 2, "stop": 2},
				Truncated:          1,
				Duration:           2,
				TotalInputTokens:   40, // the dataset's counts, as vLLM sums them
				ServerInputTokens:  48, // the server's usage (a chat template's tokens included)
				TotalOutputTokens:  3 + 1 + 1 + 2,
				ApproxOutputCounts: 1,
				RequestThroughput:  2, OutputThroughput: 3.5, TotalTokenThroughput: 23.5,
				GoodRequests: 3, GoodOutputTokens: 6,
				RequestGoodput: 1.5, TokenGoodput: 3,
				Dispatches:   7, // canceled and warmup requests are not dispatches of the measured schedule
				TokenStreams: 2, // the two with several events
			},
		},
		{
			name: "goodput checks every set SLO field",
			opts: Options{Goodput: SLO{TTFT: 200 * ms, TPOT: 20 * ms, ITL: 30 * ms, E2EL: time.Second}},
			reqs: []*Request{
				ok(0, 0, 200*ms, 20*ms, 20*ms),      // good: every field at its limit
				ok(0, 0, 201*ms, 20*ms),             // TTFT over
				ok(0, 0, 100*ms, 25*ms, 25*ms),      // TPOT 25 over
				ok(0, 0, 100*ms, 31*ms, 1*ms, 1*ms), // TPOT 11 fine, one gap over ITL
				ok(0, 0, 990*ms, 11*ms),             // E2E over
				ok(0, 0, 150*ms),                    // one token: TPOT not judged, good
				with(ok(0, 0, 10*ms), func(r *Request) { r.FinishReason = "length" }), // truncated
				failed(ErrStream),
			},
			duration: time.Second,
			want: Summary{
				TokenCountsCompared: 7,
				Completed:           7, Failed: 1, Errors: map[ErrorKind]int{ErrStream: 1}, Finish: map[string]int{"length": 1, "stop": 6}, Truncated: 1, Duration: 1,
				TotalInputTokens: 70, ServerInputTokens: 84, TotalOutputTokens: 3 + 2 + 3 + 4 + 2 + 1 + 1,
				RequestThroughput: 7, OutputThroughput: 16, TotalTokenThroughput: 86,
				GoodRequests: 2, GoodOutputTokens: 4, RequestGoodput: 2, TokenGoodput: 4,
				Dispatches: 8, TokenStreams: 5,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRecorder(tt.opts)
			for _, req := range tt.reqs {
				r.Add(req)
			}
			got := counts(r.SummaryOver(tt.duration))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Summary mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRecorderPeakConcurrency(t *testing.T) {
	r := NewRecorder(Options{})
	for _, n := range []int{1, 5, 3, 7, 2} {
		r.ObserveConcurrency(n)
	}
	if got := r.SummaryOver(time.Second).PeakConcurrency; got != 7 {
		t.Errorf("PeakConcurrency = %d, want 7", got)
	}
}

func TestRecorderLatencies(t *testing.T) {
	r := NewRecorder(Options{})
	// Request A: intended 0, dispatched 1ms, sent 5ms, TTFT 100, gaps 10, 30.
	a := ok(0, 5*ms, 100*ms, 10*ms, 30*ms)
	a.Dispatched = 1 * ms
	// Request B: intended 1s, sent on time, TTFT 300, gap 20.
	b := ok(time.Second, 0, 300*ms, 20*ms)
	b.Dispatched = time.Second + 3*ms
	r.Add(a)
	r.Add(b)
	r.Add(with(failed(ErrConnect), func(r *Request) { r.Intended, r.Dispatched, r.Sent = 0, 2*ms, 2*ms }))
	s := r.SummaryOver(time.Second)

	tests := []struct {
		name string
		got  Latency
		want []float64 // the samples, in reported units
	}{
		{"ttft", s.TTFT, []float64{100, 300}},
		{"itl", s.ITL, []float64{10, 30, 20}},
		{"tpot", s.TPOT, []float64{20, 20}},
		{"e2el", s.E2EL, []float64{140, 320}},
		{"queue", s.Queue, []float64{5, 0, 2}},
		{"lag", s.Lag, []float64{1, 3, 2}},
		{"ttft_from_intended", s.TTFTFromIntended, []float64{105, 300}},
		{"e2el_from_intended", s.E2ELFromIntended, []float64{145, 320}},
		{"user_tps", s.UserTPS, []float64{2 / 0.040, 1 / 0.020}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkLatency(t, tt.got, tt.want)
		})
	}
}

// checkLatency compares a Latency with a brute-force computation over the
// samples: exact count, sums, mean, stddev, min and max; percentiles within
// HDR precision of the nearest-rank sample.
func checkLatency(t *testing.T, got Latency, samples []float64) {
	t.Helper()
	sorted := slices.Sorted(slices.Values(samples))
	n := float64(len(sorted))
	var sum, sumSq float64
	for _, v := range sorted {
		sum += v
		sumSq += v * v
	}
	mean := sum / n
	var dev float64
	for _, v := range sorted {
		dev += (v - mean) * (v - mean)
	}
	stddev := math.Sqrt(dev / n)

	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	exact := []struct {
		name      string
		got, want float64
	}{
		{"count", float64(got.Count), n},
		{"sum", got.Sum, sum},
		{"sum_sq", got.SumSq, sumSq},
		{"mean", got.Mean, mean},
		{"stddev", got.Stddev, stddev},
		{"min", got.Min, sorted[0]},
		{"max", got.Max, sorted[len(sorted)-1]},
	}
	for _, e := range exact {
		if !near(e.got, e.want) {
			t.Errorf("%s = %v, want %v", e.name, e.got, e.want)
		}
	}
	pcts := []struct {
		p   float64
		got float64
	}{{50, got.P50}, {90, got.P90}, {95, got.P95}, {99, got.P99}, {99.9, got.P999}}
	// Any other percentile, read back from the serialized histogram.
	for _, p := range []float64{1, 25, 75, 99.5, 99.99, 100} {
		v, err := got.Percentile(p)
		if err != nil {
			t.Fatalf("Percentile(%v): %v", p, err)
		}
		pcts = append(pcts, struct {
			p   float64
			got float64
		}{p, v})
	}
	// The stored ones are what Percentile computes.
	for _, pc := range pcts[:5] {
		if v, err := got.Percentile(pc.p); err != nil || v != pc.got {
			t.Errorf("Percentile(%v) = %v, %v; the summary holds %v", pc.p, v, err, pc.got)
		}
	}
	for _, pc := range pcts {
		// Nearest rank as HdrHistogram computes it.
		rank := min(max(int(pc.p/100*n+0.5), 1), len(sorted))
		want := sorted[rank-1]
		// 3 significant digits: a bucket is at most 1/1024 of its value
		// wide; samples are rounded to the histogram unit (0.001).
		if tol := want/1024 + 0.001; math.Abs(pc.got-want) > tol {
			t.Errorf("P%v = %v, want %v within %v", pc.p, pc.got, want, tol)
		}
	}
	h, err := got.DecodeHistogram()
	if err != nil {
		t.Fatalf("DecodeHistogram: %v", err)
	}
	if h.TotalCount() != got.Count {
		t.Errorf("histogram holds %d samples, want %d", h.TotalCount(), got.Count)
	}
}

// randomRequests returns a seeded mix of requests with heavy-tailed
// latencies, failures and warmups.
func randomRequests(seed uint64, n int) []*Request {
	rng := rand.New(rand.NewPCG(seed, 1))
	lat := func(median time.Duration) time.Duration {
		return time.Duration(float64(median) * math.Exp(rng.NormFloat64()))
	}
	var reqs []*Request
	for i := range n {
		intended := time.Duration(i) * 10 * ms
		if rng.IntN(20) == 0 {
			r := failed(ErrorKinds[rng.IntN(len(ErrorKinds))])
			r.Intended, r.Dispatched, r.Sent = intended, intended+lat(100*time.Microsecond), intended+lat(ms)
			reqs = append(reqs, r)
			continue
		}
		gaps := make([]time.Duration, rng.IntN(50))
		for j := range gaps {
			gaps[j] = lat(20 * ms)
		}
		r := ok(intended, lat(ms), lat(200*ms), gaps...)
		r.Dispatched = intended + lat(100*time.Microsecond)
		r.Warmup = rng.IntN(30) == 0
		if rng.IntN(10) == 0 {
			r.FinishReason = "length"
		}
		reqs = append(reqs, r)
	}
	return reqs
}

func TestRecorderPercentilesAgainstSort(t *testing.T) {
	r := NewRecorder(Options{})
	var ttft, itl []float64
	for _, req := range randomRequests(7, 3000) {
		r.Add(req)
		if req.Warmup || !req.OK() {
			continue
		}
		ttft = append(ttft, float64(req.TTFT)/1e6)
		for _, g := range req.ITL {
			itl = append(itl, float64(g)/1e6)
		}
	}
	s := r.SummaryOver(time.Minute)
	t.Run("ttft", func(t *testing.T) { checkLatency(t, s.TTFT, ttft) })
	t.Run("itl", func(t *testing.T) { checkLatency(t, s.ITL, itl) })
}

func TestMergeLatency(t *testing.T) {
	reqs := randomRequests(3, 1500)
	all, a, b := NewRecorder(Options{}), NewRecorder(Options{}), NewRecorder(Options{})
	for i, req := range reqs {
		all.Add(req)
		if i < 400 {
			a.Add(req)
		} else {
			b.Add(req)
		}
	}
	want := all.SummaryOver(time.Minute).ITL
	got, err := MergeLatency(a.SummaryOver(time.Minute).ITL, b.SummaryOver(time.Minute).ITL)
	if err != nil {
		t.Fatal(err)
	}
	// Everything but the float sums must match exactly.
	near := func(x, y float64) bool { return math.Abs(x-y) <= 1e-9*math.Abs(y) }
	for _, f := range []struct {
		name   string
		gp, wp *float64
	}{{"mean", &got.Mean, &want.Mean}, {"stddev", &got.Stddev, &want.Stddev}, {"sum", &got.Sum, &want.Sum}, {"sum_sq", &got.SumSq, &want.SumSq}} {
		if !near(*f.gp, *f.wp) {
			t.Errorf("%s = %v, want %v", f.name, *f.gp, *f.wp)
		}
		*f.gp = *f.wp
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("MergeLatency mismatch (-want +got):\n%s", diff)
	}

	if got, err := MergeLatency(Latency{}, want); err != nil || !cmp.Equal(want, got) {
		t.Errorf("MergeLatency(empty, x) = %+v, %v; want x", got, err)
	}
}

func TestOutliersAreClampedAndCounted(t *testing.T) {
	r := NewRecorder(Options{})
	r.Add(ok(0, 0, 2*time.Hour))
	r.Add(ok(0, 0, 100*ms))
	neg := ok(10*ms, 0, 100*ms)
	neg.Sent = 0 // sent before its intended time: queue is -10ms
	r.Add(neg)
	s := r.SummaryOver(time.Second)
	// The clamped sample sits in the histogram's top bucket (one hour, to 3
	// significant digits); the exact max keeps the true value.
	hourMs := float64(HistogramMax) / 1000
	if p99 := s.TTFT.P99; s.TTFT.Outliers != 1 || s.TTFT.Max != 7.2e6 || p99 < hourMs || p99 > hourMs*(1+1.0/1024) {
		t.Errorf("TTFT outliers=%d max=%v p99=%v; want 1, 7.2e6, %v", s.TTFT.Outliers, s.TTFT.Max, p99, hourMs)
	}
	if s.Queue.Outliers != 1 || s.Queue.Min != 0 {
		t.Errorf("Queue outliers=%d min=%v; want 1, 0", s.Queue.Outliers, s.Queue.Min)
	}
}

// Percentile refuses what is not a percentile, is 0 without samples and
// reports a latency whose histogram is missing.
func TestPercentileEdges(t *testing.T) {
	var empty Latency
	if v, err := empty.Percentile(75); v != 0 || err != nil {
		t.Errorf("empty Percentile(75) = %v, %v; want 0, nil", v, err)
	}
	for _, p := range []float64{-1, 100.5, math.NaN()} {
		if _, err := empty.Percentile(p); err == nil {
			t.Errorf("Percentile(%v): no error", p)
		}
	}
	broken := Latency{Count: 3, Min: 1, Max: 2}
	if _, err := broken.Percentile(75); err == nil {
		t.Error("Percentile without a histogram: no error")
	}
}

func TestDecodeHistogramErrors(t *testing.T) {
	r := NewRecorder(Options{})
	r.Add(ok(0, 0, 100*ms))
	good := r.SummaryOver(time.Second).TTFT
	tests := []struct {
		name string
		l    Latency
	}{
		{"not base64", Latency{Count: 1, Histogram: "%%%"}},
		{"missing", Latency{Count: 3}},
		{"count mismatch", func() Latency { l := good; l.Count = 2; return l }()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.l.DecodeHistogram(); err == nil {
				t.Error("DecodeHistogram succeeded, want an error")
			}
		})
	}
}

func FuzzDecodeHistogram(f *testing.F) {
	r := NewRecorder(Options{})
	for _, req := range randomRequests(1, 50) {
		r.Add(req)
	}
	s := r.SummaryOver(time.Second)
	f.Add(s.TTFT.Histogram, s.TTFT.Count)
	f.Add(s.ITL.Histogram, s.ITL.Count)
	f.Add("HISTFAAAAB", int64(0))
	f.Fuzz(func(t *testing.T, enc string, count int64) {
		l := Latency{Count: count, Histogram: enc}
		h, err := l.DecodeHistogram()
		if err == nil && h.TotalCount() != count {
			t.Errorf("decoded %d samples, count %d", h.TotalCount(), count)
		}
	})
}

func BenchmarkRecorderAdd(b *testing.B) {
	reqs := randomRequests(5, 1000)
	r := NewRecorder(Options{Goodput: SLO{TTFT: time.Second}})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.Add(reqs[i%len(reqs)])
	}
}

// An abandoned request is its own outcome: its tokens count in the totals
// (and throughput), its TTFT and gaps count, its E2EL, TPOT and user TPS
// do not, and it is never good nor a failure. One abandoned before its
// first token adds nothing but the count.
func TestRecorderAbandoned(t *testing.T) {
	abandoned := func(r *Request) {
		r.Error, r.Abandoned, r.FinishReason = ErrAbandoned, true, ""
		r.OutputTokensSource = SourceEvents
	}
	r := NewRecorder(Options{Goodput: SLO{TTFT: time.Second}})
	r.Add(ok(0, 0, 100*ms, 10*ms, 10*ms))
	r.Add(with(ok(0, 0, 50*ms, 20*ms, 20*ms, 20*ms), abandoned))
	r.Add(with(&Request{OutputTokensSource: SourceEvents, DatasetPromptTokens: 10}, abandoned))
	s := r.SummaryOver(time.Second)
	want := Summary{
		TokenCountsCompared: 1,
		Completed:           1, Abandoned: 2, AbandonedTokens: 4, Errors: map[ErrorKind]int{}, Finish: map[string]int{"stop": 1}, Duration: 1,
		TotalInputTokens: 20, ServerInputTokens: 24, TotalOutputTokens: 3 + 4, ApproxOutputCounts: 0,
		RequestThroughput: 1, OutputThroughput: 7, TotalTokenThroughput: 27,
		GoodRequests: 1, GoodOutputTokens: 3, RequestGoodput: 1, TokenGoodput: 3,
		Dispatches: 3, TokenStreams: 1,
	}
	if diff := cmp.Diff(want, counts(s)); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		name  string
		l     Latency
		count int64
	}{
		{"ttft", s.TTFT, 2}, {"itl", s.ITL, 5}, {"e2el", s.E2EL, 1}, {"tpot", s.TPOT, 1}, {"user_tps", s.UserTPS, 1},
	} {
		if tc.l.Count != tc.count {
			t.Errorf("%s: %d samples, want %d", tc.name, tc.l.Count, tc.count)
		}
	}
	if s.ErrorRate() != 0 {
		t.Errorf("error rate %v, want 0: abandoning is not failing", s.ErrorRate())
	}
}

// A reasoning request's phases: TTFT is the first output of any kind,
// ttft_answer the first answer token; each phase keeps its own gaps (the
// gap between the phases is in ITL only); a request without reasoning
// gives its every gap to itl_answer.
func TestRecorderReasoning(t *testing.T) {
	r := NewRecorder(Options{})
	// Reasoning at 100, 110, 120 ms, then the answer at 170 and 175 ms.
	r.Add(with(ok(0, 0, 100*ms, 10*ms, 10*ms, 50*ms, 5*ms), func(r *Request) {
		r.TTFTReasoning, r.TTFTAnswer = 100*ms, 170*ms
		r.ReasoningEvents, r.AnswerEvents, r.ReasoningTokens = 3, 2, 3
		r.ITLReasoning, r.ITLAnswer = []time.Duration{10 * ms, 10 * ms}, []time.Duration{5 * ms}
	}))
	r.Add(with(ok(0, 0, 40*ms, 7*ms), func(r *Request) { r.TTFTAnswer, r.AnswerEvents = 40*ms, 2 }))
	s := r.Summary()
	for _, tc := range []struct {
		name       string
		l          Latency
		count      int64
		mean, max_ float64
	}{
		{"ttft", s.TTFT, 2, 70, 100},
		{"ttft_answer", s.TTFTAnswer, 2, 105, 170},
		{"ttft_reasoning", s.TTFTReasoning, 1, 100, 100},
		{"itl_reasoning", s.ITLReasoning, 2, 10, 10},
		{"itl_answer", s.ITLAnswer, 2, 6, 7},
		{"itl", s.ITL, 5, 16.4, 50},
		{"reasoning_tokens", s.ReasoningTokens, 1, 3, 3},
	} {
		if tc.l.Count != tc.count || tc.l.Mean != tc.mean || tc.l.Max != tc.max_ {
			t.Errorf("%s: count %d mean %v max %v, want %d, %v, %v", tc.name, tc.l.Count, tc.l.Mean, tc.l.Max, tc.count, tc.mean, tc.max_)
		}
	}
}

// TestRecorderTurns: session requests fill the per-turn table and the
// first- and last-turn TTFTs; failed turns and single requests do not.
func TestRecorderTurns(t *testing.T) {
	r := NewRecorder(Options{})
	turn := func(n int, last bool, ttft time.Duration, prompt int) *Request {
		req := ok(0, 0, ttft, ms)
		req.Turn, req.LastTurn, req.PromptTokens = n, last, prompt
		return req
	}
	bad := failed(ErrHTTPStatus)
	bad.Turn = 2
	for _, req := range []*Request{
		turn(1, false, 10*ms, 100), turn(2, false, 20*ms, 300), turn(3, true, 40*ms, 500),
		turn(1, false, 30*ms, 200), turn(2, true, 60*ms, 400),
		bad, ok(0, 0, 99*ms, ms), // a failed turn, a request of no session
	} {
		r.Add(req)
	}
	s := r.Summary()
	type row struct {
		Turn, Completed int
		MeanPrompt      float64
		TTFTMean        float64
	}
	var got []row
	for _, t := range s.Turns {
		got = append(got, row{t.Turn, t.Completed, t.MeanPromptTokens(), t.TTFT.Mean})
	}
	want := []row{{1, 2, 150, 20}, {2, 2, 350, 40}, {3, 1, 500, 40}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("turns (-want +got):\n%s", diff)
	}
	if s.TTFTFirstTurn.Count != 2 || s.TTFTFirstTurn.Mean != 20 || s.TTFTLastTurn.Count != 2 || s.TTFTLastTurn.Mean != 50 {
		t.Errorf("first turns %d (mean %v), last turns %d (mean %v); want 2 (20), 2 (50)",
			s.TTFTFirstTurn.Count, s.TTFTFirstTurn.Mean, s.TTFTLastTurn.Count, s.TTFTLastTurn.Mean)
	}
	if v, ok := s.Value("ttft_last_turn", "max"); !ok || v != 60 {
		t.Errorf("metrics.ttft_last_turn.max = %v, %v; want 60", v, ok)
	}
}

// Connection phases: blocked, ttfb and ttft_server_view have a sample per
// traced request (written), dns and connect one per new connection, tls
// one per TLS connection; a failed or untraced request adds none, and the
// share of TTFT spent connecting is exact over the sums.
func TestRecorderPhases(t *testing.T) {
	r := NewRecorder(Options{})
	phase := func(newConn bool, blocked, connect, tlsD, written, ttfb time.Duration) func(*Request) {
		return func(q *Request) {
			q.NewConn, q.Blocked, q.Connect, q.TLS, q.Written, q.TTFB = newConn, blocked, connect, tlsD, written, ttfb
		}
	}
	r.Add(with(ok(0, 0, 100*ms), phase(true, 1*ms, 10*ms, 20*ms, 32*ms, 50*ms)))
	r.Add(with(ok(0, 0, 100*ms), phase(true, 0, 10*ms, 0, 11*ms, 40*ms)))
	r.Add(with(ok(0, 0, 100*ms), phase(false, 2*ms, 0, 0, 3*ms, 30*ms)))
	r.Add(ok(0, 0, 100*ms)) // untraced (no phases)
	r.Add(with(failed(ErrConnect), phase(true, 0, 5*ms, 0, 0, 0)))
	s := r.Summary()
	got := map[string]int64{}
	for _, name := range []string{"blocked", "dns", "connect", "tls", "ttfb", "ttft_server_view"} {
		got[name] = s.LatencyOf(name).Count
	}
	want := map[string]int64{"blocked": 3, "dns": 2, "connect": 2, "tls": 1, "ttfb": 3, "ttft_server_view": 3}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("sample counts (-want +got):\n%s", d)
	}
	if s.NewConnections != 2 {
		t.Errorf("new connections %d, want 2", s.NewConnections)
	}
	if v, _ := s.Value("ttft_server_view", "max"); v != 97 {
		t.Errorf("ttft_server_view max %v ms, want 97 (100 - 3)", v)
	}
	// (1+10+20) + (0+10+0) + (2+0+0) = 43 ms of 400 ms of TTFT.
	if got := s.ConnShare(); math.Abs(got-43.0/400) > 1e-9 {
		t.Errorf("connection share %v, want %v", got, 43.0/400)
	}
}
