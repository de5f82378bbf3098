package compare

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/llmload/llmload/metrics"
)

// synth is a run whose truth is known: n requests spread evenly over span,
// each with a log-normal TTFT (median ttft, sigma 0.25) and tokens tokens
// 10 ms apart (log-normal, sigma 0.1), recorded with metrics.Recorder and
// SeriesRecorder as the executor records them.
type synth struct {
	n      int
	ttft   time.Duration
	span   time.Duration
	tokens int
	failed int
	seed   uint64
}

func (s synth) summary() *metrics.Summary {
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	rec := metrics.NewRecorder(metrics.Options{Base: base})
	ser := metrics.NewSeriesRecorder(base, time.Second)
	r := rand.New(rand.NewPCG(s.seed, 7))
	tokens := max(s.tokens, 2)
	for i := range s.n {
		at := time.Duration(int64(s.span) * int64(i) / int64(s.n))
		req := &metrics.Request{ID: int64(i), Intended: at, Dispatched: at, Sent: at,
			OutputTokens: tokens, OutputEvents: tokens, OutputTokensSource: metrics.SourceUsage, MaxTokens: tokens, IgnoreEOS: true, FinishReason: "length"}
		if i < s.failed {
			req.Error, req.End = metrics.ErrHTTPStatus, at+time.Millisecond
			rec.Add(req)
			ser.Add(req)
			continue
		}
		req.TTFT = time.Duration(float64(s.ttft) * math.Exp(0.25*r.NormFloat64()))
		req.E2E = req.TTFT
		for range tokens - 1 {
			gap := time.Duration(float64(10*time.Millisecond) * math.Exp(0.1*r.NormFloat64()))
			req.ITL = append(req.ITL, gap)
			req.E2E += gap
		}
		req.End = at + req.E2E
		rec.Add(req)
		ser.Add(req)
	}
	sum := rec.Summary()
	sum.Series = ser.Series()
	return sum
}

func TestJudge(t *testing.T) {
	ms := time.Millisecond
	base2000 := synth{n: 2000, ttft: 100 * ms, span: 20 * time.Second, tokens: 8, seed: 1}
	tests := []struct {
		name      string
		base, new synth
		tol       string
		want      string
	}{
		// The same run on both sides: no regression.
		{"identical runs", base2000, base2000, "ttft_p99=10%", Pass},
		{"identical runs, throughput", base2000, base2000, "output_throughput=5%", Pass},
		// Another draw of the same system.
		{"same system, another seed", base2000, synth{n: 2000, ttft: 100 * ms, span: 20 * time.Second, tokens: 8, seed: 2}, "ttft_p99=10%", Pass},
		// A 30% slower TTFT on 2,000 samples.
		{"30% TTFT regression", base2000, synth{n: 2000, ttft: 130 * ms, span: 20 * time.Second, tokens: 8, seed: 2}, "ttft_p99=10%", Fail},
		{"30% TTFT regression, mean", base2000, synth{n: 2000, ttft: 130 * ms, span: 20 * time.Second, tokens: 8, seed: 2}, "ttft_mean=10%", Fail},
		// 30% less output throughput: the same requests over 1.3x the time.
		{"throughput regression", base2000, synth{n: 2000, ttft: 100 * ms, span: 26 * time.Second, tokens: 8, seed: 2}, "output_throughput=5%", Fail},
		// A 3% shift on 50 samples: P99 needs 1,000 samples...
		{"3% shift on 50 samples, P99", synth{n: 50, ttft: 100 * ms, span: 5 * time.Second, tokens: 8, seed: 1}, synth{n: 50, ttft: 103 * ms, span: 5 * time.Second, tokens: 8, seed: 2}, "ttft_p99=10%", Inconclusive},
		// ...and the median's interval straddles a 5% tolerance.
		{"3% shift on 50 samples, P50", synth{n: 50, ttft: 100 * ms, span: 5 * time.Second, tokens: 8, seed: 1}, synth{n: 50, ttft: 103 * ms, span: 5 * time.Second, tokens: 8, seed: 2}, "ttft_p50=5%", Inconclusive},
		// An error rate from 0 to 5% of 2,000 requests is beyond 1 point.
		{"error rate up", base2000, synth{n: 2000, ttft: 100 * ms, span: 20 * time.Second, tokens: 8, failed: 100, seed: 2}, "error_rate=1%", Fail},
		{"error rate same", base2000, base2000, "error_rate=1%", Pass},
		// Faster is never a regression.
		{"improvement", synth{n: 2000, ttft: 130 * ms, span: 20 * time.Second, tokens: 8, seed: 1}, base2000, "ttft_p99=10%", Pass},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tols, err := ParseTolerances(tt.tol)
			if err != nil {
				t.Fatal(err)
			}
			d := Judge(tt.base.summary(), tt.new.summary(), tols[0], Options{})
			if d.Verdict != tt.want {
				lo, hi := d.PercentInterval()
				t.Errorf("verdict %s, want %s: base %.3f new %.3f delta %.3f [%.3f, %.3f] (%.1f%% to %.1f%%), limit %.3f, %s",
					d.Verdict, tt.want, d.Base, d.New, d.Delta, d.Lower, d.Upper, lo, hi, d.Limit, d.Message)
			}
			if d.Verdict != Pass && d.Message == "" {
				t.Errorf("a %s verdict without a message", d.Verdict)
			}
			if d.HasInterval && (d.Lower > d.Delta || d.Upper < d.Delta) && d.Method != MethodProportion {
				t.Errorf("interval [%g, %g] does not hold the delta %g", d.Lower, d.Upper, d.Delta)
			}
		})
	}
}

