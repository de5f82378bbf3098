# The stream-scale benchmark (make bench-streams): many concurrent streams
# against the fake server in its own process, which records what it
# delivered; bench/streams.sh compares the two. Scenario "capped" holds
# max_concurrency streams open; "open" has no cap (rate "inf" opens every
# stream at once).
variable "base_url" {
  description = "The fake server's URL (bench/streams.sh starts one)."
}

variable "requests" {
  type    = number
  default = 4000
}

variable "rate" {
  description = "Arrivals per second, or \"inf\"."
  default     = "inf"
}

variable "max_concurrency" {
  type    = number
  default = 1000
}

variable "tokens" {
  type    = number
  default = 50
}

variable "prewarm" {
  type    = number
  default = 0
}

target "fake" {
  base_url            = var.base_url
  api                 = "openai"
  model               = "fake"
  timeout             = "120s"
  prewarm_connections = var.prewarm
}

dataset "random" {
  random {
    input_len   = 16
    output_len  = var.tokens
    num_prompts = 100
  }
}

scenario "capped" {
  target  = target.fake
  dataset = dataset.random
  open_loop {
    rate            = var.rate
    max_concurrency = var.max_concurrency
  }
  requests = var.requests
  # The client and the server share this machine's cores: judge the timing
  # with bench/streams.sh, not with the run's validity.
  validity {
    max_lag_p99    = "10s"
    max_client_cpu = 1
  }
}

scenario "open" {
  target  = target.fake
  dataset = dataset.random
  open_loop {
    rate = var.rate
  }
  requests = var.requests
  validity {
    max_lag_p99    = "10s"
    max_client_cpu = 1
  }
}
