package metrics

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestStreamSanity classifies synthetic responses: held and flushed at once
// by a proxy, all tokens in one event, several tokens per event, and
// honest streams, then checks the summary's counts.
func TestStreamSanity(t *testing.T) {
	us := time.Microsecond
	tokens := func(r *Request, n int) *Request { r.OutputTokens = n; return r }
	tests := []struct {
		name                               string
		req                                *Request
		expected, buffered, multi, untimed bool
	}{
		{name: "paced stream", req: ok(0, 0, 200*ms, 20*ms, 20*ms, 20*ms), expected: true},
		{name: "buffered by a proxy: 4 events within 30µs after 500ms",
			req: ok(0, 0, 500*ms, 10*us, 10*us, 10*us), expected: true, buffered: true},
		{name: "fast local server: the first token was quick too",
			req: ok(0, 0, 200*us, 10*us, 10*us, 10*us), expected: true},
		{name: "span just over the window is timed",
			req: ok(0, 0, 500*ms, 400*us, 400*us, 300*us), expected: true},
		{name: "all ten tokens in one event", req: tokens(ok(0, 0, 300*ms), 10),
			expected: true, buffered: true, multi: true},
		{name: "one event, two tokens by usage: a stop token, not buffering", req: tokens(ok(0, 0, 300*ms), 2)},
		{name: "one token", req: ok(0, 0, 300*ms)},
		{name: "three tokens per event", req: tokens(ok(0, 0, 100*ms, 30*ms, 30*ms), 9), expected: true, multi: true},
		{name: "event count is no evidence of multi-token events",
			req: with(tokens(ok(0, 0, 300*ms), 10), func(r *Request) { r.OutputTokensSource = SourceEvents })},
		{name: "failed", req: with(ok(0, 0, 500*ms, 10*us), func(r *Request) { r.Error = ErrStream })},
	}
	rec := NewRecorder(Options{})
	var want Summary
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.req.TimingExpected(); got != tt.expected {
				t.Errorf("TimingExpected = %v, want %v", got, tt.expected)
			}
			if got := tt.req.Buffered(); got != tt.buffered {
				t.Errorf("Buffered = %v, want %v", got, tt.buffered)
			}
			if got := tt.req.MultiTokenEvents(); got != tt.multi {
				t.Errorf("MultiTokenEvents = %v, want %v", got, tt.multi)
			}
		})
		rec.Add(tt.req)
		if tt.expected {
			want.TokenStreams++
		}
		if tt.buffered {
			want.BufferedStreams++
		}
		if tt.multi {
			want.MultiTokenStreams++
		}
	}
	s := rec.Summary()
	got := Summary{TokenStreams: s.TokenStreams, BufferedStreams: s.BufferedStreams, MultiTokenStreams: s.MultiTokenStreams}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("summary counts (-want +got):\n%s", diff)
	}
	if want.BufferedStreams == 0 || s.UntimedFraction() != float64(want.BufferedStreams)/float64(want.TokenStreams) {
		t.Errorf("UntimedFraction = %g with %d of %d buffered", s.UntimedFraction(), want.BufferedStreams, want.TokenStreams)
	}
}

