// Package e2e drives the built-in simulator through the real load client
// (executor), end to end over loopback HTTP, and checks the engine model's
// invariants as a user of llmload would observe them.
//
// It imports dataset, executor, metrics and sim, in tests only; nothing
// imports it.
package e2e
