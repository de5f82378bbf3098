// Package results owns what a finished run is, as data: the result schema
// (Result, with vLLM's keys and units first, then llmload's own: checks,
// validity, stages, sweep steps, shards, repeats, A/B arms, the baseline
// comparison), its files (the <scenario>.json result, written atomically
// and read back; the <scenario>.requests.jsonl written as requests finish;
// vLLM's per-request arrays), the merge of several result files, and the
// figures computed from a run's summaries (capacity, knee, schedule,
// spreads, a result's overall verdict). It prints nothing: report renders
// a Result, and a saved result renders as the live one did.
//
// It imports metrics and compare (a comparison's rows are compare.Delta).
// runner, report, cmd/llmload, tools/calibrate and the tests import it; it
// never imports report.
package results
