package assert

import (
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/scenario"
)

// summaryOf records n successful requests with TTFTs of 1, 2, ..., n ms.
func summaryOf(n int) *metrics.Summary {
	rec := metrics.NewRecorder(metrics.Options{})
	for i := 1; i <= n; i++ {
		d := time.Duration(i) * time.Millisecond
		rec.Add(&metrics.Request{TTFT: d, E2E: d, OutputTokens: 1, OutputEvents: 1, OutputTokensSource: metrics.SourceUsage})
	}
	return rec.Summary()
}

func ttftSLA(stat string, bound float64, upper bool) scenario.SLA {
	key := "ttft_" + stat
	if !upper {
		key = "min_" + key
	}
	return scenario.SLA{Key: key, Metric: "ttft", Stat: stat, Bound: bound, Upper: upper}
}

func TestMinSamples(t *testing.T) {
	sum := summaryOf(150)
	tests := []struct {
		name       string
		minSamples int
		stat       string
		want       string
	}{
		{"P99 on 150 samples", 0, "p99", Inconclusive},
		{"P95 on 150 samples", 0, "p95", Inconclusive}, // needs 200
		{"P90 on 150 samples", 0, "p90", Pass},         // needs 100
		{"P99 with min_samples = 100", 100, "p99", Pass},
		{"P50 with min_samples = 500", 500, "p50", Inconclusive},
		{"mean needs no minimum", 500, "mean", Pass},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &scenario.Scenario{Verdict: scenario.VerdictPoint, MinSamples: tt.minSamples, SLA: []scenario.SLA{ttftSLA(tt.stat, 1000, true)}}
			o := Evaluate(s, sum)[0]
			if o.Verdict != tt.want || o.Passed != (tt.want == Pass) {
				t.Errorf("verdict %s (passed %v), want %s: %s", o.Verdict, o.Passed, tt.want, o.Message)
			}
			if o.Verdict == Inconclusive && (o.Diagnostic == nil || o.Message == "") {
				t.Errorf("an inconclusive check says nothing of why")
			}
			if o.Samples != 150 {
				t.Errorf("samples %d, want 150", o.Samples)
			}
		})
	}
}

