// Command llmload load-tests LLM inference servers from declarative HCL
// scenario files and gates releases on latency SLAs.
//
// main only wires the process (signals, exit code); everything else is in
// run, which tests call in-process.
//
// It is the top of the import graph: it may import every package of llmload,
// and nothing imports it.
package main
