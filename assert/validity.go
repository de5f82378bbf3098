package assert

import (
	"fmt"
	"time"

	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/scenario"
)

// Rule is one validity rule of a run (metrics.Rule).
type Rule = metrics.Rule

// Valid reports whether no rule was broken.
func Valid(rules []Rule) bool {
	for _, r := range rules {
		if r.Applies && !r.Valid {
			return false
		}
	}
	return true
}

// Validity judges whether the load generator did what the scenario said:
// an open loop at a finite rate kept within MaxRateShortfall of its
// schedule's rate and its P99 dispatch lag within MaxLagP99 (judged by the
// lower end of the P99's 95% interval, so that one late dispatch of a
// hundred does not decide), the client's
// CPU stayed under MaxClientCPU, and the server's and the client's output
// token counts agreed on all but MaxTokenMismatch of the requests, the
// answers came from the model asked for and within max_tokens (but for
// MaxOtherModel and MaxOverMaxTokens of them), and no request failed for
// the client's own limits (ErrClientLimit: its open files or local ports,
// which make the server look broken when the client was). It reads
// no clock: the figures are the summary's, the bounds v's.
func Validity(v scenario.Validity, sum *metrics.Summary) []Rule {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	noSchedule := "no schedule to keep: a closed loop, or rate = \"inf\""
	rules := []Rule{
		{Name: "rate_shortfall", Description: "achieved dispatch rate under the schedule's own", Bound: v.MaxRateShortfall, Unit: "fraction"},
		{Name: "lag_p99", Description: "P99 dispatch lag", Bound: ms(v.MaxLagP99), Unit: "ms"},
		{Name: "client_cpu", Description: "client CPU, of the cores it may use", Bound: v.MaxClientCPU, Unit: "fraction"},
		{Name: "token_mismatch", Description: "requests whose usage count the stream disproves, or the client's tokenizer disputes", Bound: v.MaxTokenMismatch, Unit: "fraction"},
		{Name: "other_model", Description: "completed requests answered by another model than the target's", Bound: v.MaxOtherModel, Unit: "fraction"},
		{Name: "over_max_tokens", Description: "completed requests with more output than their max_tokens", Bound: v.MaxOverMaxTokens, Unit: "fraction"},
		{Name: "client_limit", Description: "requests that failed for the client's own limits (open files, local ports), not the server's", Unit: "fraction"},
		{Name: "client_overhead", Description: "P99 of TTFT outside the engine (TTFT less the engine's own): the network, a gateway, the HTTP front end and the client", Bound: ms(v.MaxClientOverhead), Unit: "ms"},
	}
	scheduled := sum.Scheduled && sum.Dispatches >= 2 && sum.ScheduledRate > 0
	for i := range rules {
		r := &rules[i]
		judged := &r.Value
		switch r.Name {
		case "rate_shortfall":
			if r.Applies = scheduled; scheduled {
				r.Value = max(0, 1-sum.AchievedRate/sum.ScheduledRate)
				r.Why = fmt.Sprintf("achieved %.2f req/s of the schedule's %.2f", sum.AchievedRate, sum.ScheduledRate)
			} else {
				r.Why = noSchedule
			}
		case "lag_p99":
			if r.Applies = sum.Scheduled && sum.Lag.Count > 0; r.Applies {
				r.Value = sum.Lag.P99
				r.Why = fmt.Sprintf("over %d dispatches", sum.Lag.Count)
				// A P99 of few dispatches is their worst few: the run is
				// invalid only when the lower end of the P99's 95%
				// interval is over the bound, not on one late dispatch.
				if lo, _, err := sum.Lag.PercentileInterval(99, metrics.DefaultConfidence); err == nil {
					judged = &lo
					r.Why += fmt.Sprintf("; judged by the lower end of its 95%% interval, %.3f ms", lo)
				}
			} else {
				r.Why = noSchedule
			}
		case "client_cpu":
			r.Applies, r.Value = true, sum.ClientCPU
		case "token_mismatch":
			if r.Applies = sum.TokenCountsCompared > 0; r.Applies {
				r.Value = sum.TokenMismatchFraction()
				r.Why = fmt.Sprintf("%d of %d requests with a usage count", sum.TokenCountMismatches, sum.TokenCountsCompared)
			} else {
				r.Why = "no request with a usage count"
			}
		case "other_model", "over_max_tokens":
			n := sum.OtherModel
			if r.Name == "over_max_tokens" {
				n = sum.OverMaxTokens
			}
			if r.Applies = sum.Completed > 0; r.Applies {
				r.Value = sum.OffSpecFraction(n)
				r.Why = fmt.Sprintf("%d of %d completed requests", n, sum.Completed)
			} else {
				r.Why = "no completed request"
			}
		case "client_overhead":
			o := sum.ClientOverhead
			if r.Applies = o.Count > 0; r.Applies {
				r.Value = o.P99
				r.Why = fmt.Sprintf("%d requests with the engine's own TTFT, p99 %.3f ms", o.Count, sum.EngineTTFT.P99)
				// As the lag: judged by the lower end of the P99's 95%
				// interval, so that one slow request of a few does not
				// decide.
				if lo, _, err := o.PercentileInterval(99, metrics.DefaultConfidence); err == nil {
					judged = &lo
					r.Why += fmt.Sprintf("; judged by the lower end of its 95%% interval, %.3f ms", lo)
				}
			} else {
				r.Why = "the engine reported no TTFT of its own (vLLM does with --enable-per-request-metrics)"
			}
		case "client_limit":
			n, all := sum.Errors[metrics.ErrClientLimit], sum.Completed+sum.Failed
			if r.Applies = all > 0; r.Applies {
				r.Value = float64(n) / float64(all)
				r.Why = fmt.Sprintf("%d of %d requests", n, all)
			} else {
				r.Why = "no request ended"
			}
		}
		r.Valid = !r.Applies || *judged <= r.Bound
	}
	return rules
}
