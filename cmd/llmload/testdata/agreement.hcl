# An A/B run of two simulators, for TestAgreement: the candidate's
# model_seed stands for its weights, so with another seed (a changed
# model, a broken kernel) it answers the same greedy prompts otherwise, at
# the same speed.
variable "candidate_seed" {
  type    = number
  default = 0
}

variable "candidate_swaps" {
  type    = number
  default = 0
}

variable "temperature" {
  type    = number
  default = 0
}

target "old" {
  base_url   = "sim://tiny"
  model      = "tiny"
  extra_body = { temperature = var.temperature }
  sim {
    model_seed = 0
  }
}

target "new" {
  base_url   = "sim://tiny"
  model      = "tiny"
  extra_body = { temperature = var.temperature }
  sim {
    model_seed         = var.candidate_seed
    fault_swap_outputs = var.candidate_swaps
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

scenario "ab" {
  targets    = { baseline = target.old, candidate = target.new }
  interleave = 8
  dataset    = dataset.prompts
  requests   = 24
  open_loop {
    rate = 200
  }

  sla {
    ttft_p50 = "2s"
  }

  assert "answers alike" {
    condition     = metrics.exact_match >= 0.9
    error_message = "The candidate answers the baseline's prompts differently."
  }

  # Agreement as a regression: the baseline arm agrees with itself (1), and
  # the candidate may fall 20 points below it, judged on the interval over
  # the 24 paired prompts.
  regression {
    prefix_agreement = "20%"
  }
}

# The same A/B run with no agreement check written: the default one
# (prefix_agreement >= 0.25) judges the paired answers, unless they sample.
scenario "ab_default" {
  targets    = { baseline = target.old, candidate = target.new }
  interleave = 8
  dataset    = dataset.prompts
  requests   = 24
  open_loop {
    rate = 200
  }
}

# Fewer prompts than requests: the second block wraps around the dataset.
dataset "few" {
  random {
    input_len   = 16
    output_len  = 12
    num_prompts = 10
    seed        = 5
  }
}

scenario "ab_wrap" {
  targets    = { baseline = target.old, candidate = target.new }
  interleave = 8
  dataset    = dataset.few
  requests   = 16
  open_loop {
    rate = 200
  }
}
