// Command fakeserver serves executortest's fake OpenAI-compatible streaming
// server in a process of its own, so that a benchmark can measure the load
// generator's memory and CPU apart from the server's. It prints its URL on
// the first line of stdout and serves until killed.
//
//	go run ./internal/fakeserver -tokens 256
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/llmload/llmload/executor/executortest"
)

func main() {
	tokens := flag.Int("tokens", 0, "output tokens per response (0: the request's max_tokens)")
	ttft := flag.Duration("ttft", 0, "time to first token")
	itl := flag.Duration("itl", 0, "time between tokens")
	flag.Parse()
	srv := executortest.New(executortest.Config{Tokens: *tokens, TTFT: *ttft, ITL: *itl})
	defer srv.Close()
	fmt.Println(srv.URL)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
}
