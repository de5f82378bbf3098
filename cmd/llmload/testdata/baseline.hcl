# A short run on the simulator gated against a baseline run, for
# baseline_test.go: raising step_overhead makes a slower candidate. The
# engine's step (20 ms, 80 ms for the slower one) dwarfs what a busy
# machine adds to a token's gap, so the same configuration never reads as
# a regression.
variable "step_overhead" {
  default = "20ms"
}

variable "seed" {
  default = 3
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
    output_len  = 8
    num_prompts = 300
    seed        = var.seed
  }
}

scenario "upgrade" {
  target   = target.sim
  dataset  = dataset.random
  requests = 40
  open_loop {
    rate = 40
  }

  baseline          = "baselines/upgrade.json"
  baseline_optional = true

  sla {
    error_rate = 0.0
  }

  # Generous tolerances: the slower candidate is several times slower.
  regression {
    itl_p50  = "50%"
    tpot_p50 = "50%"
  }

  assert "itl close to the baseline" {
    condition     = metrics.itl.p50 <= baseline.itl.p50 * 1.5
    error_message = "ITL grew by more than half."
  }
}
