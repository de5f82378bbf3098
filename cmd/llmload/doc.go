// Command llmload load-tests LLM inference servers from declarative HCL
// scenario files and gates releases on latency SLAs.
//
// main only wires the process (signals, exit code); everything else is in
// run, which tests call in-process. The commands' flags, their rendering
// (console, HTML, JUnit, Markdown, diagnostics) and their exit codes are
// here; what a run of a scenario is (target, dataset, baseline, shards,
// load, result, verdict) is package runner's.
//
// It is the top of the import graph: it may import every package of llmload,
// and nothing imports it.
package main
