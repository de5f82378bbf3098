package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/llmload/llmload/internal/completion"
)

// cmdCompletion prints a shell completion script. The flags in it are
// read from the commands' own flag sets, so the script cannot drift from
// the commands.
func cmdCompletion(_ context.Context, e env, args []string) int {
	fs := newFlags(e, "completion", "bash|zsh")
	rest, code, ok := parseInterspersed(fs, args)
	if !ok {
		return code
	}
	if len(rest) != 1 {
		return fs.usageError("name one shell: bash or zsh")
	}
	cmds := commandFlags()
	switch rest[0] {
	case "bash":
		completion.Bash(e.stdout, cmds)
	case "zsh":
		completion.Zsh(e.stdout, cmds)
	default:
		msg := fmt.Sprintf("unknown shell %q: bash or zsh", rest[0])
		if s := suggest(rest[0], []string{"bash", "zsh"}); s != "" {
			msg += "; did you mean " + s + "?"
		}
		return fs.usageError(msg)
	}
	return exitOK
}

// commandFlags runs every command with a capture hook, which hands over
// its flag set at parse time instead of running it.
func commandFlags() []completion.Command {
	var out []completion.Command
	for _, c := range commands() {
		cf := completion.Command{Name: c.name, Summary: c.summary}
		e := env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, diag: &diagOptions{}}
		e.capture = func(fs *flagSet) {
			for _, name := range fs.listed() {
				cf.Flags = append(cf.Flags, fs.Lookup(name))
			}
		}
		args := []string{}
		if c.name == "dataset" {
			args = []string{"dump"}
		}
		c.run(context.Background(), e, args)
		out = append(out, cf)
	}
	return out
}
