// Command fakeserver serves executortest's fake OpenAI-compatible streaming
// server in a process of its own, so that a benchmark can measure the load
// generator's memory and CPU apart from the server's. It prints its URL on
// the first line of stdout and serves until killed (SIGINT or SIGTERM).
//
// With -record FILE it also writes, when stopped, what it delivered: one
// JSON line per request with its x-request-id, when its handler began
// (received_ns) and when each output chunk was flushed (sends_ns), in Unix
// nanoseconds: the ground truth bench/streams.sh compares the client with.
//
//	go run ./tools/fakeserver -tokens 256
//
// It imports executor/executortest; nothing imports it.
package main
