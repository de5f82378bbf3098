package runner

import (
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/llmload/llmload/assert"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/scenario"
)

// JudgeMerged judges a merged result by its scenario's checks, as the
// result files recorded them (path is the first file's, for diagnostics),
// evaluated once on the merged figures: it sets the result's checks,
// stages, capacity, validity and baseline comparison, and returns the
// scenario of the checks and their outcomes, for Judge. A baseline it
// names is loaded as a run would (messages to opts.Log); opts.Baseline is
// not read. A status other than StatusOK, or diagnostics, mean it could
// not judge.
func JudgeMerged(res *results.Result, path string, opts Options) (*scenario.Scenario, []assert.Outcome, Status, hcl.Diagnostics) {
	sc, diags := scenario.ChecksFromResolved(path, res.Config)
	if diags.HasErrors() {
		return nil, nil, StatusInvalid, diags
	}
	outs := assert.Evaluate(sc, res.Summary)
	if sc.UsesBaseline() || sc.Baseline != "" {
		// The baseline the runs named, judged against the merged figures.
		base, baseRes, st := baselineFor(opts.log(), sc, "", opts.Force)
		if st != StatusOK {
			return nil, nil, st, nil
		}
		if base != nil {
			outs = assert.EvaluateWith(sc, res.Summary, base)
		}
		res.Comparison = comparison(sc, baseRes, &results.Run{Overall: res.Summary, RunID: res.RunID, ServerVersion: res.ServerVersion}, nil)
	}
	res.Checks = reportChecks(outs)
	for i := range res.Stages {
		res.Stages[i] = judgeStage(sc, res.Stages[i])
	}
	res.Capacity = results.CapacityOf(res.Stages)
	res.Validity = ReportValidity(opts.validity(sc), res.Summary)
	return sc, outs, StatusOK, nil
}

// CheckSimTargets checks the configuration's sim:// profiles and sim { }
// overrides without starting anything.
func CheckSimTargets(cfg *scenario.Config) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, t := range cfg.Targets {
		if strings.HasPrefix(t.BaseURL, SimScheme) {
			_, d := simProfile(t)
			_, rd := simReplicas(t)
			diags = append(append(diags, d...), rd...)
		}
	}
	return diags
}
