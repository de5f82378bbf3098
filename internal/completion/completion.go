package completion

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// Command is one command of the binary: its name, its one-line summary
// and its listed flags, in name order.
type Command struct {
	Name, Summary string
	Flags         []*flag.Flag
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// Bash writes a bash completion script for the commands.
func Bash(w io.Writer, cmds []Command) {
	var names []string
	for _, c := range cmds {
		names = append(names, c.Name)
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
		for _, f := range c.Flags {
			fl = append(fl, "-"+f.Name)
		}
		fmt.Fprintf(w, "        %s) flags=%q ;;\n", c.Name, strings.Join(fl, " "))
	}
	fmt.Fprint(w, `    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$flags" -- "$cur"))
    fi
}
complete -o default -F _llmload llmload
`)
}

// Zsh writes a zsh completion script for the commands.
func Zsh(w io.Writer, cmds []Command) {
	fmt.Fprint(w, `#compdef llmload
# zsh completion for llmload; load it with: source <(llmload completion zsh)
_llmload() {
    local -a commands
    commands=(
`)
	for _, c := range cmds {
		fmt.Fprintf(w, "        %s\n", zshQuote(c.Name+":"+c.Summary))
	}
	fmt.Fprint(w, `    )
    if (( CURRENT == 2 )); then
        _describe command commands
        return
    fi
    case $words[2] in
`)
	for _, c := range cmds {
		fmt.Fprintf(w, "        %s)\n            _arguments", c.Name)
		for _, f := range c.Flags {
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
