// Package report renders finished runs: the console report (vLLM's block
// first, with its labels and layout), the HTML report
// (gonum/plot SVG), JUnit XML, Markdown, CSV, the JSON summary, GitHub
// annotations and the comparison table. Every view is a pure function of a
// results.Result, so a saved result renders as the live run did and a
// merged result like any other; the schema, the files and the figures are
// results'.
//
// It imports metrics, compare and results. cmd/llmload, the tools and the
// tests import it.
package report
