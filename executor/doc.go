// Package executor generates load against an OpenAI-compatible streaming
// endpoint and measures every response token by token.
//
// Run takes a Plan (a target, the requests, and one load model: an open loop
// of scheduled arrivals or a closed loop of virtual users) and returns an
// Outcome with one metrics.Request per request and the summaries of
// metrics.Recorder. Results travel over a channel to a single recorder
// goroutine, which owns every histogram. A failed request is data; Run
// returns an error only when the run cannot start.
//
// The package knows HTTP, the OpenAI streaming formats and Anthropic's
// Messages stream; it knows nothing of HCL (scenarios are turned into a
// Plan by the caller).
//
// Each API is one protocol_<api>.go registered under its name in the API
// table (internal/apis), which gives its endpoint and whether it streams.
//
// It imports dataset, metrics, tokenizer, internal/apis,
// internal/openaiwire, internal/anthropicwire, internal/secret and
// internal/safehttp. runner and the end-to-end tests
// (internal/e2e) import it. It never sees HCL or the simulator.
package executor
