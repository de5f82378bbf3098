// Package ops turns a measured capacity into what operators deploy:
// Prometheus alerting rules (a warning when the engine's own load signal
// per replica nears the capacity, a page when the sla's percentile,
// computed from the engine's histograms, stays over its bound) with
// promtool unit tests of them, a Kubernetes autoscaling/v2
// HorizontalPodAutoscaler (through a Prometheus Adapter rule, also
// written) and a KEDA ScaledObject whose per-replica target is the
// capacity's lower bound times a headroom.
//
// Derive reads a result (a capacity search, a sweep, or a closed loop of
// stages), finds the capacity and the bracket it lies in, converts it to a
// concurrency by Little's law, and chooses the engine metric that tracked
// the load best in the run's scraped series; Plan.Files writes the files.
// It imports metrics and results; cmd imports it.
package ops
