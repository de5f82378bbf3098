# Scenarios for the verdict tests (verdict_test.go), each against a fake
# server that misbehaves in one way.
variable "base_url" {}

variable "allow_inconclusive" {
  type    = bool
  default = false
}

target "fake" {
  base_url = var.base_url
  api      = "openai"
  model    = "fake"
  timeout  = "10s"
}

dataset "random" {
  random {
    input_len   = 16
    output_len  = 10
    num_prompts = 60
  }
}

# Only a latency sla: the default error budget must still catch failures.
scenario "failures" {
  target    = target.fake
  dataset   = dataset.random
  requests  = 20
  preflight = false # the server's request count decides which requests fail
  open_loop {
    rate = "inf"
  }
  sla {
    ttft_mean = "10s"
  }
  validity {
    max_client_cpu = 1 # the tests share a busy machine
  }
}

# A mean needs no minimum of samples: only the buffering can make it
# inconclusive.
scenario "buffered" {
  target   = target.fake
  dataset  = dataset.random
  requests = 20
  open_loop {
    rate = "inf"
  }
  sla {
    itl_mean = "1s"
  }
  validity {
    max_client_cpu = 1
  }
}

# A P99 on 20 requests.
scenario "few" {
  target             = target.fake
  dataset            = dataset.random
  requests           = 20
  allow_inconclusive = var.allow_inconclusive
  open_loop {
    rate = "inf"
  }
  sla {
    ttft_p99 = "10s"
  }
  validity {
    max_client_cpu = 1
  }
}

# A P90 on 60 requests: inconclusive alone, conclusive merged with another.
scenario "shard" {
  target   = target.fake
  dataset  = dataset.random
  requests = 60
  open_loop {
    rate = "inf"
  }
  sla {
    ttft_p90 = "10s"
  }
  validity {
    max_client_cpu = 1
  }
}

# No client uses no CPU at all: the run is invalid.
scenario "invalid" {
  target   = target.fake
  dataset  = dataset.random
  requests = 20
  open_loop {
    rate = "inf"
  }
  sla {
    ttft_mean = "10s"
  }
  validity {
    max_client_cpu = 0
  }
}
