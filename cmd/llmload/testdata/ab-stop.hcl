# A sequential A/B gate on two simulators, for stopearly_test.go: the
# candidate's prefill costs cand_prefill per prompt token (the baseline's
# 5us), so its TTFT is that much worse; stop_early ends the run once the
# regression block is decided.
variable "cand_prefill" {
  default = "9us"
}

variable "budget" {
  default = "10m"
}

variable "stop_early" {
  default = true
}

target "old" {
  base_url   = "sim://tiny"
  api        = "openai-chat"
  model      = "tiny"
  ignore_eos = true
  timeout    = "20s"
}

target "new" {
  base_url   = "sim://tiny"
  api        = "openai-chat"
  model      = "tiny"
  ignore_eos = true
  timeout    = "20s"
  sim {
    prefill_compute_per_token = var.cand_prefill
  }
}

dataset "random" {
  random {
    input_len   = 512
    output_len  = 4
    num_prompts = 400
    seed        = 3
  }
}

scenario "ab-stop" {
  targets    = { baseline = target.old, candidate = target.new }
  interleave = 20
  dataset    = dataset.random
  requests   = 400
  budget     = var.budget
  stop_early = var.stop_early
  open_loop {
    rate = 100
  }

  # Two figures, the one that stays open listed first: a fail of
  # either decides the gate.
  regression {
    itl_p50  = "5%"
    ttft_p50 = "10%"
  }
}
