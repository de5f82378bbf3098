# A repeated run judged against a stored baseline by a sequential gate,
# for stopearly_test.go: the candidate's every decode step takes
# step_overhead more.
variable "step_overhead" {
  default = "100us"
}

variable "baseline" {
  default = "baselines/none.json"
}

variable "repeat" {
  default = 8
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

scenario "repeat-stop" {
  target     = target.sim
  dataset    = dataset.random
  requests   = 60
  repeat     = var.repeat
  cooldown   = "100ms"
  stop_early = true
  open_loop {
    rate = 100
  }

  baseline          = var.baseline
  baseline_optional = true
  regression {
    itl_p50 = "50%"
  }
}
