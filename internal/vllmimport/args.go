package vllmimport

import (
	"strings"
)

// option is one command-line option as written: its name (normalised to
// dashes, without the leading "--") and its values.
type option struct {
	name string
	vals []string
	// inline is set when the value was written as --name=value.
	inline bool
}

// text is the option as the user wrote it, for messages.
func (o option) text() string {
	if o.inline {
		return "--" + o.name + "=" + o.vals[0]
	}
	parts := append([]string{"--" + o.name}, o.vals...)
	for i := 1; i < len(parts); i++ {
		parts[i] = shellQuote(parts[i])
	}
	return strings.Join(parts, " ")
}

// arity of vLLM's options: 0 for switches, 1 for one value, many for
// argparse's nargs="+" and nargs="*". Options not listed take every value
// up to the next option, which is right for both kinds.
const many = -1

var arity = map[string]int{
	"append-result": 0, "custom-skip-chat-template": 0, "disable-shuffle": 0, "disable-tqdm": 0,
	"ignore-eos": 0, "no-oversample": 0, "profile": 0, "save-detailed": 0, "save-result": 0,
	"trust-remote-code": 0, "use-beam-search": 0, "skip-chat-template": 0, "no-stream": 0,
	"goodput": many, "metadata": many, "header": many,
}

// parse splits a command line into the program words before the first
// option (python3 benchmarks/benchmark_serving.py, vllm bench serve),
// the options, and stray words.
func parse(args []string) (program []string, opts []option, stray []string) {
	i := 0
	for i < len(args) && !strings.HasPrefix(args[i], "--") {
		program = append(program, args[i])
		i++
	}
	for i < len(args) {
		a := args[i]
		i++
		if !isOption(a) {
			stray = append(stray, a)
			continue
		}
		name := strings.TrimLeft(a, "-")
		o := option{}
		if n, v, ok := strings.Cut(name, "="); ok {
			name, o.vals, o.inline = n, []string{v}, true
		}
		// vLLM's parser accepts --dataset_path for --dataset-path.
		o.name = strings.ReplaceAll(name, "_", "-")
		if !o.inline {
			n, known := arity[o.name]
			if !known {
				n = many
			}
			for (n == many || len(o.vals) < n) && i < len(args) && !isOption(args[i]) {
				o.vals = append(o.vals, args[i])
				i++
			}
		}
		opts = append(opts, o)
	}
	return program, opts, stray
}

// isOption reports whether a word is an option rather than a value: it
// starts with a dash and is not a negative number.
func isOption(s string) bool {
	if len(s) < 2 || s[0] != '-' {
		return false
	}
	c := strings.TrimLeft(s, "-")
	return c == "" || !(c[0] >= '0' && c[0] <= '9' || c[0] == '.')
}

// shellQuote quotes a word for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,+@%$", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
