# The classic vLLM benchmark, as a scenario:
#
#   python benchmarks/benchmark_serving.py --backend vllm --model $MODEL \
#     --dataset-name sharegpt --dataset-path $SHAREGPT --num-prompts 1000 --request-rate 10
#
# Same sampling (ShareGPT rules, seed 0, the model's token counts), same
# arrivals (Poisson at 10 req/s), same request bodies (temperature 0.0; see
# llmload plan -show-request), same metrics and result keys, so the two can
# be compared line by line. By default it runs from a fresh clone: the
# built-in simulator, the synthetic ShareGPT-format sample in examples/data,
# and the server's /tokenize for token counts. For the real benchmark, download
# ShareGPT_V3_unfiltered_cleaned_split.json (Hugging Face dataset
# anon8231489123/ShareGPT_Vicuna_unfiltered) and point the variables at it
# and at your server (paths are relative to this file's folder, so give
# absolute ones):
#
#   curl -LO https://huggingface.co/datasets/anon8231489123/ShareGPT_Vicuna_unfiltered/resolve/main/ShareGPT_V3_unfiltered_cleaned_split.json
#   llmload run examples/vllm-benchmark-serving.hcl \
#     -var base_url=http://127.0.0.1:8000 \
#     -var sharegpt=$PWD/ShareGPT_V3_unfiltered_cleaned_split.json
#
# Takes about 2 minutes (1000 requests at 10 req/s, then the tail drains).

variable "base_url" {
  default     = "sim://a100-llama3-8b"
  description = "Where the server listens (http://host:port), or sim://<profile> for the built-in simulator."
}

variable "model" {
  default = "meta-llama/Meta-Llama-3-8B-Instruct"
}

variable "sharegpt" {
  type        = string
  default     = "data/sharegpt_synthetic.json"
  description = "A ShareGPT-format JSON file. The default is the small synthetic sample in examples/data; the real benchmark reads ShareGPT_V3_unfiltered_cleaned_split.json, downloaded from the Hugging Face dataset anon8231489123/ShareGPT_Vicuna_unfiltered (https://huggingface.co/datasets/anon8231489123/ShareGPT_Vicuna_unfiltered)."
}

variable "tokenizer" {
  type        = string
  default     = "server"
  description = "\"server\" asks the target's /tokenize (vLLM and the simulator serve it); or the path of the model's tokenizer.json (from its Hugging Face repository) to count offline, as vLLM's client does."
}

target "server" {
  base_url = var.base_url
  api      = "openai" # --backend vllm uses /v1/completions
  model    = var.model
  api_key  = env("OPENAI_API_KEY", "")
}

dataset "sharegpt" {
  sharegpt {
    path        = var.sharegpt
    num_prompts = 1000
  }
  tokenizer = var.tokenizer
}

scenario "benchmark_serving" {
  target  = target.server
  dataset = dataset.sharegpt

  # vLLM's --seed: samples the prompts (the dataset sets no seed of its own)
  # and draws the arrivals.
  seed = 0

  # vLLM's --percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 50,90,99:
  # the vLLM block's rows and the p50/p90/p99 keys of the result.
  percentile_metrics = ["ttft", "tpot", "itl", "e2el"]
  percentiles        = [50, 90, 99]

  # vLLM's --result-filename and --save-detailed: the result is
  # <out>/vllm-10qps.json (the requests go to vllm-10qps.requests.jsonl) and
  # holds vLLM's per-request arrays (input_lens, output_lens, ttfts, itls,
  # generated_texts, errors), kept in memory for the length of the run.
  result_filename = "vllm-10qps.json"
  save_detailed   = true

  open_loop {
    rate       = 10
    arrival    = "poisson"
    burstiness = 1.0
  }

  requests = 1000
}
