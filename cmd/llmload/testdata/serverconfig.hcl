# The server's configuration in a comparison, for serverconfig_test.go: two
# runs against simulators that differ in one setting (step_overhead), and
# runs against a server that exposes nothing but its completions endpoint.
variable "step_overhead" {
  default = "20ms"
}

variable "base_url" {
  default = "http://127.0.0.1:1"
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

target "bare" {
  base_url   = var.base_url
  api        = "openai"
  model      = "m"
  ignore_eos = true
  timeout    = "5s"
}

dataset "random" {
  random {
    input_len   = 16
    output_len  = 4
    num_prompts = 100
    seed        = 3
  }
}

# No requirement: the comparison lists the changed setting.
scenario "plain" {
  target   = target.sim
  dataset  = dataset.random
  requests = 20
  open_loop {
    rate = 40
  }
  baseline          = "no-baseline.json"
  baseline_optional = true
  regression {
    itl_p50 = "1000%"
  }
}

# The same load, requiring step_overhead to match on both sides.
scenario "strict" {
  target   = target.sim
  dataset  = dataset.random
  requests = 20
  open_loop {
    rate = 40
  }
  baseline          = "no-baseline.json"
  baseline_optional = true
  regression {
    itl_p50                    = "1000%"
    require_same_server_config = ["step_overhead"]
  }
}

scenario "bare" {
  target   = target.bare
  dataset  = dataset.random
  requests = 20
  open_loop {
    rate = 40
  }
}
