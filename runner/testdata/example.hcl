# The scenario of runner's Example: 24 requests from 2 users against the
# built-in simulator's tiny profile, gated on P90 TTFT and the error rate.
target "sim" {
  base_url = "sim://tiny"
}

dataset "random" {
  random {
    input_len   = 32
    output_len  = 16
    num_prompts = 24
    seed        = 1
  }
}

scenario "smoke" {
  target   = target.sim
  dataset  = dataset.random
  requests = 24
  closed_loop {
    users = 2
  }
  # 24 samples: a P90 on at least 20 of them.
  min_samples = 20
  sla {
    ttft_p90   = "1s"
    error_rate = 0
  }
  # The simulator runs in the same process as the client.
  validity {
    max_client_cpu = 1
  }
}
