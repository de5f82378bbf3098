# A fast scenario on the simulator's tiny profile, for the command's tests.
variable "itl_p95" {
  default = "1s"
}

variable "base_url" {
  default = "sim://tiny"
}

variable "preflight" {
  type    = bool
  default = true
}

target "sim" {
  base_url = var.base_url
  api      = "openai-chat"
  model    = "tiny"
  api_key  = "sk-test-SECRET-do-not-leak"
  timeout  = "20s"
}

dataset "random" {
  random {
    input_len   = 32
    output_len  = 16
    num_prompts = 40
    seed        = 3
  }
}

scenario "tiny" {
  target  = target.sim
  dataset = dataset.random

  open_loop {
    rate    = 200
    arrival = "poisson"
  }

  requests  = 40
  preflight = var.preflight
  warmup {
    requests = 2
  }

  # The tests share a busy machine with the simulator in the same process:
  # the exit codes they check are the checks', not the machine's.
  validity {
    max_rate_shortfall = 0.5
    max_lag_p99        = "1s"
    max_client_cpu     = 1
  }

  sla {
    itl_p95    = var.itl_p95
    error_rate = 0.0
  }

  assert "everything completed" {
    condition     = metrics.completed == 40
    error_message = "Not every request completed."
  }
}
