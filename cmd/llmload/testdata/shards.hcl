# Split into shards by the shard test: an open loop whose assert holds only
# for the whole run (every shard's requests together).
variable "base_url" {
  default = "sim://tiny"
}

target "sim" {
  base_url = var.base_url
  api      = "openai-chat"
  model    = "tiny"
  timeout  = "20s"
}

dataset "random" {
  random {
    input_len   = 32
    output_len  = 16
    num_prompts = 25
    seed        = 5
  }
}

scenario "shards" {
  target  = target.sim
  dataset = dataset.random

  open_loop {
    rate    = 150
    arrival = "poisson"
  }

  requests = 70
  seed     = 11
  warmup {
    requests = 3
  }

  sla {
    ttft_p50   = "5s" # 70 requests hold a median (20 samples needed), not a P99 (1,000)
    error_rate = 0.0
  }

  # The test machine is shared: judge the checks, not how busy it was.
  validity {
    max_lag_p99    = "10s"
    max_client_cpu = 1
  }

  assert "the whole run" {
    condition     = metrics.completed == 70
    error_message = "Not every shard's requests are here."
  }
}
