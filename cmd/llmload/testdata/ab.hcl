# An interleaved A/B run on two simulators, for ab_test.go: the candidate
# takes step_overhead more per decode step than the baseline.
variable "step_overhead" {
  default = "5ms"
}

variable "interleave" {
  default = 50
}

target "old" {
  base_url   = "sim://tiny"
  api        = "openai-chat"
  model      = "tiny"
  ignore_eos = true
  timeout    = "20s"
}

target "new" {
  base_url   = "sim://tiny"
  api        = "openai-chat"
  model      = "tiny"
  ignore_eos = true
  timeout    = "20s"
  sim {
    step_overhead = var.step_overhead
  }
}

dataset "random" {
  random {
    input_len   = 32
    output_len  = 16
    num_prompts = 300
    seed        = 3
  }
}

scenario "ab" {
  targets    = { baseline = target.old, candidate = target.new }
  interleave = var.interleave
  dataset    = dataset.random
  requests   = 200
  warmup {
    requests = 4
  }
  open_loop {
    rate = 100
  }

  sla {
    error_rate = 0.0
  }

  regression {
    itl_p50 = "50%"
  }

  assert "itl close to the baseline arm" {
    condition = metrics.itl.p50 <= baseline.itl.p50 * 1.5
  }
}