// TestStrictVerdict places bounds below, inside and above a P90's 95%
// interval, for an upper and a lower bound, in both verdict modes.
func TestStrictVerdict(t *testing.T) {
	sum := summaryOf(2000)
	lo, hi, err := sum.TTFT.PercentileInterval(90, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	point := sum.TTFT.P90
	if !(lo < point && point < hi) {
		t.Fatalf("interval [%g, %g] around %g: the test needs room on both sides", lo, hi, point)
	}
	below, inside, above := lo-1, (point+hi)/2, hi+1
	tests := []struct {
		mode  string
		bound float64
		upper bool
		want  string
	}{
		// ttft_p90 <= bound
		{scenario.VerdictStrict, above, true, Pass},
		{scenario.VerdictStrict, inside, true, Inconclusive},
		{scenario.VerdictStrict, below, true, Fail},
		{scenario.VerdictPoint, above, true, Pass},
		{scenario.VerdictPoint, inside, true, Pass}, // the point is under it
		{scenario.VerdictPoint, below, true, Fail},
		// min_ttft_p90 >= bound (a lower bound, as for user TPS)
		{scenario.VerdictStrict, below, false, Pass},
		{scenario.VerdictStrict, inside, false, Inconclusive},
		{scenario.VerdictStrict, above, false, Fail},
		{scenario.VerdictPoint, inside, false, Fail}, // the point is under it
	}
	for _, tt := range tests {
		s := &scenario.Scenario{Verdict: tt.mode, SLA: []scenario.SLA{ttftSLA("p90", tt.bound, tt.upper)}}
		o := Evaluate(s, sum)[0]
		if o.Verdict != tt.want {
			t.Errorf("%s, %s %g: verdict %s, want %s (%s)", tt.mode, o.Op, tt.bound, o.Verdict, tt.want, o.Message)
		}
		if o.Lower == nil || o.Upper == nil || *o.Lower != lo || *o.Upper != hi {
			t.Errorf("%s, %s %g: interval %v..%v, want [%g, %g]", tt.mode, o.Op, tt.bound, o.Lower, o.Upper, lo, hi)
		}
	}
}

// TestDefaultErrorBudget: a scenario with only a latency sla still fails
// a run where 12 of 20 requests failed; its own error_rate replaces the
// default.
func TestDefaultErrorBudget(t *testing.T) {
	load := func(sla string) *scenario.Scenario {
		p := t.TempDir() + "/s.hcl"
		src := `
target "t" {
  base_url = "sim://tiny"
}
dataset "d" {
  random {}
}
scenario "s" {
  target  = target.t
  dataset = dataset.d
  open_loop {
    rate = 1
  }
  sla {
` + sla + `
  }
}
`
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, diags := scenario.Load([]string{p}, scenario.LoadOptions{})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		return cfg.Scenario("s")
	}
	sum := summaryOf(8)
	sum.Failed, sum.Errors = 12, map[metrics.ErrorKind]int{metrics.ErrStream: 12}
	// Five of the eight completed answers said nothing usable.
	sum.DefectiveOutputs, sum.OutputDefects = 5, map[string]int{"degenerate": 5}
	type row struct {
		Name    string
		Default bool
		Verdict string
	}
	tests := []struct {
		sla  string
		want []row
	}{
		{`ttft_mean = "1s"`, []row{{"ttft_mean", false, Pass}, {"error_rate", true, Fail}, {"output_defect_rate", true, Fail}}},
		{`ttft_mean = "1s"
    error_rate = 0.7`, []row{{"ttft_mean", false, Pass}, {"error_rate", false, Pass}, {"output_defect_rate", true, Fail}}},
		{`ttft_mean = "1s"
    output_defect_rate = 0.9`, []row{{"ttft_mean", false, Pass}, {"output_defect_rate", false, Pass}, {"error_rate", true, Fail}}},
	}
	for _, tt := range tests {
		var got []row
		for _, o := range Evaluate(load(tt.sla), sum) {
			got = append(got, row{o.Name, o.Default, o.Verdict})
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("sla {%s}: (-want +got):\n%s", tt.sla, diff)
		}
	}
}

// TestUntimedStreams: when most streams carry no per-token timing, ITL,
// TPOT and user TPS checks are inconclusive, whatever they measured; TTFT
// is unaffected.
func TestUntimedStreams(t *testing.T) {
	sum := summaryOf(2000)
	sum.ITL = sum.TTFT
	sum.TPOT = sum.TTFT
	s := &scenario.Scenario{Verdict: scenario.VerdictPoint, SLA: []scenario.SLA{
		{Key: "itl_p99", Metric: "itl", Stat: "p99", Bound: 1e6, Upper: true},
		{Key: "tpot_mean", Metric: "tpot", Stat: "mean", Bound: 1e6, Upper: true},
		ttftSLA("p99", 1e6, true),
	}}
	for _, tt := range []struct {
		buffered int
		want     []string
	}{
		{10, []string{Pass, Pass, Pass}},
		{11, []string{Inconclusive, Inconclusive, Pass}},
	} {
		sum.TokenStreams, sum.BufferedStreams = 20, tt.buffered
		var got []string
		for _, o := range Evaluate(s, sum) {
			got = append(got, o.Verdict)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%d of 20 buffered (-want +got):\n%s", tt.buffered, diff)
		}
	}
}

func TestValidity(t *testing.T) {
	s := &scenario.Scenario{Validity: scenario.DefaultValidity}
	base := func() *metrics.Summary {
		sum := summaryOf(10)
		sum.Scheduled, sum.Dispatches, sum.ScheduledRate, sum.AchievedRate = true, 100, 10, 9.8
		sum.Lag = metrics.Latency{Count: 100, P99: 2}
		sum.ClientCPU = 0.2
		sum.TokenCountsCompared, sum.TokenCountMismatches = 200, 1
		return sum
	}
	tests := []struct {
		name   string
		change func(*metrics.Summary)
		broken []string
	}{
		{"a clean run", func(*metrics.Summary) {}, nil},
		{"achieved 6% under the schedule", func(s *metrics.Summary) { s.AchievedRate = 9.4 }, []string{"rate_shortfall"}},
		{"lag p99 over 10 ms", func(s *metrics.Summary) { s.Lag.P99 = 10.5 }, []string{"lag_p99"}},
		{"no schedule: rate and lag do not apply", func(s *metrics.Summary) { s.Scheduled, s.AchievedRate, s.Lag.P99 = false, 1, 500 }, nil},
		{"client CPU saturated", func(s *metrics.Summary) { s.ClientCPU = 0.95 }, []string{"client_cpu"}},
		{"token counts disagree on 2%", func(s *metrics.Summary) { s.TokenCountMismatches = 4 }, []string{"token_mismatch"}},
		{"nothing to compare", func(s *metrics.Summary) { s.TokenCountsCompared, s.TokenCountMismatches = 0, 0 }, nil},
		{"the path to the engine slower than 100 ms", func(s *metrics.Summary) { s.ClientOverhead = metrics.Latency{Count: 100, P99: 150} }, []string{"client_overhead"}},
		{"the path to the engine fast", func(s *metrics.Summary) { s.ClientOverhead = metrics.Latency{Count: 100, P99: 20} }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sum := base()
			tt.change(sum)
			rules := Validity(s.Validity, sum)
			var broken []string
			for _, r := range rules {
				if r.Applies && !r.Valid {
					broken = append(broken, r.Name)
				}
			}
			if diff := cmp.Diff(tt.broken, broken); diff != "" {
				t.Errorf("broken rules (-want +got):\n%s", diff)
			}
			if Valid(rules) != (len(tt.broken) == 0) {
				t.Errorf("Valid = %v with %v broken", Valid(rules), broken)
			}
		})
	}
	// With a real histogram, lag P99 is judged by the lower end of its
	// interval: 2 late dispatches of 100 are not enough, 10 are.
	for _, tt := range []struct {
		late  int
		valid bool
	}{{2, true}, {10, false}} {
		rec := metrics.NewRecorder(metrics.Options{Scheduled: true})
		for i := range 100 {
			lag := time.Millisecond
			if i < tt.late {
				lag = 40 * time.Millisecond
			}
			rec.Add(&metrics.Request{Intended: 0, Dispatched: lag, Sent: lag, OutputTokens: 1, OutputEvents: 1})
		}
		sum := rec.Summary()
		var lag Rule
		for _, r := range Validity(s.Validity, sum) {
			if r.Name == "lag_p99" {
				lag = r
			}
		}
		if lag.Value != 40 || lag.Valid != tt.valid {
			t.Errorf("%d of 100 dispatches 40 ms late: lag p99 %g ms, valid %v; want 40 ms, valid %v (%s)", tt.late, lag.Value, lag.Valid, tt.valid, lag.Why)
		}
	}
	// The bounds come from the validity block.
	strict := &scenario.Scenario{Validity: scenario.Validity{MaxRateShortfall: 0.01, MaxLagP99: time.Millisecond, MaxClientCPU: 0.1, MaxTokenMismatch: 0}}
	if rules := Validity(strict.Validity, base()); Valid(rules) {
		t.Errorf("tight bounds let the run pass: %+v", rules)
	}
}

