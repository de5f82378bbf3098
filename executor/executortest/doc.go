// Package executortest is a fake OpenAI-compatible streaming server for
// tests: it serves /v1/completions and /v1/chat/completions over SSE on
// loopback with controlled timing (time to first token, inter-token gaps),
// chunk shapes and faults.
//
// It imports only internal/apis (the endpoints) and internal/openaiwire. Tests, and tools/fakeserver (a
// benchmark's server), import it; no production package does.
package executortest