func TestTokenCountMismatch(t *testing.T) {
	counted := func(usage, tok int) *Request {
		r := ok(0, 0, 10*ms, ms)
		r.OutputTokens, r.OutputTokensSource, r.TokenizerOutputTokens = usage, SourceUsage, tok
		return r
	}
	tests := []struct {
		name               string
		req                *Request
		compared, mismatch bool
	}{
		{"equal", counted(100, 100), true, false},
		{"a stop token apart", counted(101, 100), true, false},
		{"tokenizer two under usage", counted(102, 100), true, true},
		// Usage is checked against the stream even without a tokenizer.
		{"no tokenizer count", counted(100, 0), true, false},
		{"usage under the output events", with(counted(100, 0), func(r *Request) { r.OutputEvents = 120 }), true, true},
		{"usage of 0", with(counted(0, 0), func(r *Request) { r.OutputEvents = 10 }), true, true},
		{"usage over the streamed bytes", with(counted(100, 0), func(r *Request) { r.OutputBytes = 50 }), true, true},
		{"usage within the streamed bytes' slack", with(counted(100, 0), func(r *Request) { r.OutputBytes = 91 }), true, false},
		{"hidden reasoning counted by usage", with(counted(100, 0), func(r *Request) { r.OutputBytes, r.ReasoningTokens = 40, 60 }), true, false},
		{"tokenizer was the only count", with(counted(100, 80), func(r *Request) { r.OutputTokensSource = SourceTokenizer }), false, false},
	}
	rec := NewRecorder(Options{})
	for _, tt := range tests {
		c, m := tt.req.TokenCountMismatch()
		if c != tt.compared || m != tt.mismatch {
			t.Errorf("%s: compared %v mismatch %v, want %v %v", tt.name, c, m, tt.compared, tt.mismatch)
		}
		rec.Add(tt.req)
	}
	if s := rec.Summary(); s.TokenCountsCompared != 9 || s.TokenCountMismatches != 4 {
		t.Errorf("compared %d, mismatches %d; want 9 and 4", s.TokenCountsCompared, s.TokenCountMismatches)
	}
}

// The tokenizer's count may exceed usage as far as a correct engine's
// non-canonical output re-tokenizes, not as far as a wrong tokenizer
// differs (see TokenizerDisputes for the measurements).
func TestTokenizerDisputes(t *testing.T) {
	tests := []struct {
		name           string
		usage, counted int
		disputed       bool
	}{
		{"canonical output", 32, 32, false},
		{"a stop token usage counts", 33, 32, false},
		// llama.cpp b1-80fb11a, a random-weight Qwen3-vocabulary model,
		// max_tokens 32: the text re-tokenized to 33 to 36.
		{"llama.cpp random weights, 33", 32, 33, false},
		{"llama.cpp random weights, 36", 32, 36, false},
		{"random tokens' worst seen of 32", 32, 46, false},
		{"random tokens' worst seen of 512", 512, 560, false},
		{"beyond any random sequence of 32", 32, 47, true},
		{"two under usage", 32, 30, true},
		{"a tokenizer twice as fine", 32, 64, true},
		{"a tokenizer twice as fine, short", 8, 16, true},
		{"a tokenizer twice as coarse", 32, 16, true},
		{"a tokenizer 25% finer, long", 512, 640, true},
		{"too short to tell 2x", 4, 8, false},
	}
	for _, tt := range tests {
		if got := TokenizerDisputes(tt.usage, tt.counted); got != tt.disputed {
			t.Errorf("%s: usage %d, tokenizer %d: disputed %v, want %v", tt.name, tt.usage, tt.counted, got, tt.disputed)
		}
		r := ok(0, 0, 10*ms, ms)
		r.OutputTokens, r.OutputTokensSource, r.TokenizerOutputTokens = tt.usage, SourceUsage, tt.counted
		if c, m := r.TokenCountMismatch(); !c || m != tt.disputed {
			t.Errorf("%s: TokenCountMismatch compared %v mismatch %v, want true %v", tt.name, c, m, tt.disputed)
		}
	}
}

