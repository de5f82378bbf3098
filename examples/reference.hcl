# Every construct of the scenario language in one file (docs/scenarios.md
# explains each). It runs against the built-in simulator by default:
#
#   llmload plan examples/reference.hcl       # what it would do, sending nothing
#   llmload run  examples/reference.hcl       # about 1 minute, four scenarios
#   llmload run  examples/reference.hcl -var base_url=http://127.0.0.1:8000 -var model=<served name> -scenario poisson
#
# base_url and model point the target "server" (scenarios poisson, users
# and ramp); "burst" runs on a simulator with faults, whatever they say.
# The "poisson" scenario's asserts are set for the simulator; on a real
# server, tune them to your engine.

variable "base_url" {
  default     = "sim://a100-llama3-8b"
  description = "Where the server listens: http(s)://host:port, or sim://<profile> for the built-in simulator."
}

variable "rate" {
  type        = number
  default     = 4
  description = "Requests per second of the open-loop scenario."

  validation {
    condition     = var.rate > 0 && var.rate <= 1000
    error_message = "The rate must be in (0, 1000] requests/s."
  }
}

variable "sharegpt" {
  type        = string
  default     = "data/sharegpt_synthetic.json"
  description = "A ShareGPT-format JSON file. The default is the synthetic sample in examples/data; the real one is ShareGPT_V3_unfiltered_cleaned_split.json from the Hugging Face dataset anon8231489123/ShareGPT_Vicuna_unfiltered (pass its absolute path)."
}

variable "model" {
  type        = string
  default     = "meta-llama/Meta-Llama-3-8B-Instruct"
  description = "The model name sent in every request (the simulator serves any name)."
}

variable "headers" {
  type        = map(string)
  default     = { "X-Team" = "serving" }
  description = "Headers sent with every request."
}

target "server" {
  base_url      = var.base_url
  api           = "openai-chat" # "openai" (/v1/completions) or "openai-chat" (/v1/chat/completions)
  model         = var.model
  api_key       = env("OPENAI_API_KEY", "") # sent as a Bearer token, never printed or saved
  headers       = merge(var.headers, { "X-Run" = "reference" })
  timeout       = "120s" # whole request
  stall_timeout = "30s"  # longest silence allowed inside a stream
  ignore_eos    = false
  extra_body    = { temperature = 0, top_p = 1 } # merged into every request body
  http2         = false
  # Connections: reused (keep-alive) by default; vLLM's client opens one per
  # request (new_connection_per_request = true); prewarm_connections opens
  # N before the load so that a burst does not connect inside its TTFT.
  new_connection_per_request = false
  prewarm_connections        = 2
  # For TLS with a private CA: base_url = "https://...", ca_file = "certs/ca.pem",
  # insecure_skip_verify = false.
}

# A simulated engine with overrides: speculative decoding (3 tokens per
# event), a smaller batch, and 2% of requests answered 429.
target "faulty_sim" {
  base_url = "sim://a100-llama3-8b"
  api      = "openai"
  model    = "sim-llama"

  sim {
    max_num_seqs     = 64
    tokens_per_event = 3
    fault_http_429   = 0.02
  }
}

dataset "sharegpt" {
  sharegpt {
    path              = var.sharegpt # relative to this file's folder, or absolute
    num_prompts       = 200
    seed              = 0
    output_len        = null # from each reply
    min_prompt_tokens = 4
    max_prompt_tokens = 1024
    max_total_tokens  = 2048
    oversample        = true
  }
  tokenizer = "server" # or a tokenizer.json path, e.g. "models/llama3/tokenizer.json", to count offline
}

dataset "random" {
  random {
    input_len   = 256
    output_len  = 64
    range_ratio = 0.25
    prefix_len  = 32
    num_prompts = 200
    seed        = 42
  }
  tokenizer = "server" # ask the target's /tokenize
}

dataset "prompts" {
  jsonl {
    path             = "data/prompts.jsonl"
    prompt_field     = "text"
    output_len_field = "max_tokens"
    output_len       = 128
    num_prompts      = 0 # every line
    seed             = 7
    shuffle          = false
  }
}

scenario "poisson" {
  target  = target.server
  dataset = dataset.sharegpt

  open_loop {
    rate            = var.rate  # requests/s; "inf" sends everything at once
    arrival         = "poisson" # poisson | gamma | constant
    burstiness      = 1.0       # gamma shape (1.0 = Poisson)
    max_concurrency = 64        # optional cap
  }

  requests = 100 # stop after this many (default: the dataset size); or duration = "10m"
  seed     = 1
  warmup { requests = 4 } # sent first, not measured

  # How checks are judged (docs/reliability.md). A percentile check needs 10
  # samples beyond it (100 for P90, 1,000 for P99) or it is inconclusive.
  verdict            = "point" # "strict": a percentile must meet its bound over its whole 95% interval
  allow_inconclusive = false   # true: inconclusive checks exit 0 instead of 3
  validity {                   # past these the load generator failed and the run is invalid (exit 3); the defaults
    max_rate_shortfall = 0.05  # achieved rate at most 5% under the schedule's
    max_lag_p99        = "10ms"
    max_client_cpu     = 0.9 # of the cores llmload may use
    max_token_mismatch = 0.01
  }

  sla { # without error_rate, a default error budget of 0.01 applies
    ttft_p90               = "500ms"
    itl_p99                = "50ms"
    tpot_mean              = "40ms"
    e2el_max               = "1m30s"
    queue_max              = "2s"
    error_rate             = 0.01
    min_request_throughput = 1
    min_output_throughput  = 100
    min_goodput            = 1
  }
  goodput { # per-request SLOs that define a "good" request
    ttft = "500ms"
    tpot = "50ms"
    itl  = "200ms"
    e2el = "30s"
  }
  assert "throughput holds" {
    condition     = metrics.output_throughput >= 100
    error_message = "Output throughput fell under 100 tok/s."
  }
  assert "tail stays close to the median" {
    condition = metrics.ttft.p99 <= 10 * metrics.ttft.p50 && metrics.e2el.max < ms("2m")
  }
}

scenario "burst" {
  target   = target.faulty_sim
  dataset  = dataset.random
  requests = 100
  duration = "30s"

  open_loop {
    rate       = "inf"
    arrival    = "gamma"
    burstiness = 0.5
  }

  sla {
    error_rate = 0.1
  }
}

scenario "users" {
  target  = target.server
  dataset = dataset.prompts

  closed_loop {
    users      = 8
    think_time = ["200ms", "1s"]
    duration   = "10s"
  }
}

scenario "ramp" {
  target  = target.server
  dataset = dataset.random

  min_samples = 20 # replaces the default minimum of every percentile check

  closed_loop {
    think_time = "100ms"

    stage {
      users    = 4
      duration = "5s"
    }
    stage {
      users    = 16
      duration = "10s"
      ramp     = "3s"
    }
  }
  sla {
    e2el_p50 = "10s"
  }
}
