// Package conformance is the suite that runs llmload, as a user would
// (the binary, a scenario file, its exit code and result), against real
// inference engines serving a generated tiny model: llama.cpp's
// llama-server and Ollama, built by .ci/engines.sh into a cache outside
// the repository. It holds tests only.
//
// The engines are found through LLMLOAD_LLAMA_SERVER and LLMLOAD_OLLAMA,
// or in the cache folder engines.sh writes (LLMLOAD_ENGINES, else
// $XDG_CACHE_HOME or ~/.cache, then llmload/engines/bin). When one is
// missing its tests skip with a message, unless LLMLOAD_REQUIRE_ENGINES is
// set (as CI sets it), where they fail: CI cannot lose the suite silently.
//
// What each engine does differently is recorded in docs/engines.md, each
// row with the test here that shows it. It imports engines/tinymodel (the
// model) and internal/testshared (../shared's tokenizer), and drives the
// binary rather than importing llmload's packages; nothing imports it.
package conformance
