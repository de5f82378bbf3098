package vllmimport

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/llmload/llmload/scenario"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Real command lines, each with where it was published. Shell variables
// were given the values stated, and <placeholders> kept as written.
var commands = []struct {
	name string
	cmd  string
}{
	// vllm-project/vllm benchmarks/README.md, "Example - Online Benchmark".
	{"readme-online-sharegpt", `python3 vllm/benchmarks/benchmark_serving.py \
  --backend vllm \
  --model NousResearch/Hermes-3-Llama-3.1-8B \
  --endpoint /v1/completions \
  --dataset-name sharegpt \
  --dataset-path "<your data path>/ShareGPT_V3_unfiltered_cleaned_split.json" \
  --num-prompts 10`},
	// vllm-project/vllm benchmarks/README.md, "Custom Dataset".
	{"readme-custom-jsonl", `python3 benchmarks/benchmark_serving.py --port 9001 --save-result --save-detailed \
  --backend vllm \
  --model meta-llama/Llama-3.1-8B-Instruct \
  --endpoint /v1/completions \
  --dataset-name custom \
  --dataset-path "<path-to-your-data-jsonl>" \
  --custom-skip-chat-template \
  --num-prompts 80 \
  --max-concurrency 1 \
  --temperature=0.3 \
  --top-p=0.75 \
  --result-dir "./log/"`},
	// vllm-project/vllm benchmarks/README.md, "Running With Sampling Parameters".
	{"readme-sampling-params", `python3 vllm/benchmarks/benchmark_serving.py \
  --backend vllm \
  --model NousResearch/Hermes-3-Llama-3.1-8B \
  --endpoint /v1/completions \
  --dataset-name sharegpt \
  --dataset-path "<your data path>/ShareGPT_V3_unfiltered_cleaned_split.json" \
  --top-k 10 \
  --top-p 0.9 \
  --temperature 0.5 \
  --num-prompts 10`},
	// vllm-project/vllm benchmarks/README.md, "VisionArena Benchmark for Vision Language Models".
	{"readme-visionarena-hf", `python3 vllm/benchmarks/benchmark_serving.py \
  --backend openai-chat \
  --model Qwen/Qwen2-VL-7B-Instruct \
  --endpoint /v1/chat/completions \
  --dataset-name hf \
  --dataset-path lmarena-ai/VisionArena-Chat \
  --hf-split train \
  --num-prompts 1000`},
	// vLLM's benchmarks README of early 2025 ("Benchmarking vLLM", run a benchmark).
	{"readme-2025-openai-base-url", `python3 benchmarks/benchmark_serving.py \
    --backend openai \
    --base-url http://0.0.0.0:8000 \
    --model neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8 \
    --num-prompts 1000 \
    --dataset-name sharegpt  \
    --dataset-path benchmarks/data/ShareGPT_V3_cleaned_split_test_dataset.json \
    --request-rate 1000 \
    --seed 12345`},
	// vllm-project/vllm benchmarks/auto_tune/auto_tune.sh, the request-rate inf run
	// (MODEL=meta-llama/Llama-3.1-8B-Instruct, INPUT_LEN=4000 with 60% cache hits,
	// OUTPUT_LEN=16, MAX_LATENCY_ALLOWED_MS=500).
	{"auto-tune-inf", `vllm bench serve \
        --backend vllm \
        --model meta-llama/Llama-3.1-8B-Instruct  \
        --dataset-name random \
        --random-input-len 1600 \
        --random-output-len 16 \
        --ignore-eos \
        --disable-tqdm \
        --request-rate inf \
        --percentile-metrics ttft,tpot,itl,e2el \
        --goodput e2el:500 \
        --num-prompts 1000 \
        --random-prefix-len 2400 \
        --port 8004`},
	// vllm-project/vllm benchmarks/auto_tune/auto_tune.sh, the final profiling run
	// (same values; best_request_rate=7).
	{"auto-tune-profile", `vllm bench serve \
        --backend vllm \
        --model meta-llama/Llama-3.1-8B-Instruct \
        --dataset-name random \
        --random-input-len 1600 \
        --random-output-len 16 \
        --ignore-eos \
        --disable-tqdm \
        --request-rate 7 \
        --percentile-metrics ttft,tpot,itl,e2el \
        --goodput e2el:500 \
        --num-prompts 100 \
        --random-prefix-len 2400 \
        --port 8004 \
        --profile`},
	// skylee-01/vllm examples/my_test/strss.sh.
	{"vllm-bench-serve-sharegpt", `vllm bench serve \
  --backend vllm \
  --model /home/lisiqi/work/models/Qwen3-4B \
  --endpoint /v1/completions \
  --dataset-name sharegpt \
  --dataset-path /home/lisiqi/work/models/ShareGPT_V3_unfiltered_cleaned_split.json \
  --num-prompts 10`},
	// swjeong9/vllm-example benchmark/run_benchmark_example.sh (--flag=value and nargs="*").
	{"save-result-metadata", `python benchmark_serving.py --backend vllm \
    --model meta-llama/Llama-3.2-3B-Instruct \
    --dataset-name sharegpt \
    --dataset-path=/home/ubuntu/vllm-example/benchmark/dataset/sharegpt/ShareGPT_Vicuna_unfiltered/ShareGPT_V3_unfiltered_cleaned_split.json \
    --save-result --save-detailed \
    --seed 42 \
    --result-dir=./result --metadata pp=1 tp=1 rank0=T4x1`},
	// msserviceprofiler 1.1.2 (PyPI) modelevalstate/run_vllm_benchmark.sh
	// (MAXCONCURRENCY=64, REQUESTRATE=8, the output folder ./out).
	{"sonnet-served-model-name", `python /workspace/vllm/benchmarks/benchmark_serving.py \
    --backend vllm \
    --host 127.0.0.1 \
    --port 6379 \
    --model MODEL_PATH \
    --served-model-name MODEL_NAME \
    --dataset-name sonnets \
    --dataset-path vllm/benchmarks/sonnet.txt \
    --num-prompts 3000 \
    --max-concurrency 64 \
    --request-rate 8 \
    --result-dir ./out \
    --save-result`},
	// vllm-project/vllm-skills, "vllm-bench-random-synthetic" quick start
	// (https://skills.sh/vllm-project/vllm-skills/vllm-bench-random-synthetic).
	{"skills-random-chat", `vllm bench serve \
--backend openai-chat \
--model Qwen/Qwen2.5-1.5B-Instruct \
--endpoint /v1/chat/completions \
--dataset-name random \
--num-prompts 10`},
	// The README of SparkLLM/vllm rust/src/bench (gitcode.com), a drop-in
	// vllm bench serve; its program name vllm-bench written as vllm bench serve.
	{"random-max-concurrency", `vllm bench serve --backend vllm --base-url http://127.0.0.1:8000 \
--model meta-llama/Llama-3.1-8B-Instruct --dataset-name random \
--random-input-len 1024 --random-output-len 128 \
--num-prompts 1000 --max-concurrency 200`},
	// Not published: made up to cover gamma arrivals (--burstiness, from
	// vLLM's help text), range ratio, headers, no program words, an option
	// repeated (argparse keeps the last), underscores and an unknown option.
	{"constructed-burstiness", `--model m --base_url https://llm.example.com/ --dataset-name random \
--random-range-ratio 0.5 --request-rate 4 --burstiness 0.5 --seed 7 --header X-Team=serving \
--header Authorization=Bearer-s3cret --temperature 0 --temperature 0.7 --num-warmups 5 --no-such-flag 3 \
--goodput ttft:300 tpot:12.5 itl:5 --metric-percentiles 90,99 --result-filename run.json`},
}