// TestStrictOpenInterval: with min_samples set low, a P99 of 20 samples has
// no order statistic above it; a strict check cannot pass on it.
func TestStrictOpenInterval(t *testing.T) {
	sum := summaryOf(20)
	s := &scenario.Scenario{Verdict: scenario.VerdictStrict, MinSamples: 10, SLA: []scenario.SLA{ttftSLA("p99", 1e6, true)}}
	if o := Evaluate(s, sum)[0]; o.Verdict != Inconclusive {
		t.Errorf("verdict %s, want inconclusive: %s", o.Verdict, o.Message)
	}
	s.Verdict = scenario.VerdictPoint
	if o := Evaluate(s, sum)[0]; o.Verdict != Pass {
		t.Errorf("point verdict %s, want pass: %s", o.Verdict, o.Message)
	}
}

// TestValidityRecordedSchedule judges recorded schedules with the shipped
// bounds: each request's intended and actual dispatch offsets are given,
// so no clock is read and the verdict is the same on any machine. Each
// bound is met in one case and broken in another.
func TestValidityRecordedSchedule(t *testing.T) {
	const n, every = 400, 10 * time.Millisecond // 100 req/s for 4 s
	tests := []struct {
		name string
		// lag is request i's dispatch lag; stretch scales the dispatch
		// offsets (1.06: the client kept 94% of the rate).
		lag      func(i int) time.Duration
		stretch  float64
		cpu      float64
		mismatch int // requests whose usage and tokenizer counts differ by 2
		slowPath int // requests whose TTFT is 150 ms over the engine's own
		broken   []string
	}{
		{name: "on time", lag: func(int) time.Duration { return time.Millisecond }, stretch: 1, cpu: 0.2},
		{name: "every dispatch 9 ms late", lag: func(int) time.Duration { return 9 * time.Millisecond }, stretch: 1, cpu: 0.2},
		{name: "every dispatch 12 ms late", lag: func(int) time.Duration { return 12 * time.Millisecond }, stretch: 1, cpu: 0.2, broken: []string{"lag_p99"}},
		// The interval rule: 2 dispatches of 400 far late put the P99's
		// point estimate on a 1 ms lag; 12 of 400 put even the lower end
		// of its 95% interval over the bound.
		{name: "2 of 400 dispatches 80 ms late", lag: lateEvery(200), stretch: 1, cpu: 0.2},
		{name: "12 of 400 dispatches 80 ms late", lag: lateEvery(33), stretch: 1, cpu: 0.2, broken: []string{"lag_p99"}},
		{name: "achieved 96% of the rate", lag: nil, stretch: 1.04, cpu: 0.2, broken: []string{"lag_p99"}},
		{name: "achieved 94% of the rate", lag: nil, stretch: 1.065, cpu: 0.2, broken: []string{"rate_shortfall", "lag_p99"}},
		{name: "client CPU at 85%", lag: func(int) time.Duration { return time.Millisecond }, stretch: 1, cpu: 0.85},
		{name: "client CPU at 95%", lag: func(int) time.Duration { return time.Millisecond }, stretch: 1, cpu: 0.95, broken: []string{"client_cpu"}},
		{name: "token counts differ on 1%", lag: func(int) time.Duration { return time.Millisecond }, stretch: 1, cpu: 0.2, mismatch: 4},
		{name: "token counts differ on 1.25%", lag: func(int) time.Duration { return time.Millisecond }, stretch: 1, cpu: 0.2, mismatch: 5, broken: []string{"token_mismatch"}},
		// The path to the engine: 6 slow requests of 400 put the P99's
		// point estimate over 100 ms but not the lower end of its
		// interval; 12 do.
		{name: "6 of 400 requests 150 ms slow on the way", lag: func(int) time.Duration { return time.Millisecond }, stretch: 1, cpu: 0.2, slowPath: 6},
		{name: "12 of 400 requests 150 ms slow on the way", lag: func(int) time.Duration { return time.Millisecond }, stretch: 1, cpu: 0.2, slowPath: 12, broken: []string{"client_overhead"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := metrics.NewRecorder(metrics.Options{Scheduled: true})
			for i := range n {
				intended := time.Duration(i) * every
				dispatched := time.Duration(float64(intended) * tt.stretch)
				if tt.lag != nil {
					dispatched = intended + tt.lag(i)
				}
				tok := 10
				if i < tt.mismatch {
					tok = 8 // two under usage: disputed
				}
				// The engine's own TTFT is 0.9 ms of the client's 1 ms.
				ttft := time.Millisecond
				if i%33 == 0 && i/33 < tt.slowPath {
					ttft += 150 * time.Millisecond
				}
				rec.Add(&metrics.Request{Intended: intended, Dispatched: dispatched, Sent: dispatched, TTFT: ttft, E2E: ttft + time.Millisecond,
					End: dispatched + ttft + time.Millisecond, OutputTokens: 10, OutputEvents: 10, OutputTokensSource: metrics.SourceUsage, TokenizerOutputTokens: tok,
					EngineTTFT: 900 * time.Microsecond})
			}
			sum := rec.Summary()
			sum.ClientCPU = tt.cpu
			rules := Validity(scenario.DefaultValidity, sum)
			var broken []string
			for _, r := range rules {
				if !r.Applies {
					t.Errorf("rule %s does not apply: %s", r.Name, r.Why)
				}
				if !r.Valid {
					broken = append(broken, r.Name)
				}
			}
			if diff := cmp.Diff(tt.broken, broken); diff != "" {
				t.Errorf("broken rules (-want +got):\n%s\nrules: %+v", diff, rules)
			}
			if Valid(rules) != (len(tt.broken) == 0) {
				t.Errorf("Valid = %v with %v broken", Valid(rules), broken)
			}
		})
	}
}

// lateEvery makes every k-th dispatch 80 ms late and the others 1 ms.
func lateEvery(k int) func(int) time.Duration {
	return func(i int) time.Duration {
		if i%k == k-1 {
			return 80 * time.Millisecond
		}
		return time.Millisecond
	}
}
