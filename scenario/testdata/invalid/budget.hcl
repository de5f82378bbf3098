target "old" {
  base_url = "http://127.0.0.1:8000"
  model    = "m"
}

target "new" {
  base_url = "http://127.0.0.1:8001"
  model    = "m"
}

dataset "d" {
  random {}
}

scenario "single" {
  target   = target.new
  dataset  = dataset.d
  requests = 10
  budget   = "10m" # ERROR: Invalid budget
  open_loop {
    rate = 1
  }
}

scenario "gpu-time-without-gpus" {
  targets  = { baseline = target.old, candidate = target.new }
  dataset  = dataset.d
  requests = 10
  budget   = "40 gpu-minutes" # ERROR: Invalid budget
  open_loop {
    rate = 1
  }
  regression {
    ttft_p50 = "10%"
  }
}

scenario "gpus-without-budget" {
  targets  = { baseline = target.old, candidate = target.new }
  dataset  = dataset.d
  requests = 10
  gpus     = 2 # ERROR: Invalid gpus
  open_loop {
    rate = 1
  }
}

scenario "not-a-duration" {
  targets  = { baseline = target.old, candidate = target.new }
  dataset  = dataset.d
  requests = 10
  budget   = "ten minutes" # ERROR: Invalid budget
  open_loop {
    rate = 1
  }
}

scenario "stop-without-regression" {
  targets    = { baseline = target.old, candidate = target.new }
  dataset    = dataset.d
  requests   = 10
  stop_early = true # ERROR: Invalid stop_early
  open_loop {
    rate = 1
  }
}

scenario "stop-single-run" {
  target     = target.new
  dataset    = dataset.d
  requests   = 10
  baseline   = "base.json"
  stop_early = true # ERROR: Invalid stop_early
  open_loop {
    rate = 1
  }
  regression {
    ttft_p50 = "10%"
  }
}

scenario "stop-repeat-without-baseline" {
  target     = target.new
  dataset    = dataset.d
  requests   = 10
  repeat     = 3
  stop_early = true # ERROR: Invalid stop_early
  open_loop {
    rate = 1
  }
  regression {
    ttft_p50 = "10%"
  }
}

scenario "stop-agreement-only" {
  targets    = { baseline = target.old, candidate = target.new }
  dataset    = dataset.d
  requests   = 10
  stop_early = true # ERROR: Invalid stop_early
  open_loop {
    rate = 1
  }
  regression {
    prefix_agreement = "20%"
  }
}