func TestTranslateGolden(t *testing.T) {
	for _, tt := range commands {
		t.Run(tt.name, func(t *testing.T) {
			args := shellWords(t, tt.cmd)
			res, err := Translate(args)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", tt.name+".golden")
			if *update {
				if err := os.WriteFile(golden, res.HCL, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), string(res.HCL)); diff != "" {
				t.Errorf("scenario (-want +got):\n%s", diff)
			}
			// Every untranslated argument is in the file too.
			for _, u := range res.Untranslated {
				if !strings.Contains(string(res.HCL), u.String()) {
					t.Errorf("untranslated %q is not in the file's comment", u)
				}
			}
			if strings.Contains(string(res.HCL), "s3cret") {
				t.Errorf("the scenario holds a credential header's value:\n%s", res.HCL)
			}
			if out, _ := scenario.Format(golden, res.HCL); string(out) != string(res.HCL) {
				t.Errorf("the scenario is not in canonical format")
			}
			loads(t, res.HCL)
		})
	}
}

// loads checks that a scenario decodes without a problem. scenario.Load
// does not open the dataset files it names, so paths that do not exist
// here are fine.
func loads(t *testing.T, src []byte) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "imported.hcl")
	if err := os.WriteFile(f, src, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, diags := scenario.Load([]string{f}, scenario.LoadOptions{})
	if diags.HasErrors() {
		var b strings.Builder
		cfg.WriteDiagnostics(&b, diags, scenario.Verbose)
		t.Fatalf("the scenario does not load:\n%s\n%s", b.String(), src)
	}
	if len(cfg.Scenarios) != 1 {
		t.Fatalf("%d scenarios, want 1", len(cfg.Scenarios))
	}
	// It runs against another server without an edit.
	cfg, diags = scenario.Load([]string{f}, scenario.LoadOptions{Vars: []string{"base_url=http://10.1.2.3:9", "model=other"}})
	if diags.HasErrors() {
		t.Fatalf("-var base_url and -var model: %v", diags)
	}
	if tg := cfg.Target(TargetName); tg.BaseURL != "http://10.1.2.3:9" || tg.Model != "other" {
		t.Errorf("with -var base_url and -var model, the target is %s serving %q", tg.BaseURL, tg.Model)
	}
}

