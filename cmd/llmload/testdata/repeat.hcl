# A repeated run on the simulator, for repeat_test.go.
variable "step_overhead" {
  default = "100us"
}

target "sim" {
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
    num_prompts = 100
    seed        = 3
  }
}

scenario "repeated" {
  target   = target.sim
  dataset  = dataset.random
  requests = 60
  repeat   = 3
  cooldown = "200ms"
  open_loop {
    rate = 100
  }

  # The tests share a busy machine with the simulator in the same process.
  validity {
    max_rate_shortfall = 0.5
    max_lag_p99        = "1s"
    max_client_cpu     = 1
  }

  sla {
    error_rate = 0.0
    itl_p50    = "1s"
  }

  baseline          = "baselines/none.json"
  baseline_optional = true
  regression {
    itl_p50 = "50%"
  }
}
