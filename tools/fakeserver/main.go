package main

import (
	"bufio"
	"encoding/json"
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
	record := flag.String("record", "", "write what was delivered to this file (JSON lines) when stopped")
	flag.Parse()
	// One descriptor per connection: take the hard limit.
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil && lim.Cur < lim.Max {
		lim.Cur = lim.Max
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	}
	srv := executortest.New(executortest.Config{Tokens: *tokens, TTFT: *ttft, ITL: *itl, RecordSends: *record != ""})
	fmt.Println(srv.URL)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	srv.CloseClientConnections()
	if *record != "" {
		if err := write(*record, srv); err != nil {
			fmt.Fprintln(os.Stderr, "fakeserver:", err)
			os.Exit(1)
		}
	}
}

// delivery is one request as the server delivered it.
type delivery struct {
	ID       string  `json:"id"`
	Received int64   `json:"received_ns"`
	Sends    []int64 `json:"sends_ns"`
}

func write(path string, srv *executortest.Server) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	recv := srv.ReceivedAt()
	for id, sends := range srv.AllSends() {
		d := delivery{ID: id, Received: recv[id].UnixNano()}
		for _, t := range sends {
			d.Sends = append(d.Sends, t.UnixNano())
		}
		if err := enc.Encode(d); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}
