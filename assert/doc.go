// Package assert evaluates a scenario's checks (its sla bounds and assert
// conditions) over the metrics of a finished run.
//
// Conditions were decoded and checked against the metric catalogue when
// the scenario loaded; here they are evaluated in a minimal context that
// holds only the `metrics` object and the condition functions, so that a
// failing one carries its expression and context and HCL's diagnostic
// writer shows the values involved ("with metrics.ttft.p99 as 612.3").
//
// It imports scenario, metrics and compare. Only runner imports it.
package assert
