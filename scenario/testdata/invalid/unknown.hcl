name = "top-level attributes are not allowed" # ERROR: Unsupported argument

# ERROR: Unsupported block type
targte "t" {
  base_url = "http://127.0.0.1:8000"
}

target "t" {
  base_url = "http://127.0.0.1:8000"
  model    = "m"
  ignore_eso = true # ERROR: Unsupported argument
  stall    = "1s" # ERROR: Unsupported argument
}

dataset "d" {
  random {
    input_length = 10 # ERROR: Unsupported argument
  }
}

scenario "s" {
  target  = target.t
  dataset = dataset.d

  open_loop {
    rate = 1
    arival = "poisson" # ERROR: Unsupported argument
  }
  # ERROR: Unsupported block type
  warm_up {
    requests = 1
  }
}
