package results

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/llmload/llmload/metrics"
)

// MergeResults combines result files of one scenario and configuration
// (several machines, or several runs of the same thing) into one result,
// as if one client had sent every request: counters add up, histograms
// merge exactly, the time window is the union of the parts', throughputs
// and rates are recomputed over it, and time series line up on wall-clock
// time. It refuses results of different scenarios or configurations (their
// fingerprints differ) and the same result twice. Shards (results with a
// Shard) merge only with the other shards of their run: one run id, one
// shard count, each (run id, shard) once. Shards not given are listed in
// MissingShards; whether a partial merge is a result is the caller's call.
// Checks are left empty: the caller evaluates the scenario's checks on the
// merged figures.
func MergeResults(parts []*Result) (*Result, error) {
	if len(parts) == 0 {
		return nil, errors.New("nothing to merge")
	}
	first := parts[0]
	seen := map[pieceKey]int{}
	// Shards merge only with the other shards of their run: the first
	// piece decides whether this is a merge of shards, and of which run.
	firstPiece := piecesOf(first)[0]
	firstRun, sharded := firstPiece.RunID, firstPiece.Shard != nil
	shards := shardCheck{present: map[int]bool{}}
	for i, p := range parts {
		if p.Scenario != first.Scenario {
			return nil, fmt.Errorf("result %d is of scenario %q, result 1 of %q: only results of one scenario merge", i+1, p.Scenario, first.Scenario)
		}
		if p.Sweep != nil {
			return nil, fmt.Errorf("result %d is a %s over %s: the steps of sweeps and capacity searches do not merge", i+1, p.Sweep.Mode, p.Sweep.Vary)
		}
		if p.Repeat != nil || p.AB != nil {
			return nil, fmt.Errorf("result %d is a repeated or an A/B run, whose figures are already pools of its parts: it does not merge with others", i+1)
		}
		if p.Fingerprint == "" {
			return nil, fmt.Errorf("result %d has no configuration fingerprint (written by an older llmload): it cannot be shown to match the others", i+1)
		}
		if p.Fingerprint != first.Fingerprint {
			return nil, fmt.Errorf("result %d was made with a different configuration than result 1 (fingerprint %.12s vs %.12s: the resolved scenario, the sampled dataset or the llmload version differ)", i+1, p.Fingerprint, first.Fingerprint)
		}
		if len(p.Stages) != len(first.Stages) {
			return nil, fmt.Errorf("result %d has %d stages, result 1 has %d", i+1, len(p.Stages), len(first.Stages))
		}
		for _, pc := range piecesOf(p) {
			if err := shards.add(i, pc.RunID, pc.Shard, firstRun, sharded); err != nil {
				return nil, err
			}
			key := pieceKey{pc.RunID, -1}
			if pc.Shard != nil {
				key.shard = pc.Shard.Index
			}
			if j, dup := seen[key]; dup {
				return nil, fmt.Errorf("results %d and %d both hold %s: the same requests would be counted twice", j+1, i+1, key)
			}
			seen[key] = i
		}
	}

	var sums []*metrics.Summary
	run := &Run{
		Scenario: first.Scenario, ToolVersion: first.ToolVersion, ToolCommit: first.ToolCommit,
		RunID: first.RunID, Fingerprint: first.Fingerprint,
		StartedAt: first.StartedAt, EndedAt: first.EndedAt, TimeZero: first.TimeZero,
		TargetURL: first.TargetURL, API: first.API, Model: first.ModelID,
		Config: first.Config, Dataset: first.Dataset,
		TokenizerApproximate: first.TokenizerApproximate,
		RequestRate:          float64(first.RequestRate), Burstiness: first.Burstiness,
		Percentiles: first.Percentiles, PercentileMetrics: first.PercentileMetrics,
		Detailed: mergeDetailed(parts),
	}
	if first.TokenizerID != nil {
		run.Tokenizer = *first.TokenizerID
	}
	if first.MaxConcurrency != nil {
		run.MaxConcurrency = *first.MaxConcurrency
	}
	if g := first.Goodput; g != nil {
		run.Goodput = metrics.SLO{TTFT: fromMs(g.TTFT), TPOT: fromMs(g.TPOT), ITL: fromMs(g.ITL), E2EL: fromMs(g.E2EL)}
	}
	for _, p := range parts {
		sums = append(sums, p.Summary)
		if p.StartedAt.Before(run.StartedAt) {
			run.StartedAt = p.StartedAt
		}
		if p.EndedAt.After(run.EndedAt) {
			run.EndedAt = p.EndedAt
		}
		if p.TimeZero.Before(run.TimeZero) {
			run.TimeZero = p.TimeZero
		}
		run.Interrupted = run.Interrupted || p.Interrupted
		run.Sampled = run.Sampled || p.Sampled
		if run.Aborted == "" {
			run.Aborted = p.Aborted
		}
		run.Parts = append(run.Parts, piecesOf(p)...)
	}
	if sharded {
		run.ShardCount, run.MissingShards = shards.count, shards.missing()
	}
	run.ServerConfig = commonServerConfig(parts)
	overall, err := metrics.MergeSummaries(sums...)
	if err != nil {
		return nil, err
	}
	run.Overall = overall
	for i := range first.Stages {
		st := Stage{Stage: first.Stages[i].Stage, Users: 0}
		var stageSums []*metrics.Summary
		for _, p := range parts {
			ps := p.Stages[i]
			st.Users += ps.Users
			st.MeanUsers += ps.MeanUsers
			st.Duration = max(st.Duration, ps.Duration)
			stageSums = append(stageSums, ps.Summary)
		}
		if st.Summary, err = metrics.MergeStageSummaries(time.Duration(st.Duration*float64(time.Second)), stageSums...); err != nil {
			return nil, fmt.Errorf("stage %d: %w", st.Stage, err)
		}
		run.Stages = append(run.Stages, st)
	}
	res, err := NewResult(run)
	if err != nil {
		return nil, err
	}
	res.NumPrompts = 0
	for _, p := range parts {
		res.NumPrompts += p.NumPrompts
	}
	return res, nil
}

