# A steady load on a simulator the test starts (its /metrics serves vLLM's
# names), for TestPrometheusDashboard: Prometheus scrapes the run's live
# metrics and the simulator while it goes on, and every panel of the
# Grafana dashboard is queried. The test cancels the run when done.
variable "base_url" {
  type = string
}

target "sim" {
  base_url = var.base_url
  model    = "sim-tiny"
}

dataset "random" {
  random {
    input_len   = 64
    output_len  = 32
    num_prompts = 256
    seed        = 5
  }
}

scenario "dashboard" {
  target  = target.sim
  dataset = dataset.random
  requests = 6000 # 5 minutes: the test cancels it long before
  open_loop {
    rate = 20
  }
}
