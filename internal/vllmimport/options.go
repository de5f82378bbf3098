package vllmimport

import (
	"fmt"
	"slices"
	"strings"
)

// vllmOptions are the long options of vLLM's benchmark, without "--": the
// union of vllm bench serve (vllm/benchmarks/serve.py add_cli_args and
// vllm/benchmarks/datasets add_dataset_parser, vLLM 0.11 to early 2026) and
// the older benchmarks/benchmark_serving.py (vLLM 0.6 to 0.9). They resolve
// the abbreviations argparse accepts: a unique prefix of one of them is that
// option, a prefix of several is an error. The union makes an abbreviation
// that one version would read otherwise an error here, never a guess.
var vllmOptions = []string{
	// The dataset (add_dataset_parser).
	"seed", "num-prompts", "dataset-name", "dataset-path", "dataset", "no-stream", "no-oversample",
	"skip-chat-template", "custom-skip-chat-template", "disable-shuffle",
	"custom-output-len", "spec-bench-output-len", "spec-bench-category",
	"sonnet-input-len", "sonnet-output-len", "sonnet-prefix-len", "sharegpt-output-len",
	"blazedit-min-distance", "blazedit-max-distance",
	"random-input-len", "random-output-len", "random-range-ratio", "random-prefix-len",
	"random-batch-size", "no-reranker",
	"random-mm-base-items-per-request", "random-mm-num-mm-items-range-ratio",
	"random-mm-limit-mm-per-prompt", "random-mm-bucket-config",
	"hf-subset", "hf-split", "hf-name", "hf-output-len",
	"prefix-repetition-prefix-len", "prefix-repetition-suffix-len",
	"prefix-repetition-num-prefixes", "prefix-repetition-output-len",
	// The benchmark (add_cli_args, add_options).
	"label", "backend", "endpoint-type", "base-url", "host", "port", "endpoint", "header",
	"max-concurrency", "model", "input-len", "output-len", "tokenizer", "tokenizer-mode",
	"trust-remote-code", "best-of", "use-beam-search", "logprobs", "request-rate", "burstiness",
	"probe-request-rate", "disable-tqdm", "num-warmups", "profile", "save-result", "save-detailed",
	"append-result", "metadata", "result-dir", "result-filename", "ignore-eos",
	"self-timed", "no-self-timed", "percentile-metrics", "metric-percentiles", "goodput",
	"request-id-prefix", "top-p", "top-k", "min-p", "temperature", "frequency-penalty",
	"presence-penalty", "repetition-penalty", "served-model-name", "lora-modules",
	"lora-assignment", "ramp-up-strategy", "ramp-up-start-rps", "ramp-up-end-rps",
	"ready-check-timeout-sec", "chat-template-kwargs", "extra-body", "skip-tokenizer-init",
	"insecure", "plot-timeline", "timeline-itl-thresholds", "plot-dataset-stats", "help",
}

// resolve returns the option a name written on the command line means, as
// argparse reads it: the option of that name, else the one option it is a
// prefix of. A name that is a prefix of several is an error, as in vLLM;
// one that is no option's name or prefix is returned as it is (an unknown
// option, listed as untranslated).
func resolve(name string) (string, error) {
	if name == "" || slices.Contains(vllmOptions, name) {
		return name, nil
	}
	var matches []string
	for _, o := range vllmOptions {
		if strings.HasPrefix(o, name) {
			matches = append(matches, "--"+o)
		}
	}
	switch len(matches) {
	case 0:
		return name, nil
	case 1:
		return matches[0][2:], nil
	}
	slices.Sort(matches)
	return "", fmt.Errorf("ambiguous option: --%s could match %s (vLLM's argparse refuses it too): write the option in full", name, strings.Join(matches, ", "))
}
