# Quickstart: the built-in simulator (an A100 serving Llama-3-8B, in-process)
# under a steady Poisson load of 8 requests/s, with SLAs that a healthy
# engine meets. Needs nothing but Go: the dataset is random prompts.
#
#   go run ./cmd/llmload run examples/quickstart.hcl
#   go run ./cmd/llmload run examples/quickstart.hcl -var base_url=http://127.0.0.1:8000 -var model=<served name>
#
# Takes about 30 seconds. Exits 0 when every check passes on a valid run
# (docs/reliability.md): 240 requests are enough for a P95 TTFT gate (a
# percentile check needs 10 samples beyond it: 200 for P95, 1,000 for P99;
# fewer make it inconclusive, exit 3). ITL has thousands of gaps, so its
# P99 is gated.

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

  # Replies of exactly output_len tokens, as vLLM asks of its random dataset.
  ignore_eos = true
}

dataset "random" {
  random {
    input_len   = 256
    output_len  = 128
    range_ratio = 0.5
    num_prompts = 240
    seed        = 0
  }
}

scenario "quickstart" {
  target  = target.server
  dataset = dataset.random

  open_loop {
    rate    = 8
    arrival = "poisson"
  }

  requests = 240
  warmup {
    requests = 4
  }

  sla {
    ttft_p95   = "500ms"
    itl_p99    = "50ms"
    error_rate = 0.01
  }

  goodput {
    ttft = "500ms"
    tpot = "50ms"
  }

  assert "most requests are good" {
    condition     = metrics.request_goodput >= 0.9 * metrics.request_throughput
    error_message = "Fewer than 90% of requests met the goodput SLOs."
  }
}