func TestTranslateUntranslated(t *testing.T) {
	res, err := Translate(shellWords(t, `--model m --percentile-metrics ttft,goodput --metric-percentiles 50,101 --result-filename=out/x.json --bogus a b --disable-tqdm stray`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range res.Untranslated {
		got = append(got, u.Arg)
	}
	want := []string{"--percentile-metrics goodput", "--metric-percentiles 101", "--result-filename=out/x.json", "--bogus a b", "--disable-tqdm", "stray"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("untranslated (-want +got):\n%s", diff)
	}
}

func TestTranslateNeedsModel(t *testing.T) {
	if _, err := Translate([]string{"--dataset-name", "random"}); err == nil || !strings.Contains(err.Error(), "--model") {
		t.Errorf("Translate without --model: err %v, want one naming --model", err)
	}
}

func TestTranslateValues(t *testing.T) {
	tests := []struct {
		args string
		want string // a line the scenario holds
	}{
		{"--model m --request-rate=inf", `rate    = "inf"`},
		{"--model m --request-rate 2.5", `rate    = 2.5`},
		{"--model m --backend openai-chat", `default     = "http://127.0.0.1:8000"`},
		{"--model m --backend openai-chat", `api      = "openai-chat"`},
		{"--model m --base-url http://h:1/v1 --endpoint /completions", `default     = "http://h:1"`},
		{"--model m --host 10.0.0.1 --port 9000", `default     = "http://10.0.0.1:9000"`},
		{"--model m --tokenizer /models/x/tokenizer.json", `tokenizer = "/models/x/tokenizer.json"`},
		{"--model m --dataset-name sharegpt --dataset-path s.json --sharegpt-output-len 64 --no-oversample", `output_len  = 64`},
		{"--model m --dataset-name sharegpt --dataset-path s.json --no-oversample", `oversample  = false`},
		{"--model m --dataset-name custom --dataset-path d.jsonl --disable-shuffle --custom-output-len 32", `shuffle     = false`},
		{"--model m --seed 3", `seed     = 3`},
		{"--model m --percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 25,50,99.9", `percentiles        = [25, 50, 99.9]`},
		{"--model m --percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 25,50,99.9", `percentile_metrics = ["ttft", "tpot", "itl", "e2el"]`},
		{"--model m --result-filename run.json --save-detailed", `result_filename = "run.json"`},
		{"--model m --result-filename run.json --save-detailed", `save_detailed   = true`},
		{"--model m --temperature 0.7", `temperature = 0.7`},
		{"--model m --dataset-name sharegpt --dataset-path s.json --ignore-eos", `ignore_eos = true`},
		{"--model m --dataset-name random", `ignore_eos = true`},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			res, err := Translate(strings.Fields(tt.args))
			for _, u := range res.Untranslated {
				for _, opt := range []string{"--seed", "--percentile-metrics", "--metric-percentiles", "--result-filename", "--save-detailed", "--temperature", "--ignore-eos"} {
					if strings.HasPrefix(u.Arg, opt) {
						t.Errorf("%s is listed as untranslated: %v", opt, u)
					}
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(res.HCL), tt.want) {
				t.Errorf("scenario lacks %q:\n%s", tt.want, res.HCL)
			}
			loads(t, res.HCL)
		})
	}
}

// shellWords splits a command line as a POSIX shell would, for the forms
// the table uses: quotes, and backslash-newline continuations.
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	in := false
	var quote rune
	s = strings.ReplaceAll(s, "\\\n", " ")
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		t.Fatalf("unterminated quote in %q", s)
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// TestTranslateChanged: which arguments make the scenario another
// benchmark than the command's (llmload import exits 1 for them unless
// -lenient), which leave it the same, and how vLLM's argparse reads
// abbreviations. The repros of issue 34 come first.
func TestTranslateChanged(t *testing.T) {
	tests := []struct {
		name        string
		args        string
		wantChanged []string // Arg of each changed argument, in order
		wantSame    []string // Arg of each argument without effect
		wantLine    string   // a line the scenario holds
		wantErr     string   // part of the error, when no scenario is written
	}{
		{"hf becomes random", "--model m --dataset-name hf --dataset-path lmarena-ai/VisionArena-Chat",
			[]string{"--dataset-name hf"}, []string{"--dataset-path lmarena-ai/VisionArena-Chat"}, `random {`, ""},
		{"sonnet becomes random", "--model m --dataset-name sonnet --dataset-path sonnet.txt --sonnet-input-len 550",
			[]string{"--sonnet-input-len 550", "--dataset-name sonnet"}, []string{"--dataset-path sonnet.txt"}, `random {`, ""},
		{"an unparsable rate is dropped", "--model m --request-rate abc",
			[]string{"--request-rate abc"}, nil, `rate    = "inf"`, ""},
		{"an abbreviation, as argparse reads it", "--model m --num-prompt 10",
			nil, nil, `requests = 10`, ""},
		{"an abbreviation with underscores and =", "--model m --num_prom=12",
			nil, nil, `requests = 12`, ""},
		{"an abbreviation of a dataset option", "--model m --dataset-name random --random-in 64",
			nil, nil, `input_len   = 64`, ""},
		{"an ambiguous abbreviation", "--model m --num 10",
			nil, nil, "", "ambiguous option: --num could match --num-prompts, --num-warmups"},
		{"an ambiguous abbreviation with =", "--model m --top=5",
			nil, nil, "", "ambiguous option: --top could match --top-k, --top-p"},
		{"an unknown option", "--model m --no-such-flag 3",
			[]string{"--no-such-flag 3"}, nil, "", ""},
		{"a one-dash option", "--model m -o x.hcl",
			[]string{"-o x.hcl"}, nil, "", ""},
		{"a stray word", "--model m stray",
			[]string{"stray"}, nil, "", ""},
		{"output options only", "--model m --save-result --result-dir ./out --disable-tqdm --metadata tp=1 --label x",
			nil, []string{"--save-result", "--result-dir ./out", "--disable-tqdm", "--metadata tp=1", "--label x"}, "", ""},
		{"a credential header is read from the environment", "--model m --header X-Api-Key=s3cret",
			nil, []string{"--header X-Api-Key=<redacted>"}, `"X-Api-Key" = env("X_API_KEY", "")`, ""},
		{"another dataset's option, which vLLM ignores too", "--model m --dataset-name random --hf-split train --sharegpt-output-len 5",
			nil, []string{"--hf-split train", "--sharegpt-output-len 5"}, "", ""},
		{"a ramp changes the load", "--model m --ramp-up-strategy linear --ramp-up-start-rps 1 --ramp-up-end-rps 5",
			[]string{"--ramp-up-strategy linear", "--ramp-up-start-rps 1", "--ramp-up-end-rps 5"}, nil, "", ""},
		{"--output-len overrides the dataset's, wherever it stands", "--model m --output-len 32 --random-output-len 64",
			nil, nil, `output_len  = 32`, ""},
		{"--out abbreviates --output-len", "--model m --out 16",
			nil, nil, `output_len  = 16`, ""},
		{"--input-len", "--model m --input-len 300",
			nil, nil, `input_len   = 300`, ""},
		{"--insecure", "--model m --base-url https://h:8443 --insecure",
			nil, nil, `insecure_skip_verify = true`, ""},
		{"the server and model are variables", "--model m --served-model-name served --port 9001",
			nil, nil, `default     = "served"`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Translate(strings.Fields(tt.args))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var changed, same []string
			for _, u := range res.Untranslated {
				if u.Same {
					same = append(same, u.Arg)
				} else {
					changed = append(changed, u.Arg)
				}
			}
			if diff := cmp.Diff(tt.wantChanged, changed); diff != "" {
				t.Errorf("changed (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSame, same); diff != "" {
				t.Errorf("without effect (-want +got):\n%s", diff)
			}
			if got := len(res.Changed()); got != len(tt.wantChanged) {
				t.Errorf("Changed() holds %d, want %d", got, len(tt.wantChanged))
			}
			if !strings.Contains(string(res.HCL), tt.wantLine) {
				t.Errorf("scenario lacks %q:\n%s", tt.wantLine, res.HCL)
			}
			loads(t, res.HCL)
		})
	}
}

// TestOptionsResolve: every option Translate reads is one of vLLM's, so an
// abbreviation of it resolves, and no name is listed twice.
func TestOptionsResolve(t *testing.T) {
	seen := map[string]bool{}
	for _, o := range vllmOptions {
		if seen[o] {
			t.Errorf("%s is listed twice", o)
		}
		seen[o] = true
	}
	for _, o := range []string{"base-url", "host", "port", "endpoint", "model", "served-model-name", "tokenizer",
		"dataset-name", "dataset-path", "backend", "endpoint-type", "dataset", "num-prompts", "request-rate",
		"burstiness", "max-concurrency", "seed", "ignore-eos", "goodput", "temperature", "top-p", "min-p",
		"repetition-penalty", "frequency-penalty", "presence-penalty", "top-k", "logprobs", "header",
		"num-warmups", "sharegpt-output-len", "random-input-len", "random-output-len", "random-range-ratio",
		"random-prefix-len", "custom-output-len", "no-oversample", "disable-shuffle", "percentile-metrics",
		"metric-percentiles", "result-filename", "save-detailed", "custom-skip-chat-template",
		"skip-chat-template", "input-len", "output-len", "insecure"} {
		if !seen[o] {
			t.Errorf("Translate reads --%s, which vllmOptions lacks: its abbreviations would not resolve", o)
		}
	}
	for k := range sameReasons {
		if !seen[k] {
			t.Errorf("sameReasons explains --%s, which vllmOptions lacks", k)
		}
	}
	for k := range reasons {
		if !seen[k] {
			t.Errorf("reasons explains --%s, which vllmOptions lacks", k)
		}
	}
}
