# Trace replay: requests sent at the times a production log recorded, with
# the recorded prompt and output lengths. The trace is a small synthetic
# sample in Mooncake's format (examples/data/mooncake_sample.jsonl: 90
# requests over 41 s); its hash_ids become shared 512-token blocks of
# prompt text, so requests that shared a prefix in production share it
# here, and a server's prefix cache sees the same reuse.
#
#   go run ./cmd/llmload plan examples/trace-replay.hcl   # the arrival-rate profile
#   go run ./cmd/llmload run examples/trace-replay.hcl
#   go run ./cmd/llmload run examples/trace-replay.hcl -var base_url=http://127.0.0.1:8000 -var model=<served name>
#
# Replayed at twice the recorded speed, it takes about 25 seconds on the
# built-in simulator. For a real trace, point path at Mooncake's
# FAST25-release/traces (format = "mooncake"), the Azure LLM inference
# trace CSV (format = "azure") or BurstGPT's CSV (format = "burstgpt"), and
# cut a slice with start and window (docs/datasets.md, docs/scenarios.md).

variable "base_url" {
  description = "Where the server listens: http(s)://host:port, or sim://<profile> for the built-in simulator."
  default     = "sim://a100-llama3-8b"
}

variable "model" {
  description = "The model name sent in every request (the simulator serves any name)."
  default     = "meta-llama/Meta-Llama-3-8B-Instruct"
}

target "server" {
  base_url = var.base_url
  api      = "openai-chat"
  model    = var.model

  # Replies of exactly the recorded output length.
  ignore_eos = true
}

dataset "mooncake" {
  # Count with the simulator's own /tokenize: prompts re-encode to exactly
  # the recorded lengths.
  tokenizer = "server"

  trace {
    path   = "data/mooncake_sample.jsonl"
    format = "mooncake"
    seed   = 0
  }
}

scenario "trace-replay" {
  target  = target.server
  dataset = dataset.mooncake

  replay {
    speed = 2.0
    start = "0s"
  }

  # 90 requests support a P50 gate; a P90 needs 100 samples (docs/reliability.md).
  sla {
    ttft_p50   = "1s"
    error_rate = 0.01
  }
}
