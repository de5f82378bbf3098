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
}
