package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
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
		writeBash(e.stdout, cmds)
	case "zsh":
		writeZsh(e.stdout, cmds)
	default:
		msg := fmt.Sprintf("unknown shell %q: bash or zsh", rest[0])
		if s := suggest(rest[0], []string{"bash", "zsh"}); s != "" {
			msg += "; did you mean " + s + "?"
		}
		return fs.usageError(msg)
	}
	return exitOK
}

type cmdFlags struct {
	command
	flags []*flag.Flag // the listed flags, in name order
}

// commandFlags runs every command with a capture hook, which hands over
// its flag set at parse time instead of running it.
func commandFlags() []cmdFlags {
	var out []cmdFlags
	for _, c := range commands() {
		cf := cmdFlags{command: c}
		e := env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, diag: &diagOptions{}}
		e.capture = func(fs *flagSet) {
			for _, name := range fs.listed() {
				cf.flags = append(cf.flags, fs.Lookup(name))
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

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

func writeBash(w io.Writer, cmds []cmdFlags) {
	var names []string
	for _, c := range cmds {
		names = append(names, c.name)
	}
	fmt.Fprintf(w, `# bash completion for llmload; load it with: source <(llmload completion bash)
_llmload() {
    local cur=${COMP_WORDS[COMP_CWORD]} flags=""
    if [[ $COMP_CWORD -eq 1 ]]; then
        COMPREPLY=($(compgen -W %q -- "$cur"))
        return
    fi
    case "${COMP_WORDS[1]}" in
`, strings.Join(names, " "))
	for _, c := range cmds {
		var fl []string
		for _, f := range c.flags {
			fl = append(fl, "-"+f.Name)
		}
		fmt.Fprintf(w, "        %s) flags=%q ;;\n", c.name, strings.Join(fl, " "))
	}
	fmt.Fprint(w, `    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$flags" -- "$cur"))
    fi
}
complete -o default -F _llmload llmload
`)
}

func writeZsh(w io.Writer, cmds []cmdFlags) {
	fmt.Fprint(w, `#compdef llmload
# zsh completion for llmload; load it with: source <(llmload completion zsh)
_llmload() {
    local -a commands
    commands=(
`)
	for _, c := range cmds {
		fmt.Fprintf(w, "        %s\n", zshQuote(c.name+":"+c.summary))
	}
	fmt.Fprint(w, `    )
    if (( CURRENT == 2 )); then
        _describe command commands
        return
    fi
    case $words[2] in
`)
	for _, c := range cmds {
		fmt.Fprintf(w, "        %s)\n            _arguments", c.name)
		for _, f := range c.flags {
			name, usage := flag.UnquoteUsage(f)
			spec := "-" + f.Name + "[" + zshEscape(firstClause(usage)) + "]"
			if !isBool(f) {
				if name == "" {
					name = "value"
				}
				spec += ":" + zshEscape(name) + ":"
				if name == "file" || name == "directory" || name == "path" {
					spec += "_files"
				}
			}
			fmt.Fprintf(w, " \\\n                %s", zshQuote(spec))
		}
		fmt.Fprint(w, " \\\n                '*:file:_files'\n            ;;\n")
	}
	fmt.Fprint(w, `    esac
}
compdef _llmload llmload
`)
}

// firstClause shortens a flag's usage for a completion menu.
func firstClause(s string) string {
	if i := strings.IndexAny(s, "(;"); i > 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

func zshEscape(s string) string {
	return strings.NewReplacer(`[`, `\[`, `]`, `\]`, `:`, `\:`).Replace(s)
}

func zshQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
