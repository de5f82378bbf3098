// Package arch holds the test that keeps imports flowing one way, as
// docs/architecture.md describes: only scenario and assert see
// HCL, and no package imports one above it.
//
// It imports nothing of llmload and nothing imports it: it reads the import
// graph with `go list`.
package arch
