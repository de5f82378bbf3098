// Package anthropicwire names the parts of Anthropic's Messages API
// (POST /v1/messages) that the client (executor) and the simulator (sim)
// must agree on: its headers, the names of its stream's events and of
// their deltas, its stop reasons and its error types. It holds constants
// only, as internal/openaiwire does for the OpenAI wire format (the API's
// name and endpoint are the API table's, internal/apis).
//
// It is a leaf: it imports nothing of llmload. executor and sim import it.
package anthropicwire
