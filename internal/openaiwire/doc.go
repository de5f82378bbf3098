// Package openaiwire names the parts of the OpenAI-compatible HTTP API
// that the client (executor), its fake test server (executor/executortest)
// and the simulator (sim) must agree on: the "object" names of responses
// and stream chunks, the finish reasons and the stream's terminator (the
// APIs' names and endpoints are the API table's, internal/apis). It
// holds constants only and imports nothing of ours, so sim can share the
// definitions without depending on the executor.
//
// The JSON field names stay where the JSON is written or read: the
// simulator renders its chunks from pre-built byte strings and the client
// reads them with gjson, and neither would be clearer with the names
// spelled as constants.
//
// It is a leaf: it imports nothing of llmload. executor,
// executor/executortest and sim import it.
package openaiwire
