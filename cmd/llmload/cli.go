package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// version is the tool version, set at build time with
// -ldflags "-X main.version=...".
var version = "dev"

// env is what a command sees of the process.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, e env, args []string) int
}

func commands() []command {
	return []command{
		{"run", "run scenarios against their targets and check their SLAs", cmdRun},
		{"validate", "check scenario files without sending anything", cmdValidate},
		{"plan", "show what a run would do, without sending anything", cmdPlan},
		{"fmt", "rewrite scenario files in canonical format", cmdFmt},
		{"sim", "serve the built-in simulated inference engine", cmdSim},
		{"tokenize", "print the token ids (or count) of text read on stdin", cmdTokenize},
		{"merge", "merge result files of one scenario (shards, machines) and judge the checks", cmdMerge},
		{"dataset", "dataset tools: 'dataset dump' writes the sampled requests", cmdDataset},
		{"version", "print the version", cmdVersion},
	}
}

// run is the whole program: it parses args, runs one command and returns
// the process exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := env{stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		usage(stderr)
		return exitInvalid
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return exitOK
	case "-version", "--version":
		name = "version"
	}
	for _, c := range commands() {
		if c.name == name {
			return c.run(ctx, e, args[1:])
		}
	}
	fmt.Fprintf(stderr, "llmload: unknown command %q\n\n", name)
	usage(stderr)
	return exitInvalid
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: llmload <command> [flags] [args]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Flags take one or two dashes (-out or --out) and may come before or after arguments.")
	fmt.Fprintln(w, "Exit codes: 0 ok, 1 a check failed, 2 invalid input or usage, 3 no valid result, 130 interrupted.")
	fmt.Fprintln(w, "Run 'llmload <command> -h' for a command's flags.")
}

func cmdVersion(_ context.Context, e env, _ []string) int {
	fmt.Fprintf(e.stdout, "llmload %s\n", version)
	return exitOK
}

// newFlags returns a FlagSet that reports errors instead of exiting.
func newFlags(e env, name, argsUsage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "Usage: llmload %s [flags] %s\n\nFlags:\n", name, argsUsage)
		fs.PrintDefaults()
	}
	return fs
}

// parseInterspersed parses flags that may stand before, between or after
// positional arguments (the standard flag package stops at the first
// positional one). "--" ends flag parsing. It returns the positional
// arguments, or a usage exit code when parsing failed.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, int, bool) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, exitOK, false
			}
			return nil, exitInvalid, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, 0, true
		}
		// fs.Parse stops at "--" too; it is consumed, so everything after it
		// is positional when the previous argument was "--".
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), 0, true
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// multiFlag is a repeatable string flag (-var a=1 -var b=2).
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
