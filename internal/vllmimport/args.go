package vllmimport

import (
	"slices"
	"strings"
)

// option is one command-line option as written: its name (normalised to
// dashes, without the leading "--") and its values.
type option struct {
	name string
	vals []string
	// inline is set when the value was written as --name=value.
	inline bool
	// written is the name as the command line has it, dashes included:
	// --num_prompt for --num-prompts.
	written string
}

// text is the option as the user wrote it, for messages.
func (o option) text() string {
	name := o.written
	if name == "" {
		name = "--" + o.name
	}
	if o.inline {
		return name + "=" + o.vals[0]
	}
	parts := append([]string{name}, o.vals...)
	for i := 1; i < len(parts); i++ {
		parts[i] = shellQuote(parts[i])
	}
	return strings.Join(parts, " ")
}

// arity of vLLM's options: 0 for switches, many for argparse's nargs="+"
// and nargs="*"; every other option of vLLM's takes one value, as argparse
// reads it (a word after it is a stray argument). Unknown options take
// every value up to the next option.
const many = -1

var arity = map[string]int{
	"append-result": 0, "custom-skip-chat-template": 0, "disable-shuffle": 0, "disable-tqdm": 0,
	"ignore-eos": 0, "no-oversample": 0, "profile": 0, "save-detailed": 0, "save-result": 0,
	"trust-remote-code": 0, "use-beam-search": 0, "skip-chat-template": 0, "no-stream": 0,
	"insecure": 0, "plot-timeline": 0, "plot-dataset-stats": 0, "skip-tokenizer-init": 0,
	"self-timed": 0, "no-self-timed": 0, "no-reranker": 0, "help": 0,
	"goodput": many, "metadata": many, "header": many, "lora-modules": many,
}

// arityOf is how many values an option takes.
func arityOf(name string) int {
	if n, ok := arity[name]; ok {
		return n
	}
	if slices.Contains(vllmOptions, name) {
		return 1
	}
	return many
}

// parse splits a command line into the program words before the first
// option (python3 benchmarks/benchmark_serving.py, vllm bench serve),
// the options, and stray words. Option names are read as vLLM's parser
// reads them: underscores as dashes, a unique prefix as the option it
// abbreviates; an ambiguous prefix is an error.
func parse(args []string) (program []string, opts []option, stray []string, err error) {
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
		o := option{written: a}
		if n, v, ok := strings.Cut(a, "="); ok {
			o.written, o.vals, o.inline = n, []string{v}, true
		}
		name := strings.TrimLeft(o.written, "-")
		// vLLM's parser accepts --dataset_path for --dataset-path, and
		// --num-prompt for --num-prompts. It has no one-dash option but
		// -h: -o is none of its options, not an abbreviation.
		o.name = strings.ReplaceAll(name, "_", "-")
		if !strings.HasPrefix(o.written, "--") {
			o.name = o.written // never one of vLLM's
		} else if o.name, err = resolve(o.name); err != nil {
			return nil, nil, nil, err
		}
		if !o.inline {
			n := arityOf(o.name)
			for (n == many || len(o.vals) < n) && i < len(args) && !isOption(args[i]) {
				o.vals = append(o.vals, args[i])
				i++
			}
		}
		opts = append(opts, o)
	}
	return program, opts, stray, nil
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

// OwnFlags takes llmload's own flags out of the words after the tool's
// name: those written with one dash, -name VALUE or -name=VALUE for the
// names in withValue, -name or -name=BOOL for those in switches. vLLM's
// benchmark has no one-dash option but -h, so such a word is never part of
// its command line, wherever it stands (after "--" too). Words with two
// dashes are left to the command: --out is vLLM's --output-len, which
// argparse lets it abbreviate so.
func OwnFlags(words, withValue, switches []string) (own, rest []string) {
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "-") || strings.HasPrefix(w, "--") {
			rest = append(rest, w)
			continue
		}
		name, _, inline := strings.Cut(w[1:], "=")
		switch {
		case slices.Contains(switches, name):
			own = append(own, w)
		case slices.Contains(withValue, name):
			own = append(own, w)
			if !inline && i+1 < len(words) {
				i++
				own = append(own, words[i])
			}
		default:
			rest = append(rest, w)
		}
	}
	return own, rest
}
