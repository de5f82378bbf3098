package scenario

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// RunFlags are the command-line options that change what a run of a
// scenario is. Some scenarios cannot run under some of them; `llmload run`
// refuses those before any traffic, and `llmload validate` takes the same
// flags so that it refuses them too.
type RunFlags struct {
	// Shards is N of -shard i/N (0: the run is not split).
	Shards int
	// Baseline: -baseline names a baseline result.
	Baseline bool
	// StartAt, Barrier and RunID: -start-at, -barrier and -run-id, which
	// line a run up with others.
	StartAt, Barrier, RunID bool
}

// coordinated reports whether any flag lines the run up with others.
func (f RunFlags) coordinated() bool { return f.Shards > 0 || f.StartAt || f.Barrier || f.RunID }

// CheckRunFlags returns an error for each way the scenario cannot run
// under f, at the block or attribute that makes it impossible:
//   - a repeated scenario (repeat = N) cannot be split or lined up with
//     other processes: its runs follow one another in one process;
//   - an A/B scenario (targets = {...}) takes no -baseline (its baseline
//     is its baseline arm) and cannot be split;
//   - a sweep or capacity search cannot be split: its steps follow one
//     another in one process, and merge does not merge them;
//   - a closed loop cannot be split into more shards than its users, nor
//     an open loop of N requests into more than N shards.
func (s *Scenario) CheckRunFlags(f RunFlags) hcl.Diagnostics {
	var diags hcl.Diagnostics
	refuse := func(rng *hcl.Range, summary, detail string) {
		if rng == nil {
			rng = &s.DeclRange
		}
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: rng})
	}
	if s.Repeats() > 1 && f.coordinated() {
		refuse(s.repeatRange, "A repeated run cannot be split",
			fmt.Sprintf("Scenario %q repeats itself (repeat = %d): its runs follow one another in one process, so -shard, -run-id, -start-at and -barrier do not apply. Remove repeat to split the run, or drop those flags.", s.Name, s.Repeats()))
	}
	if s.AB() {
		if f.Baseline {
			refuse(s.targetsRange, "An A/B run takes no -baseline",
				fmt.Sprintf("Scenario %q is an A/B run: its baseline is its baseline arm, measured in the same run. Drop -baseline, or name one target to gate against a saved baseline.", s.Name))
		}
		if f.coordinated() {
			refuse(s.targetsRange, "An A/B run cannot be split",
				fmt.Sprintf("Scenario %q is an A/B run: its arms alternate in one process, so -shard, -run-id, -start-at and -barrier do not apply.", s.Name))
		}
	}
	// (A users sweep's closed loop has no users of its own: its steps
	// are checked when they run.)
	if cl := s.ClosedLoop; cl != nil && f.Shards > 1 && cl.Users > 0 && cl.Users < f.Shards {
		refuse(s.closedRange, "More shards than users",
			fmt.Sprintf("A closed loop of %d users cannot be split into %d shards: a shard would have no user. Use at most %d shards, or more users.", cl.Users, f.Shards, cl.Users))
	}
	if s.Varies() != "" && f.coordinated() {
		what := "A sweep"
		if s.Capacity != nil {
			what = "A capacity search"
		}
		refuse(s.variedRange, what+" cannot be split",
			fmt.Sprintf("Scenario %q runs its steps one after another in one process (and a capacity search picks each probe from the whole load's verdict on the last), and llmload merge does not merge steps: -shard, -run-id, -start-at and -barrier do not apply. Run it unsplit, or split a scenario of one load.", s.Name))
	}
	if s.OpenLoop != nil && s.Varies() == "" && f.Shards > 1 && s.Requests > 0 && s.Requests < f.Shards {
		refuse(s.requestsRange, "More shards than requests",
			fmt.Sprintf("%d requests cannot be split into %d shards: a shard would have no arrival. Use at most %d shards, or more requests.", s.Requests, f.Shards, s.Requests))
	}
	return diags
}
