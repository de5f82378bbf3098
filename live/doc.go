// Package live shows a run while it goes on: the progress line (Progress)
// on the run's log, and the run's figures served as Prometheus metrics, so
// that Prometheus (and a Grafana dashboard) can watch the load generator
// beside the server. Both are executor observers: they receive every
// finished request and the periodic snapshots on the recorder goroutine,
// and client_golang's collectors carry the values to the /metrics
// handler.
//
// It imports only metrics. The run's wiring (runner) imports it.
package live