// mergeDetailed concatenates the parts' per-request arrays, in the order
// of the parts, when every part has them; nil otherwise.
func mergeDetailed(parts []*Result) *Detailed {
	d := &Detailed{}
	for _, p := range parts {
		if p.Detailed == nil {
			return nil
		}
		d.InputLens = append(d.InputLens, p.InputLens...)
		d.OutputLens = append(d.OutputLens, p.OutputLens...)
		d.TTFTs = append(d.TTFTs, p.TTFTs...)
		d.ITLs = append(d.ITLs, p.ITLs...)
		d.GeneratedTexts = append(d.GeneratedTexts, p.GeneratedTexts...)
		d.Errors = append(d.Errors, p.Errors...)
	}
	return d
}

func fromMs(v float64) time.Duration {
	return time.Duration(math.Round(v * float64(time.Millisecond)))
}

// piecesOf returns the unmerged results a result holds: its parts when it
// is a merge, else itself.
func piecesOf(r *Result) []Part {
	if len(r.Parts) > 0 {
		return r.Parts
	}
	return []Part{PartOf(r)}
}

// commonServerConfig is the parts' server configuration when every part
// recorded the same one (shards of one deployment), else nil: a merge of
// runs against differently configured servers has no one configuration.
func commonServerConfig(parts []*Result) *ServerConfig {
	first := parts[0].ServerConfig
	for _, p := range parts[1:] {
		c := p.ServerConfig
		if (c == nil) != (first == nil) || c.Exposed() != first.Exposed() || len(ConfigChanges(first, c)) > 0 {
			return nil
		}
	}
	return first
}