// TestBootstrapCoverage checks the percentile interval's truth by
// simulation: over many pairs of runs of the same system, the 95%
// interval of the P90 delta holds the true delta (0) about 95% of the time.
func TestBootstrapCoverage(t *testing.T) {
	const trials = 60
	covered := 0
	for i := range trials {
		a := synth{n: 400, ttft: 100 * time.Millisecond, span: 4 * time.Second, tokens: 2, seed: uint64(2*i + 10)}.summary()
		b := synth{n: 400, ttft: 100 * time.Millisecond, span: 4 * time.Second, tokens: 2, seed: uint64(2*i + 11)}.summary()
		d := Measure(a, b, "ttft", "p90", Options{Replicates: 1000})
		if d.Lower <= 0 && d.Upper >= 0 {
			covered++
		}
	}
	// 95% of 60 is 57; a binomial's 99.9% range reaches down to 51.
	if covered < 51 {
		t.Errorf("the 95%% interval held the true delta in %d of %d trials", covered, trials)
	}
}

func TestDeterministic(t *testing.T) {
	a := synth{n: 1500, ttft: 100 * time.Millisecond, span: 10 * time.Second, tokens: 4, seed: 1}.summary()
	b := synth{n: 1500, ttft: 110 * time.Millisecond, span: 10 * time.Second, tokens: 4, seed: 2}.summary()
	first := Compare(a, b, nil, DefaultTolerances, Options{})
	second := Compare(a, b, nil, DefaultTolerances, Options{})
	if diff := cmp.Diff(first, second, cmp.Comparer(func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) })); diff != "" {
		t.Errorf("two comparisons of the same runs differ (-first +second):\n%s", diff)
	}
}

func TestParseTolerances(t *testing.T) {
	got, err := ParseTolerances("ttft_p99=10%, output_throughput=5%,error_rate=0.5%,ttft_from_intended_p90=20%")
	if err != nil {
		t.Fatal(err)
	}
	want := []Tolerance{
		{Key: "ttft_p99", Metric: "ttft", Stat: "p99", Fraction: 0.10},
		{Key: "output_throughput", Metric: "output_throughput", Fraction: 0.05},
		{Key: "error_rate", Metric: "error_rate", Fraction: 0.005},
		{Key: "ttft_from_intended_p90", Metric: "ttft_from_intended", Stat: "p90", Fraction: 0.20},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for spec, msg := range map[string]string{
		"ttft_p99":                "want key=percentage",
		"ttft_p99=10":             "is a percentage",
		"tft_p99=10%":             "did you mean ttft_p99?",
		"ttft_p96=10%":            "did you mean ttft_p95?",
		"ttft_p9=10%":             "did you mean ttft_p50?",
		"duration=10%":            "describes the load",
		"ttft_p99=1%,ttft_p99=2%": "given twice",
	} {
		if _, err := ParseTolerances(spec); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: error %v, want one saying %q", spec, err, msg)
		}
	}
}

