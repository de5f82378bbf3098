package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/agext/levenshtein"

	"github.com/llmload/llmload/internal/buildinfo"
	"github.com/llmload/llmload/internal/secret"
)

// version and commit identify the build. Release builds set them with
// -ldflags "-X main.version=... -X main.commit=..."; otherwise both come
// from Go's build information (buildinfo.Read): the module version of go
// install ...@v1.2.3, the pseudo-version and VCS revision of a go build in
// a checkout. Results record the same (tool_version, tool_commit).
var (
	version = buildinfo.UnstampedVersion
	commit  = buildinfo.UnstampedCommit
)

// env is what a command sees of the process.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// diag says how diagnostics are rendered; commands that read
	// scenario files set it from -compact and -verbose.
	diag *diagOptions
	// capture, when set, receives each command's flags instead of the
	// command running (shell completion lists them).
	capture func(*flagSet)
	// secrets holds every secret of the configuration once it is loaded
	// (keys, sensitive variables and headers, URL passwords); stdout and
	// stderr are scrubbed of them, a last net under the scrubbing each
	// package does where a secret could enter a message.
	secrets *secret.Scrubber
}

// scrubWriter scrubs each write of the secrets known so far. A command
// writes a message in one call, so a secret is not split across writes.
type scrubWriter struct {
	w       io.Writer
	secrets *secret.Scrubber
}

func (s scrubWriter) Write(p []byte) (int, error) {
	if len(s.secrets.Secrets()) == 0 && !bytes.Contains(p, []byte("://")) {
		return s.w.Write(p)
	}
	if _, err := io.WriteString(s.w, s.secrets.Scrub(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
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
		{"import", "translate a vLLM benchmark command line into a scenario", cmdImport},
		{"sim", "serve the built-in simulated inference engine", cmdSim},
		{"tokenize", "print the token ids (or count) of text read on stdin", cmdTokenize},
		{"report", "render result files as text or as one HTML page, several overlaid", cmdReport},
		{"compare", "compare a run with a baseline run: deltas, intervals, and a verdict against tolerances", cmdCompare},
		{"merge", "merge result files of one scenario (shards, machines) and judge the checks", cmdMerge},
		{"ops", "alert rules, promtool tests and autoscaler targets from a measured capacity", cmdOps},
		{"dataset", "dataset tools: 'dataset dump' writes the sampled requests", cmdDataset},
		{"completion", "print a bash or zsh completion script", cmdCompletion},
		{"version", "print the version, commit and Go version", cmdVersion},
	}
}

// stderrIsTerminalHook decides how diagnostics are rendered; tests
// replace it.
var stderrIsTerminalHook = isTerminal

// run is the whole program: it parses args, runs one command and returns
// the process exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	secrets := secret.New()
	e := env{stdin: stdin, stdout: scrubWriter{stdout, secrets}, stderr: scrubWriter{stderr, secrets},
		diag: &diagOptions{terminal: stderrIsTerminalHook(stderr)}, secrets: secrets}
	if len(args) == 0 {
		usage(stderr)
		return exitInvalid
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		usage(stdout)
		return exitOK
	case "help":
		if len(args) < 2 {
			usage(stdout)
			return exitOK
		}
		// llmload help run == llmload run -h
		name, args = args[1], []string{args[1], "-h"}
	case "-version", "--version":
		name = "version"
	}
	if c, ok := lookupCommand(name); ok {
		return c.run(ctx, e, args[1:])
	}
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	msg := fmt.Sprintf("llmload: unknown command %q", name)
	if s := suggest(name, names); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	fmt.Fprintln(stderr, msg)
	fmt.Fprintln(stderr, "Usage: llmload <command> [flags] [args]")
	fmt.Fprintln(stderr, "Run 'llmload -h' for the list of commands.")
	return exitInvalid
}

