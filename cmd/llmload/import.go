package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/llmload/llmload/internal/vllmimport"
)

// cmdImport translates another tool's command line into a scenario:
// llmload import [-out FILE] [-lenient] vllm [--] <benchmark arguments>.
// It exits 1 when an argument could not be translated and the scenario is
// not the command's benchmark (the file is written all the same), unless
// -lenient; 2 when no scenario could be written.
func cmdImport(_ context.Context, e env, args []string) int {
	fs := newFlags(e, "import", "vllm [--] BENCHMARK_ARGS...")
	out := outFlag(fs, "", "write the scenario to this `file` (default: stdout)")
	lenient := fs.Bool("lenient", false, "exit 0 when an argument could not be translated and the scenario is not the command's benchmark (default: exit 1, the scenario written all the same)")
	// Flags stop at the tool's name: what follows is the other tool's
	// command line, which llmload must not parse as its own.
	split := slices.Index(args, "vllm")
	if split < 0 {
		split = len(args)
	}
	if rest, code, ok := parseInterspersed(fs, args[:split]); !ok {
		return code
	} else if len(rest) > 0 {
		return fs.usageError(fmt.Sprintf("unknown tool %q: llmload imports vllm (benchmark_serving.py, vllm bench serve)", rest[0]))
	}
	if split == len(args) {
		return fs.usageError("name the tool: llmload import vllm -- <arguments>")
	}
	// llmload's own flags may also stand between the tool's name and "--"
	// (llmload import vllm -out x.hcl -- ...), and with one dash anywhere
	// after it (-o x.hcl, -lenient); without "--", a lone -h asks for help.
	own, bench := vllmimport.OwnFlags(args[split+1:], []string{"o", "out"}, []string{"lenient"})
	if i := slices.Index(bench, "--"); i >= 0 {
		own, bench = append(slices.Clone(bench[:i]), own...), bench[i+1:]
	}
	if rest, code, ok := parseInterspersed(fs, own); !ok {
		return code
	} else if len(rest) > 0 {
		return fs.usageError(fmt.Sprintf("%q before --: put the benchmark's arguments after --", rest[0]))
	}
	if len(bench) == 1 && (bench[0] == "-h" || bench[0] == "-help" || bench[0] == "--help") {
		if _, code, _ := parseInterspersed(fs, bench); code == exitOK {
			return exitOK
		}
	}
	res, err := vllmimport.Translate(bench)
	if err != nil {
		fmt.Fprintf(e.stderr, "llmload import: %v\n", err)
		return exitInvalid
	}
	for _, u := range res.Untranslated {
		fmt.Fprintf(e.stderr, "llmload import: not translated (%s): %s\n", map[bool]string{true: "the benchmark is the same", false: "the benchmark CHANGES"}[u.Same], u)
	}
	if *out == "" {
		e.stdout.Write(res.HCL)
	} else if err := writeFileAtomic(*out, func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(res.HCL))
		return err
	}); err != nil {
		fmt.Fprintf(e.stderr, "llmload import: %v\n", err)
		return exitInvalid
	} else {
		fmt.Fprintf(e.stderr, "llmload import: wrote %s\n", *out)
	}
	if n := len(res.Changed()); n > 0 {
		fmt.Fprintf(e.stderr, "llmload import: %d argument(s) could not be translated and change the benchmark (listed above and in the file): the scenario is not the command's benchmark", n)
		if !*lenient {
			fmt.Fprintln(e.stderr, "; exit 1 (-lenient accepts it)")
			return exitCheckFailed
		}
		fmt.Fprintln(e.stderr, "; accepted by -lenient")
	}
	return exitOK
}
