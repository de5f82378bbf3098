# A stored baseline's answers, for TestAgreementBaseline: "record" saves a
# run of the simulator (-save-baseline copies its requests and outputs
# files along); "gate" runs it again, with another model_seed when asked,
# against that baseline.
variable "model_seed" {
  type    = number
  default = 0
}

variable "temperature" {
  type    = number
  default = 0
}

variable "baseline" {
  type    = string
  default = ""
}

target "sim" {
  base_url   = "sim://tiny"
  model      = "tiny"
  extra_body = { temperature = var.temperature }
  sim {
    model_seed = var.model_seed
  }
}

dataset "prompts" {
  random {
    input_len   = 16
    output_len  = 24
    num_prompts = 24
    seed        = 5
  }
}

scenario "record" {
  target   = target.sim
  dataset  = dataset.prompts
  requests = 24
  closed_loop {
    users    = 2
    duration = "60s"
  }
  outputs {
    keep = 8
  }
}

scenario "gate" {
  target   = target.sim
  dataset  = dataset.prompts
  requests = 24
  baseline = var.baseline
  closed_loop {
    users    = 2
    duration = "60s"
  }
  outputs {
    keep = 8
  }
  sla {
    ttft_p50 = "2s"
  }
  assert "answers alike" {
    condition     = metrics.exact_match >= 0.9
    error_message = "The answers differ from the baseline's."
  }
  # 24 prompts alike bound exact_match above 86% (95% Wilson): enough to
  # decide a 20-point tolerance, not a 10-point one.
  regression {
    exact_match = "20%"
  }
}
