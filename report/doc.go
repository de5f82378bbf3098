// Package report renders finished runs and owns the result files: the
// <scenario>.json result with vLLM's keys and units, the per-request
// <scenario>.requests.jsonl written as requests finish, the console report,
// the progress line, and the merge of several result files. It imports only
// metrics: every figure it prints was computed before it is called, and the
// console renders from the same Result that is written to disk, so a saved
// result renders as the live one did.
//
// It imports only metrics. cmd/llmload, tools/calibrate and the tests import
// it.
package report
