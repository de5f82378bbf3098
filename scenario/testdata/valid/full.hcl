# Every construct of the scenario language. docs/scenarios.md explains each.

variable "base_url" {
  default     = "http://127.0.0.1:8000"
  description = "Where the server listens"
}

variable "rate" {
  type        = number
  default     = 10
  description = "Requests per second of the open-loop scenario"

  validation {
    condition     = var.rate > 0 && var.rate <= 1000
    error_message = "The rate must be in (0, 1000] requests/s."
  }
}

variable "models" {
  type    = map(string)
  default = { small = "meta-llama/Meta-Llama-3-8B-Instruct" }
}

target "vllm" {
  base_url      = var.base_url  # http(s)://host:port, or "sim://<profile>" for the built-in simulator
  api           = "openai-chat" # "openai" (/v1/completions) or "openai-chat" (/v1/chat/completions)
  model         = lookup(var.models, "small", "unknown")
  api_key       = env("OPENAI_API_KEY", "") # sent as a Bearer token, never printed or saved
  headers       = { "X-Team" = "serving" }
  timeout       = "120s" # whole request
  stall_timeout = "30s"  # longest silence allowed inside a stream
  ignore_eos    = false
  extra_body    = { temperature = 0, stop = ["</s>"] } # merged into every request body
  http2         = false
}

target "local_tls" {
  base_url             = "https://127.0.0.1:8443/serving"
  api                  = "openai"
  model                = upper("m")
  ca_file              = "certs/ca.pem"
  insecure_skip_verify = false
  trace_context        = false
}

target "sim" {
  base_url = "sim://a100-llama3-8b"

  sim {
    max_num_seqs    = 256
    kv_cache_tokens = 6e4
    step_overhead   = "2ms"
    fault_http_429  = 0.01
  }
}

dataset "sharegpt" {
  sharegpt {
    path              = "data/ShareGPT_V3_unfiltered_cleaned_split.json"
    num_prompts       = 1000
    seed              = 0
    output_len        = null # from each reply
    min_prompt_tokens = 4
    max_prompt_tokens = 1024
    max_total_tokens  = 2048
    oversample        = true
  }
  tokenizer = "models/llama3/tokenizer.json" # optional
}

dataset "random" {
  random {
    input_len   = 512
    output_len  = 64
    range_ratio = 0.25
    prefix_len  = 32
    num_prompts = 200
    seed        = 42
  }
  tokenizer = "server"
}

dataset "prompts" {
  jsonl {
    path             = "data/prompts.jsonl"
    prompt_field     = "text"
    output_len_field = "max_tokens"
    output_len       = 128
    num_prompts      = 0
    seed             = 7
    shuffle          = false
  }
}

scenario "poisson_10rps" {
  target  = target.vllm
  dataset = dataset.sharegpt

  open_loop {
    rate            = var.rate  # requests/s; "inf" sends everything at once
    arrival         = "poisson" # poisson | gamma | constant
    burstiness      = 1.0       # gamma shape (1.0 = Poisson)
    max_concurrency = 256       # optional cap
  }

  requests = 1000 # stop after this many (default: the dataset size); or duration = "10m"
  seed     = 1
  warmup { requests = 10 } # sent first, not measured

  verdict            = "strict" # judge percentiles by their whole 95% interval
  min_samples        = 500      # instead of 10 samples beyond each percentile
  allow_inconclusive = true     # exit 0, not 3, when a check is inconclusive
  validity {
    max_rate_shortfall  = 0.1
    max_lag_p99         = "20ms"
    max_client_cpu      = 0.8
    max_token_mismatch  = 0.02
    max_client_overhead = "250ms"
  }

  sla {
    ttft_p99               = "500ms"
    itl_p99                = "30ms"
    tpot_mean              = "40ms"
    e2el_p999              = "1m30s"
    queue_max              = "2s"
    error_rate             = 0.01
    min_request_throughput = 9
    min_output_throughput  = 1200
    min_goodput            = 8
  }
  goodput { # per-request SLOs that define a "good" request
    ttft = "500ms"
    tpot = "50ms"
    itl  = "100ms"
    e2el = "20s"
  }
  assert "throughput holds" {
    condition     = metrics.output_throughput >= 2500
    error_message = "Output throughput fell under 2,500 tok/s."
  }
  assert "tail stays close to the median" {
    condition = metrics.ttft.p99 <= 4 * metrics.ttft.p50 && metrics.e2el.max < ms("2m")
  }
}

scenario "burst" {
  target   = target.sim
  dataset  = dataset.random
  duration = "10m"

  open_loop {
    rate       = "inf"
    arrival    = "gamma"
    burstiness = 0.5
  }
}

scenario "users" {
  target  = target.local_tls
  dataset = dataset.prompts

  closed_loop {
    users      = 100
    think_time = ["1s", "3s"]
    duration   = "5m"
  }
}

scenario "ramp" {
  target  = target.sim
  dataset = dataset.random

  closed_loop {
    think_time = "500ms"

    stage {
      users    = 10
      duration = "1m"
    }
    stage {
      users    = 100
      duration = "2m"
      ramp     = "30s"
    }
  }
  sla {
    e2el_p50 = "10s"
  }
}
