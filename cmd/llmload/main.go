package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/llmload/llmload/internal/profile"
)

func main() {
	// SIGHUP (a closed terminal, a CI runner's hang-up) stops a run as
	// SIGTERM does: drained, partial results written, exit 130.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	// The first Ctrl-C cancels the run, which drains and writes partial
	// results; restoring the default handling then lets a second one kill
	// the process at once.
	go func() {
		<-ctx.Done()
		stop()
	}()
	// A closed stdout (run ... | head -1) fails the writes to it instead
	// of killing the process: a run still writes its result files and
	// exits by its verdict.
	signal.Ignore(syscall.SIGPIPE)
	endProfiles := profile.Start(os.Stderr)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	endProfiles()
	stop()
	os.Exit(code)
}
