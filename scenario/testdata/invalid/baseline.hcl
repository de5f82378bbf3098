target "t" {
  base_url = "http://127.0.0.1:8000"
  model    = "m"
}

dataset "d" {
  random {}
}

scenario "regression" {
  target   = target.t
  dataset  = dataset.d
  baseline = "baselines/r.json"
  open_loop {
    rate = 1
  }
  regression {
    tft_p99           = "10%" # ERROR: Invalid regression tolerance
    itl_p99           = "10" # ERROR: Invalid regression tolerance
    duration          = "5%" # ERROR: Invalid regression tolerance
    output_throughput = "5%"
  }
  assert "baseline typo" {
    condition = metrics.ttft.p99 <= baseline.tft.p99 * 1.1 # ERROR: Unknown metric
  }
  assert "baseline stat" {
    condition = metrics.ttft.p99 <= baseline.ttft.p42 # ERROR: Unknown metric
  }
}

scenario "empty" {
  target  = target.t
  dataset = dataset.d
  open_loop {
    rate = 1
  }
  regression { # ERROR: Empty regression block
  }
}
