// Package apis is the one table of the server APIs llmload speaks: each
// API's name (a target's api in a scenario), its endpoint, whether it
// streams generated tokens and whether it can carry a conversation. The
// scenario language validates a target's api against it, the executor's
// protocols (executor/protocol_<api>.go) and the simulator's front ends
// (sim/api_<api>.go) register by its names and take the endpoint from it,
// and the vLLM importer names its APIs from it. Adding an API is a row
// here, one file in executor and one in sim; the tests of both fail while
// a row has no file.
//
// It is a leaf: it imports nothing of llmload. scenario, executor
// (and executor/executortest), sim and internal/vllmimport import it.
package apis