// TestCoalesced tells a stream whose events a proxy flushed several at a
// time (bursts of gaps read together, then the burst's wait) from honest
// streams, fast or slow, and from a stream buffered whole.
func TestCoalesced(t *testing.T) {
	us := time.Microsecond
	// bursts of n events, each burst after wait.
	bursts := func(events, n int, wait time.Duration) []time.Duration {
		var gaps []time.Duration
		for i := 1; i < events; i++ {
			if i%n == 0 {
				gaps = append(gaps, wait)
			} else {
				gaps = append(gaps, 5*us)
			}
		}
		return gaps
	}
	even := func(events int, g time.Duration) []time.Duration {
		gaps := make([]time.Duration, events-1)
		for i := range gaps {
			gaps[i] = g
		}
		return gaps
	}
	tests := []struct {
		name      string
		gaps      []time.Duration
		coalesced bool
	}{
		{"4 events per flush, 80 ms apart", bursts(16, 4, 80*ms), true},
		{"2 events per flush: half the gaps", bursts(16, 2, 40*ms), true},
		{"an honest 20 ms stream", even(16, 20*ms), false},
		{"a server with no decode time: every gap tiny", even(16, 5*us), false},
		{"a few gaps read together on a busy client", append(even(14, 20*ms), 5*us, 5*us), false},
		{"too short to tell", bursts(8, 4, 80*ms), false},
		{"bursts under a millisecond apart", bursts(16, 4, 300*us), false},
		{"sub-millisecond honest gaps", even(16, 400*us), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ok(0, 0, 100*ms, tt.gaps...)
			if got := r.Coalesced(); got != tt.coalesced {
				t.Errorf("Coalesced = %v, want %v (gaps %v)", got, tt.coalesced, tt.gaps)
			}
		})
	}
	// Buffered whole: Buffered, not also Coalesced.
	if r := ok(0, 0, 500*ms, even(16, 5*us)...); !r.Buffered() || r.Coalesced() {
		t.Errorf("a stream flushed whole: Buffered %v, Coalesced %v; want true, false", r.Buffered(), r.Coalesced())
	}
	rec := NewRecorder(Options{})
	rec.Add(ok(0, 0, 100*ms, bursts(16, 4, 80*ms)...))
	rec.Add(ok(0, 0, 100*ms, even(16, 20*ms)...))
	rec.Add(ok(0, 0, 500*ms, even(16, 5*us)...))
	s := rec.Summary()
	if s.CoalescedStreams != 1 || s.BufferedStreams != 1 || s.TokenStreams != 3 || s.UntimedFraction() != 2.0/3 {
		t.Errorf("coalesced %d, buffered %d of %d, untimed %g; want 1, 1 of 3, 2/3", s.CoalescedStreams, s.BufferedStreams, s.TokenStreams, s.UntimedFraction())
	}
}

func TestSameModel(t *testing.T) {
	tests := []struct {
		asked, served string
		same          bool
	}{
		{"m", "m", true},
		{"Llama-3-8B", "llama-3-8b", true},
		{"llama3", "llama3:latest", true},
		{"gpt-4o", "gpt-4o-2024-08-06", true},
		{"Llama-3-8B", "meta-llama/Llama-3-8B", true},
		{"meta-llama/Llama-3-8B", "Llama-3-8B", true},
		{"tiny@v2", "tiny", true},
		{"m", "", true}, // the response named none
		{"", "anything", true},
		{"llama3", "mistral", false},
		{"gpt-4o", "gpt-4o-mini-2024", true}, // a suffix is a suffix: gateways date and size alike
		{"llama3", "llama30", false},
		{"llama", "other/llama3", false},
		{"qwen", "evilqwen", false},
	}
	for _, tt := range tests {
		if got := SameModel(tt.asked, tt.served); got != tt.same {
			t.Errorf("SameModel(%q, %q) = %v, want %v", tt.asked, tt.served, got, tt.same)
		}
	}
}

