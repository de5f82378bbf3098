# The simulator reporting vLLM's per-request metrics
# (--enable-per-request-metrics), with speculative decoding of one draft
# token per step (--per-request-spec-decode-metrics), for
# TestEngineNumbers.
target "sim" {
  base_url = "sim://tiny"
  model    = "tiny"
  sim {
    per_request_metrics = true
    tokens_per_event    = 2
  }
}

dataset "d" {
  random {
    input_len   = 16
    output_len  = 8
    num_prompts = 20
    seed        = 3
  }
}

scenario "engine" {
  target   = target.sim
  dataset  = dataset.d
  requests = 20
  closed_loop {
    users    = 4
    duration = "60s"
  }
}

# The same run, where any time outside the engine is too much: the run is
# invalid, and says the path to the engine was slow.
scenario "slow_path" {
  target   = target.sim
  dataset  = dataset.d
  requests = 20
  closed_loop {
    users    = 4
    duration = "60s"
  }
  validity {
    max_client_overhead = "1us"
  }
}
