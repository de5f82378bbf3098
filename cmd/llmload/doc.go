// Command llmload load-tests LLM inference servers from declarative HCL
// scenario files and gates releases on latency SLAs.
//
// main only wires the process (signals, exit code); everything else is in
// run, which tests call in-process. The commands' flags, their rendering
// (console, HTML, JUnit, Markdown, diagnostics) and their exit codes are
// here; what a run of a scenario is (target, dataset, baseline, shards,
// load, result, verdict) is package runner's.
//
// It is the top of the import graph, and nothing imports it; it imports
// none of executor, assert, compare and metrics itself (internal/arch
// holds it so): what a run does and how it is judged are runner's.
package main
