# A fast scenario on the simulator's tiny profile, for the command's tests.
#
# Its verdict does not depend on how fast or busy the machine is: the tests
# that run it are about files, exit codes and reports, not speed. It keeps
# the shipped validity bounds, which the package's tests lift where they
# measure the machine (TestMain, testValidity), and its one latency check,
# on the median TTFT, is one no completed request can break by default
# (the target's timeout is 20s) nor leave inconclusive: TTFT needs no
# per-token timing, which a busy machine loses when it reads a stream's
# tokens in one go, and 40 requests hold a median. -var ttft_p50=1us makes
# it fail.
variable "ttft_p50" {
  default = "20s"
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

  sla {
    ttft_p50   = var.ttft_p50
    error_rate = 0.0
  }

  assert "everything completed" {
    condition     = metrics.completed == 40
    error_message = "Not every request completed."
  }
}
