// Package scenario parses, decodes and validates llmload's HCL scenario
// language.
//
// Load reads one or more files (or directories of *.hcl files) into a
// Config of plain Go values: targets, datasets and scenarios with their
// durations, paths and bounds already resolved. Every problem is reported as
// an hcl.Diagnostic with a source range, all of them in one pass; render
// them with Config.WriteDiagnostics.
//
// The one thing not evaluated at load time is an assert block's condition:
// it stays an hcl.Expression, checked at load time against the metric
// catalogue and evaluated after the run by package assert.
//
// A target's api is validated against the API table (internal/apis).
//
// It imports metrics (the catalogue), compare (tolerances),
// internal/apis, internal/secret and internal/safehttp. assert, internal/vllmimport and cmd/llmload import it.
// Only scenario and assert see HCL.
package scenario
