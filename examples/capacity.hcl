# The highest request rate one instance serves within its SLAs, searched:
# probes at 2 req/s, doubling until one fails, then bisection until the
# bracket is within 10%. The report gives the capacity, the last passing
# and first failing probes with their figures, and the bracket's width:
# the capacity is known to that precision, no better.
#
#   llmload run examples/capacity.hcl -html capacity.html
#   llmload run examples/capacity.hcl -var base_url=http://127.0.0.1:8000 -var model=<served name>
#
# Takes about 100 s on the simulated A100 (measured 2026-12-01 on a shared
# 2-core machine: 9 probes, capacity 18 req/s in [18, 19) req/s).

variable "base_url" {
  description = "Where the server listens: http(s)://host:port, or sim://<profile> for the built-in simulator."
  default     = "sim://a100-llama3-8b"
}

variable "model" {
  description = "The model name sent in every request (the simulator serves any name)."
  default     = "meta-llama/Meta-Llama-3-8B-Instruct"
}

target "server" {
  base_url   = var.base_url
  api        = "openai"
  model      = var.model
  ignore_eos = true
}

dataset "chat" {
  random {
    input_len   = 256
    output_len  = 128
    range_ratio = 0.5
    num_prompts = 500
  }
}

scenario "capacity" {
  target  = target.server
  dataset = dataset.chat

  open_loop {
    arrival = "poisson" # the rate is the capacity block's to vary
  }

  capacity {
    vary         = "rate"
    min          = 2
    max          = 128
    precision    = "10%"
    duration     = "8s" # each probe...
    min_requests = 30   # ...and at least this many requests, for its percentiles
  }

  # Short steps: a low load's step holds a few dozen requests, too few for
  # a TTFT P99 (1,000 samples). Gate the P90 and accept 20 samples per
  # percentile here; ITL has thousands of gaps per step either way.
  min_samples = 20
  sla {
    ttft_p90 = "500ms"
    itl_p99  = "50ms"
  }

  # CI can gate on the capacity, e.g. against last release's figure.
  assert "capacity floor" {
    condition     = metrics.capacity >= 8
    error_message = "The instance serves under 8 req/s within its SLAs."
  }
}
