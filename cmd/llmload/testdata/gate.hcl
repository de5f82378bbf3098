# The SLA gate against a server whose true ITL is 20 ms (the test's fake
# server): itl_p99 under that must fail the run, above it must pass.
variable "base_url" {}

variable "itl_p99" {}

target "fake" {
  base_url = var.base_url
  api      = "openai"
  model    = "fake"
}

dataset "random" {
  random {
    input_len   = 16
    output_len  = 12
    num_prompts = 200
  }
}

scenario "gate" {
  target  = target.fake
  dataset = dataset.random

  open_loop {
    rate = "inf"
  }

  sla {
    itl_p99 = var.itl_p99
  }
}
