target "t" {
  base_url = "http://127.0.0.1:8000"
  model    = "m"
}

# ERROR: Duplicate target
target "t" {
  base_url = "http://127.0.0.1:9000"
  model    = "m"
  model    = "n" # ERROR: Attribute redefined
}

dataset "d" {
  random {}
}

dataset "d" { # ERROR: Duplicate dataset
  random {}
}

scenario "s" {
  target  = target.t
  dataset = dataset.d

  open_loop {
    rate = 1
  }
  open_loop { # ERROR: Duplicate open_loop block
    rate = 2
  }
  sla {
    ttft_p99 = "1s"
  }
  sla { # ERROR: Duplicate sla block
    itl_p99 = "1s"
  }
  assert "a" {
    condition = metrics.failed == 0
  }
  assert "a" { # ERROR: Duplicate assert
    condition = metrics.completed > 0
  }
}

scenario "s" { # ERROR: Duplicate scenario
  target  = target.t
  dataset = dataset.d
  open_loop {
    rate = 1
  }
}
