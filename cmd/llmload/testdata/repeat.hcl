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

  # A latency check no timing decides (the timeout is 20s; TTFT needs no
  # per-token timing, which a busy machine loses by reading a stream in one
  # go), so that the run passes however busy the machine.
  sla {
    error_rate = 0.0
    ttft_p50   = "20s"
  }

  baseline          = "baselines/none.json"
  baseline_optional = true
  regression {
    itl_p50 = "50%"
  }
}