// TestJudgeAgreement: an agreement figure is the candidate's against its
// baseline, so the baseline's value is 1 whatever its own summary holds,
// the interval is Wilson's over the paired prompts, and a figure that was
// not measured, or sampled, is inconclusive and says why.
func TestJudgeAgreement(t *testing.T) {
	tol := func(key, pct string) Tolerance {
		t.Helper()
		tl, err := ParseTolerance(key, pct)
		if err != nil {
			t.Fatal(err)
		}
		return tl
	}
	tests := []struct {
		name    string
		ag      *metrics.Agreement
		tol     Tolerance
		verdict string
		message string
	}{
		{"all alike, decided", &metrics.Agreement{Pairs: 100, Exact: 100}, tol("exact_match", "10%"), Pass, ""},
		{"all alike, too few to decide", &metrics.Agreement{Pairs: 24, Exact: 24}, tol("exact_match", "10%"), Inconclusive, "straddles"},
		// A result against itself never fails, even with no tolerance (a
		// rounding error once put the interval's top just below 1).
		{"all alike, zero tolerance", &metrics.Agreement{Pairs: 40, Exact: 40, Scored: 40, PrefixSum: 40, SimilaritySum: 40}, tol("prefix_agreement", "0%"), Inconclusive, "interval -8.7622% to +0%"},
		{"none alike", &metrics.Agreement{Pairs: 24}, tol("exact_match", "20%"), Fail, "whole 95% interval"},
		{"late divergence tolerated", &metrics.Agreement{Pairs: 100, Exact: 40, Scored: 100, PrefixSum: 97, SimilaritySum: 96}, tol("prefix_agreement", "20%"), Pass, ""},
		{"early divergence", &metrics.Agreement{Pairs: 100, Scored: 100, PrefixSum: 5, SimilaritySum: 8}, tol("answer_similarity", "20%"), Fail, ""},
		{"not measured", nil, tol("exact_match", "10%"), Inconclusive, "no answers were paired"},
		{"sampled", &metrics.Agreement{Pairs: 100, Exact: 3, Sampled: true}, tol("exact_match", "10%"), Inconclusive, "temperature above 0"},
		{"no texts scored", &metrics.Agreement{Pairs: 100, Exact: 100}, tol("prefix_agreement", "10%"), Inconclusive, "texts kept"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The baseline's own summary has no agreement: it is not read.
			base, cand := &metrics.Summary{}, &metrics.Summary{Agreement: tt.ag}
			d := Judge(base, cand, tt.tol, Options{})
			if d.Verdict != tt.verdict || !strings.Contains(d.Message, tt.message) {
				t.Fatalf("verdict %q (%s), want %q with %q", d.Verdict, d.Message, tt.verdict, tt.message)
			}
			if d.Missing {
				return
			}
			v, lo, hi, n, _ := tt.ag.Figure(tt.tol.Metric, metrics.DefaultConfidence)
			if d.Base != 1 || d.New != v || d.Lower != lo-1 || d.Upper != hi-1 || d.NewSamples != int64(n) || d.Method != MethodWilson {
				t.Errorf("delta %+v, want base 1, new %v, interval %v..%v over %d pairs by %s", d, v, lo-1, hi-1, n, MethodWilson)
			}
			if !(d.Lower <= d.Delta && d.Delta <= d.Upper) {
				t.Errorf("interval [%v, %v] does not hold the delta %v", d.Lower, d.Upper, d.Delta)
			}
		})
	}
}
