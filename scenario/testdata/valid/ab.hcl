target "ab_old" {
  base_url = "sim://tiny"
  model    = "m"
}

target "ab_new" {
  base_url = "sim://tiny"
  model    = "m"
  sim {
    step_overhead = "1ms"
  }
}

dataset "ab_d" {
  random {}
}

scenario "ab" {
  targets    = { baseline = target.ab_old, candidate = target.ab_new }
  interleave = "5s"
  dataset    = dataset.ab_d
  open_loop {
    rate = 10
  }
  regression {
    ttft_p50 = "10%"
  }
  assert "no slower" {
    condition = metrics.e2el.p50 <= baseline.e2el.p50 * 1.1
  }
}

scenario "repeated" {
  target   = target.ab_old
  dataset  = dataset.ab_d
  repeat   = 3
  cooldown = "2s"
  requests = 20
  open_loop {
    rate = 10
  }
}
