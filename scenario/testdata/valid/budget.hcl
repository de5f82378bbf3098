target "budget_old" {
  base_url = "http://127.0.0.1:8000"
  model    = "m"
}

target "budget_new" {
  base_url = "http://127.0.0.1:8001"
  model    = "m"
}

dataset "budget_d" {
  random {}
}

scenario "budget_ab" {
  targets    = { baseline = target.budget_old, candidate = target.budget_new }
  dataset    = dataset.budget_d
  requests   = 400
  interleave = 20
  budget     = "10m"
  stop_early = true
  open_loop {
    rate = 20
  }
  regression {
    ttft_p50 = "10%"
  }
}

scenario "budget_gpu_time" {
  targets    = { baseline = target.budget_old, candidate = target.budget_new }
  dataset    = dataset.budget_d
  requests   = 400
  budget     = "40 gpu-minutes"
  gpus       = 4
  stop_early = true
  open_loop {
    rate = 20
  }
  regression {
    ttft_p50 = "10%"
  }
}

scenario "budget_repeat" {
  target     = target.budget_new
  dataset    = dataset.budget_d
  requests   = 100
  repeat     = 6
  baseline   = "base.json"
  budget     = "1h"
  stop_early = true
  open_loop {
    rate = 20
  }
  regression {
    ttft_p50 = "10%"
  }
}

scenario "budget_wall_gpus" {
  targets    = { baseline = target.budget_old, candidate = target.budget_new }
  dataset    = dataset.budget_d
  requests   = 400
  budget     = "10m"
  gpus       = 2
  stop_early = true
  open_loop {
    rate = 20
  }
  regression {
    ttft_p50 = "10%"
  }
}
