# For TestOpsAlertsInPrometheus: a users sweep of a simulator the test
# starts (4 sequences a batch, 10 ms a step, replies of 60 tokens: a
# request takes about 0.6 s once it runs). Up to 4 users every request
# runs at once and its TTFT is a step or two; past 4 a request waits for
# a whole one to end, about 0.6 s. The sla's 300 ms lies far from both,
# so the capacity is 4 users on any machine.
variable "base_url" {
  type = string
}

target "sim" {
  base_url        = var.base_url
  model           = "sim-tiny"
  ignore_eos      = true
  scrape_interval = "250ms"
}

dataset "random" {
  random {
    input_len   = 32
    output_len  = 60
    num_prompts = 400
    seed        = 3
  }
}

scenario "ops" {
  target  = target.sim
  dataset = dataset.random
  sweep {
    users    = [1, 2, 4, 8]
    duration = "4s"
    cooldown = "1s"
  }
  min_samples = 5
  sla {
    ttft_p99 = "300ms"
  }
}
