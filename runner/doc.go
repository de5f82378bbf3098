// Package runner owns what a run of one scenario is: starting its target
// (the in-process simulator for sim://), loading its dataset and baseline,
// lining up with the other shards (run id, common start, shard 0's
// barrier, clock probes), sending the load (one run, repeats, a sweep or
// capacity search, or an interleaved A/B run), scraping the server,
// building the result, judging it (checks, validity, the baseline
// comparison) and writing its files. It also judges a merge of shards'
// results (JudgeMerged).
//
// A run is a tree of levels (tree.go), each one type with one job: a
// sweep or capacity search has steps, a step or a scenario has repeats,
// an A/B run has blocks on two arms, and every leaf is one executor run;
// the observers see the leaves as one run and one function pools them.
// What cannot combine is refused by scenario before any traffic.
//
// It prints progress and messages to the io.Writer it is given and
// returns a Status and hcl.Diagnostics: rendering (console, HTML, JUnit,
// Markdown, diagnostics), flags and exit codes are cmd/llmload's. A run is
// exposed in phases (RunScenario, then Verdict, Save and Close) so that
// the command renders the report between them.
//
// It imports scenario, assert, compare, dataset, executor, metrics,
// results, live, scrape, sim and tokenizer (and, through them, internal/secret and internal/openaiwire).
// cmd/llmload imports it.
package runner
