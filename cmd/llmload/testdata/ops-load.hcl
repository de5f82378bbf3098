# For TestOpsAlertsInPrometheus: a steady closed loop of var.users on the
# test's simulator, which the test cancels when it has seen what it waits
# for.
variable "base_url" {
  type = string
}

variable "users" {
  type = number
}

target "sim" {
  base_url    = var.base_url
  model       = "sim-tiny"
  ignore_eos  = true
  metrics_url = ""
}

dataset "random" {
  random {
    input_len   = 32
    output_len  = 60
    num_prompts = 400
    seed        = 4
  }
}

scenario "load" {
  target  = target.sim
  dataset = dataset.random
  closed_loop {
    users = var.users
  }
  duration = "5m"
}
