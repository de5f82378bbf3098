// Package resultstest holds the runs that the tests of results and report
// share: an open loop with failures and checks, a closed loop with stages,
// a run in which every request failed, one on the simulator with chosen
// percentiles and vLLM's per-request arrays, and shards of a split run.
// The result files and console reports of the first four have golden
// files.
//
// It imports results and metrics. Only tests import it.
package resultstest
