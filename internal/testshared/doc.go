// Package testshared is how tests find ../shared, the reference data that
// sits beside the repository on developer machines and in CI (tokenizers,
// ShareGPT samples, vLLM reference samplings).
//
// Where ../shared is absent (a fresh clone elsewhere) such tests skip and
// say why. In CI, which sets LLMLOAD_REQUIRE_SHARED=1, a missing file is a
// failure instead, so that CI cannot lose its reference data silently.
// When LLMLOAD_SHARED_SKIPLOG names a file, every skip appends one line to
// it; `make test` counts them.
//
// It is a leaf used by tests only; no production package imports it.
package testshared