func TestOverMaxTokens(t *testing.T) {
	tests := []struct {
		name string
		req  *Request
		over bool
	}{
		{"within", ok(0, 0, ms, ms, ms), false},
		{"at the cap", with(ok(0, 0, ms, ms, ms), func(r *Request) { r.MaxTokens = 3 }), false},
		{"more events than the cap", with(ok(0, 0, ms, ms, ms, ms), func(r *Request) { r.MaxTokens, r.OutputTokens = 3, 3 }), true},
		{"usage over the cap", with(ok(0, 0, ms, ms), func(r *Request) { r.MaxTokens, r.OutputTokens = 2, 5 }), true},
		{"usage the stream disproves is a mismatch, not output", with(ok(0, 0, ms, ms), func(r *Request) { r.MaxTokens, r.OutputTokens, r.OutputBytes = 2, 50, 8 }), false},
		{"an event count over the cap is the events'", with(ok(0, 0, ms), func(r *Request) { r.MaxTokens, r.OutputTokens, r.OutputTokensSource = 1, 1, SourceEvents }), false},
		{"no cap", with(ok(0, 0, ms, ms, ms), func(r *Request) { r.MaxTokens = 0 }), false},
		{"failed", with(ok(0, 0, ms, ms, ms), func(r *Request) { r.MaxTokens, r.Error = 1, ErrStream }), false},
	}
	for _, tt := range tests {
		if got := tt.req.OverMaxTokens(); got != tt.over {
			t.Errorf("%s: OverMaxTokens = %v, want %v", tt.name, got, tt.over)
		}
	}
}

// TestPrefixReuse: the engine's cached tokens over an ideal cache's, over
// the requests that reported a count; no value without reports or
// without an ideal reuse.
func TestPrefixReuse(t *testing.T) {
	cached := func(n, ideal int, reported bool) *Request {
		r := ok(0, 0, ms, ms)
		r.PromptTokens, r.CachedTokens, r.IdealCachedTokens, r.CacheReported = 100, n, ideal, reported
		return r
	}
	tests := []struct {
		name string
		reqs []*Request
		want float64 // NaN: no value
	}{
		{"ideal", []*Request{cached(0, 0, true), cached(64, 64, true), cached(64, 64, true)}, 1},
		{"half", []*Request{cached(32, 64, true), cached(32, 64, true)}, 0.5},
		{"unreported requests do not count", []*Request{cached(64, 64, true), cached(0, 64, false)}, 1},
		{"warm from before the run", []*Request{cached(96, 64, true)}, 1.5},
		{"no report", []*Request{cached(0, 64, false)}, math.NaN()},
		{"nothing shared", []*Request{cached(10, 0, true)}, math.NaN()},
	}
	for _, tt := range tests {
		rec := NewRecorder(Options{})
		for _, r := range tt.reqs {
			rec.Add(r)
		}
		got := rec.Summary().PrefixReuse()
		if math.IsNaN(tt.want) != math.IsNaN(got) || !math.IsNaN(got) && got != tt.want {
			t.Errorf("%s: PrefixReuse = %v, want %v", tt.name, got, tt.want)
		}
		if v, ok := rec.Summary().Value("prefix_reuse", ""); ok != !math.IsNaN(tt.want) || ok && v != tt.want {
			t.Errorf("%s: metrics.prefix_reuse = %v, %v", tt.name, v, ok)
		}
	}
}

// TestFingerprints: completed requests are counted by their responses'
// system_fingerprint, at most MaxFingerprints of them (the rest under
// "other"), and merged summaries add up.
func TestFingerprints(t *testing.T) {
	rec := NewRecorder(Options{})
	for i := range 12 {
		r := ok(0, 0, ms, ms)
		r.SystemFingerprint = "b1"
		if i >= 2 {
			r.SystemFingerprint = fmt.Sprintf("fp-%d", i)
		}
		rec.Add(r)
	}
	rec.Add(ok(0, 0, ms, ms)) // none sent
	s := rec.Summary()
	want := map[string]int{"b1": 2, "fp-2": 1, "fp-3": 1, "fp-4": 1, "fp-5": 1, "fp-6": 1, "fp-7": 1, "fp-8": 1, "other": 3}
	if diff := cmp.Diff(want, s.Fingerprints); diff != "" {
		t.Errorf("fingerprints (-want +got):\n%s", diff)
	}
	m, err := MergeSummaries(s, s)
	if err != nil {
		t.Fatal(err)
	}
	if m.Fingerprints["b1"] != 4 || m.Fingerprints["other"] != 6 || len(m.Fingerprints) != MaxFingerprints+1 {
		t.Errorf("merged: %v", m.Fingerprints)
	}
}