func lookupCommand(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
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

// suggest returns the choice closest to given, when one is close enough
// to be a typo.
func suggest(given string, choices []string) string {
	best, bestD := "", 3
	for _, c := range choices {
		if d := levenshtein.Distance(given, c, nil); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func cmdVersion(_ context.Context, e env, args []string) int {
	fs := newFlags(e, "version", "")
	if rest, code, ok := parseInterspersed(fs, args); !ok {
		return code
	} else if len(rest) > 0 {
		return fs.usageError(fmt.Sprintf("unexpected argument %q", rest[0]))
	}
	b := buildinfo.Read(version, commit)
	c := cmp.Or(b.Commit, buildinfo.UnstampedCommit)
	if b.Modified {
		c += " (modified)"
	}
	fmt.Fprintf(e.stdout, "llmload %s\ncommit  %s\ngo      %s %s/%s\n", b.Version, c, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return exitOK
}

// flagSet is a command's flags: a flag.FlagSet that reports errors in
// short (the error, a did-you-mean, one usage line) and knows which
// flags are hidden aliases.
type flagSet struct {
	*flag.FlagSet
	e         env
	name      string // "run", "dataset dump"
	argsUsage string
	hidden    map[string]bool
}

// newFlags returns a command's FlagSet. Errors are reported by
// parseInterspersed, never by the flag package (which would print every
// flag).
func newFlags(e env, name, argsUsage string) *flagSet {
	fs := &flagSet{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), e: e, name: name, argsUsage: argsUsage, hidden: map[string]bool{}}
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// alias makes old another name for the flag new, accepted but not listed.
func (fs *flagSet) alias(old, new string) {
	f := fs.Lookup(new)
	fs.Var(f.Value, old, f.Usage)
	fs.hidden[old] = true
}

// usageLine is the command's one-line usage.
func (fs *flagSet) usageLine() string {
	return strings.TrimSpace(fmt.Sprintf("Usage: llmload %s [flags] %s", fs.name, fs.argsUsage))
}

// help prints the command's usage and every listed flag.
func (fs *flagSet) help(w io.Writer) {
	fmt.Fprintf(w, "%s\n\nFlags:\n", fs.usageLine())
	listed := flag.NewFlagSet(fs.name, flag.ContinueOnError)
	listed.SetOutput(w)
	fs.VisitAll(func(f *flag.Flag) {
		if !fs.hidden[f.Name] {
			listed.Var(f.Value, f.Name, f.Usage)
			listed.Lookup(f.Name).DefValue = f.DefValue
		}
	})
	listed.PrintDefaults()
}

// listed returns the names of the flags -h lists, in order.
func (fs *flagSet) listed() []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) {
		if !fs.hidden[f.Name] {
			names = append(names, f.Name)
		}
	})
	return names
}

// usageError prints a problem with the command line in short and
// returns the usage exit code.
func (fs *flagSet) usageError(msg string) int {
	fmt.Fprintf(fs.e.stderr, "llmload %s: %s\n%s\nRun 'llmload %s -h' for all flags.\n", fs.name, msg, fs.usageLine(), fs.name)
	return exitInvalid
}

// parseError turns the flag package's error into a short message, with
// a suggestion for a misspelt flag.
func (fs *flagSet) parseError(err error) int {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		msg = "unknown flag -" + name
		if s := suggest(name, fs.listed()); s != "" {
			msg += "; did you mean -" + s + "?"
		}
	}
	return fs.usageError(msg)
}

// parseInterspersed parses flags that may stand before, between or after
// positional arguments (the standard flag package stops at the first
// positional one). "--" ends flag parsing. It returns the positional
// arguments, or an exit code when parsing failed or -h was asked for
// (which prints the help on stdout and exits 0).
func parseInterspersed(fs *flagSet, args []string) ([]string, int, bool) {
	if fs.e.capture != nil {
		fs.e.capture(fs)
		return nil, exitOK, false
	}
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.help(fs.e.stdout)
				return nil, exitOK, false
			}
			return nil, fs.parseError(err), false
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

// outFlag registers -out and its short spelling -o, which every command
// that writes a file takes.
func outFlag(fs *flagSet, def, usage string) *string {
	p := fs.String("out", def, usage+" (or -o)")
	fs.alias("o", "out")
	return p
}

// multiFlag is a repeatable string flag (-var a=1 -var b=2).
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
