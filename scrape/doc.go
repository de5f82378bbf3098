// Package scrape reads a server's Prometheus metrics endpoint while a run
// goes on: it fetches the text format every interval, parses it with the
// Prometheus libraries and keeps, per scrape, only the metric families
// llmload knows (the catalogue's server sources) or was asked for. A
// failed scrape is counted, never fatal.
//
// It imports only metrics. runner imports it.
package scrape
