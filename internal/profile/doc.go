// Package profile profiles the llmload process for the client benchmarks
// (bench/streams.sh), by environment so that it stays out of the flags
// users see: LLMLOAD_CPUPROFILE=FILE writes a CPU profile of the whole
// process, LLMLOAD_MEMPROFILE=FILE an allocation profile at exit, and
// LLMLOAD_GCSTATS=1 prints the GC's pause and CPU figures
// (runtime/metrics) and the peaks of the runtime's memory classes to
// stderr at exit.
//
// It imports nothing of llmload's; only cmd/llmload imports it.
package profile
