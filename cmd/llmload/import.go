package main

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/llmload/llmload/internal/vllmimport"
)

// cmdImport translates another tool's command line into a scenario:
// llmload import [-out FILE] vllm [--] <benchmark_serving.py arguments>.
func cmdImport(_ context.Context, e env, args []string) int {
	fs := newFlags(e, "import", "vllm [--] BENCHMARK_ARGS...")
	out := outFlag(fs, "", "write the scenario to this `file` (default: stdout)")
	// Flags stop at the tool's name: what follows is the other tool's
	// command line, which llmload must not parse as its own.
	split := len(args)
	for i, a := range args {
		if a == "vllm" {
			split = i
			break
		}
	}
	if rest, code, ok := parseInterspersed(fs, args[:split]); !ok {
		return code
	} else if len(rest) > 0 {
		return fs.usageError(fmt.Sprintf("unknown tool %q: llmload imports vllm (benchmark_serving.py, vllm bench serve)", rest[0]))
	}
	if split == len(args) {
		return fs.usageError("name the tool: llmload import vllm -- <arguments>")
	}
	bench := args[split+1:]
	// llmload's own flags may also stand between the tool's name and "--"
	// (llmload import vllm -out x.hcl -- ...); without "--", a lone -h asks
	// for help.
	for i, a := range bench {
		if a == "--" {
			if rest, code, ok := parseInterspersed(fs, bench[:i]); !ok {
				return code
			} else if len(rest) > 0 {
				return fs.usageError(fmt.Sprintf("%q before --: put the benchmark's arguments after --", rest[0]))
			}
			bench = bench[i+1:]
			break
		}
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
		fmt.Fprintf(e.stderr, "llmload import: not translated: %s\n", u)
	}
	if *out == "" {
		e.stdout.Write(res.HCL)
		return exitOK
	}
	if err := writeFileAtomic(*out, func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(res.HCL))
		return err
	}); err != nil {
		fmt.Fprintf(e.stderr, "llmload import: %v\n", err)
		return exitInvalid
	}
	fmt.Fprintf(e.stderr, "llmload import: wrote %s\n", *out)
	return exitOK
}
