target "t" {
  base_url = "http://127.0.0.1:8000"
  model    = "m"
}

dataset "d" {
  random {}
}

scenario "s" {
  target  = target.t
  dataset = dataset.d
  open_loop {
    rate = 1
  }
  sla {
    ttft_p42    = "1s" # ERROR: Unsupported argument
    ttft_p96    = "1s" # ERROR: Unsupported argument
    ttft_p9999  = "1s" # ERROR: Unsupported argument
    tft_p95     = "1s" # ERROR: Unsupported argument
    ttft_p99    = 500 # ERROR: Invalid duration
    itl_p99     = "30" # ERROR: Invalid duration
    error_rate  = 2 # ERROR: Invalid error_rate
    min_goodput = 5 # ERROR: Invalid min_goodput
    e2el_max    = "0s" # ERROR: Invalid e2el_max
    min_output_throughput = -1 # ERROR: Invalid min_output_throughput
    ttft { # ERROR: Unsupported block type
    }
  }
  goodput { # ERROR: Empty goodput block
  }
  warmup {
    requests = -1 # ERROR: Invalid requests
  }
}

scenario "verdicts" {
  target             = target.t
  dataset            = dataset.d
  verdict            = "strikt" # ERROR: Invalid verdict
  min_samples        = 0 # ERROR: Invalid min_samples
  allow_inconclusive = "maybe" # ERROR: Incorrect attribute value type
  open_loop {
    rate = 1
  }
  validity {
    max_client_cpu = 1.5 # ERROR: Invalid max_client_cpu
    max_lag_p99    = "0s" # ERROR: Invalid max_lag_p99
    max_ratio      = 1 # ERROR: Unsupported argument
  }
}
