// Package metrics holds per-request results, the recorder that turns them
// into HDR histograms, the run summary, and the catalogue of metric names
// that checks may refer to.
//
// It is the leaf of the project: it imports nothing of llmload, and any
// package may import it.
package metrics
