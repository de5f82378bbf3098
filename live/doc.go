// Package live serves a run's figures as Prometheus metrics while the run
// goes on, so that Prometheus (and a Grafana dashboard) can watch the load
// generator beside the server. It is an executor observer: it receives
// every finished request and the periodic snapshots on the recorder
// goroutine, and client_golang's collectors carry the values to the
// /metrics handler.
//
// It imports only metrics. The run's wiring (cmd/llmload) imports it.
package live
