target "t" {
  base_url = "http://127.0.0.1:8000"
  model    = "m"
}

dataset "d" {
  random {}
}

variable "limit" {
  default = 500
}

scenario "s" {
  target  = target.t
  dataset = dataset.d
  open_loop {
    rate = 1
  }
  assert "unknown stat" {
    condition = metrics.ttft.p42 < 500 # ERROR: Unknown metric
  }
  assert "a percentile's typo" {
    condition = metrics.ttft.p96 < 500 # ERROR: Unknown metric
  }
  assert "unknown metric" {
    condition = metrics.nope > 1 # ERROR: Unknown metric
  }
  assert "typo" {
    condition = metrics.output_throughput > 1 && metrics.tfft.p99 < 2 # ERROR: Unknown metric
  }
  assert "scalar has no stats" {
    condition = metrics.error_rate.p99 < 0.1 # ERROR: Unknown metric
  }
  assert "variables are not in scope" {
    condition = metrics.ttft.p99 < var.limit # ERROR: Invalid reference in condition
  }
  assert "not a bool" {
    condition = metrics.ttft.p99 + 1 # ERROR: Invalid condition
  }
  assert "unknown function" {
    condition = metrics.ttft.p99 < millis("1s") # ERROR: Call to unknown function
  }
  assert "env is not allowed" {
    condition = metrics.ttft.p99 < tonumber(env("X", "1")) # ERROR: Call to unknown function
  }
  assert "whole latency object" {
    condition = metrics.ttft > 5 # ERROR: Invalid operand
  }
  assert "no condition" { # ERROR: Missing required argument
    error_message = "never checked"
  }
}

scenario "goodput_without_slo" {
  target  = target.t
  dataset = dataset.d
  open_loop {
    rate = 1
  }
  assert "good share" {
    condition = metrics.request_goodput >= 1 # ERROR: Goodput without a goodput block
  }
}
