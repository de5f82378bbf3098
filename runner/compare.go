package runner

import (
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/llmload/llmload/compare"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
)

// CompareResults compares two results' summaries; with repeats on both
// sides, the run-to-run spread makes the intervals (compare.MethodRuns).
func CompareResults(basePath string, base, cand *results.Result, tols []compare.Tolerance) *results.Comparison {
	return compareResults(basePath, base, cand, tols, 0)
}

// compareResults is CompareResults with the scenario's min_samples (0:
// each percentile's own least).
func compareResults(basePath string, base, cand *results.Result, tols []compare.Tolerance, minSamples int) *results.Comparison {
	opts := compare.Options{BaseRuns: base.Repeat.Summaries(), NewRuns: cand.Repeat.Summaries(), MinSamples: int64(minSamples)}
	// A candidate that a sequential gate stopped, compared with the very
	// baseline the gate judged it against, is judged at its last look's
	// confidence, as its run judged it: a fixed 95% after the gate's looks
	// would be one look more than it paid for. Against another baseline
	// it is a comparison the gate never made: 95%.
	if st := cand.Repeat.StoppingOf(); st != nil && st.BaselineRunID != "" && st.BaselineRunID == base.RunID {
		opts.Confidence = st.LastConfidence()
	}
	return compareWith(basePath, base, cand, tols, opts)
}

// CompareFiles is CompareResults of two result files (llmload compare):
// when both kept their answers beside them (the requests files, and the
// texts outputs { keep } wrote), the candidate's answers are paired with
// the baseline's by prompt and the agreement figures join the table, as
// they do in a run against a stored baseline.
func CompareFiles(basePath, candPath string, base, cand *results.Result, tols []compare.Tolerance) (*results.Comparison, error) {
	ag, err := filesAgreement(basePath, candPath, base, cand)
	if err != nil {
		return nil, err
	}
	if cand.Summary != nil {
		own := *cand.Summary
		own.Agreement = ag
		c := *cand
		c.Summary = &own
		cand = &c
	}
	return CompareResults(basePath, base, cand, tols), nil
}

// filesAgreement pairs the answers beside two result files; without them,
// the candidate's own agreement when it was held against this very
// baseline file; else nil.
func filesAgreement(basePath, candPath string, base, cand *results.Result) (*metrics.Agreement, error) {
	bb, err := results.AnswersBeside(basePath)
	if err != nil {
		return nil, fmt.Errorf("%s: answers: %w", basePath, err)
	}
	cb, err := results.AnswersBeside(candPath)
	if err != nil {
		return nil, fmt.Errorf("%s: answers: %w", candPath, err)
	}
	if bb != nil && cb != nil && bb.Len() > 0 && cb.Len() > 0 {
		// The texts beside a result were scrubbed as they were written.
		ag := metrics.Agree(bb, cb, basePath, nil)
		ag.Sampled = base.Sampled || cand.Sampled
		return ag, nil
	}
	if cand.Summary == nil || cand.Summary.Agreement == nil {
		return nil, nil
	}
	a, errA := os.Stat(cand.Summary.Agreement.Against)
	b, errB := os.Stat(basePath)
	if errA == nil && errB == nil && os.SameFile(a, b) {
		return cand.Summary.Agreement, nil
	}
	return nil, nil
}

// compareWith compares two results' summaries with the given options.
func compareWith(basePath string, base, cand *results.Result, tols []compare.Tolerance, opts compare.Options) *results.Comparison {
	rows := compareRows(base.Goodput != nil || cand.Goodput != nil)
	rows = append(rows, engineRows(base.Summary, cand.Summary)...)
	rows = append(rows, agreementRows(cand.Summary)...)
	ds := compare.Compare(base.Summary, cand.Summary, rows, tols, opts)
	c := &results.Comparison{
		Baseline:          basePath,
		BaseRunID:         base.RunID,
		BaseServerVersion: base.ServerVersion,
		ServerVersion:     cand.ServerVersion,
		Verdict:           compare.Verdict(ds),
		Rows:              ds,
		Confidence:        opts.Confidence,
	}
	withServerConfig(c, base.ServerConfig, cand.ServerConfig, nil)
	withMetricDrift(c, base, cand)
	return c
}

// engineRows are the rows of the engine's own numbers that both sides
// have (an engine that reports them: docs/engines.md), so that a
// regression shows whether it was the engine's or the path to it.
func engineRows(base, cand *metrics.Summary) []compare.Row {
	var rows []compare.Row
	for _, r := range []compare.Row{{Metric: "engine_ttft", Stat: "p50"}, {Metric: "engine_prefill", Stat: "p50"}, {Metric: "engine_tpot", Stat: "p50"}, {Metric: "client_overhead", Stat: "p99"}} {
		if b, c := base.LatencyOf(r.Metric), cand.LatencyOf(r.Metric); b != nil && c != nil && b.Count > 0 && c.Count > 0 {
			rows = append(rows, r)
		}
	}
	if !math.IsNaN(base.PrefixReuse()) && !math.IsNaN(cand.PrefixReuse()) {
		rows = append(rows, compare.Row{Metric: "prefix_reuse"})
	}
	if !math.IsNaN(base.SpecAcceptance()) && !math.IsNaN(cand.SpecAcceptance()) {
		rows = append(rows, compare.Row{Metric: "spec_acceptance"})
	}
	return rows
}

// agreementRows are the agreement figures' rows, when the candidate's
// answers were paired with the baseline's: exact_match, and the two
// scores when texts were scored.
func agreementRows(cand *metrics.Summary) []compare.Row {
	if cand == nil || cand.Agreement == nil {
		return nil
	}
	rows := []compare.Row{{Metric: "exact_match"}}
	if a := cand.Agreement; a.Scored > 0 && !a.Sampled {
		rows = append(rows, compare.Row{Metric: "prefix_agreement"}, compare.Row{Metric: "answer_similarity"})
	}
	return rows
}

// compareRows are the table's figures; goodput only when a run measured it.
func compareRows(goodput bool) []compare.Row {
	var rows []compare.Row
	for _, r := range compare.DefaultRows {
		if !goodput && strings.HasSuffix(r.Metric, "goodput") {
			continue
		}
		rows = append(rows, r)
	}
	return rows
}
