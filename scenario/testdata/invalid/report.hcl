target "t" {
  base_url = "http://127.0.0.1:8000"
  model    = "m"
}

dataset "d" {
  random {}
}

scenario "percentiles" {
  target             = target.t
  dataset            = dataset.d
  percentiles        = [50, 101] # ERROR: Invalid percentiles
  percentile_metrics = ["ttft", "tfot"] # ERROR: Invalid percentile_metrics
  open_loop {
    rate = 1
  }
}

scenario "empty" {
  target             = target.t
  dataset            = dataset.d
  percentiles        = [] # ERROR: Invalid percentiles
  percentile_metrics = [] # ERROR: Invalid percentile_metrics
  result_filename    = "out/run.json" # ERROR: Invalid result_filename
  save_detailed      = "yes please" # ERROR: Incorrect attribute value type
  open_loop {
    rate = 1
  }
}

scenario "first" {
  target  = target.t
  dataset = dataset.d
  open_loop {
    rate = 1
  }
}

scenario "second" {
  target          = target.t
  dataset         = dataset.d
  result_filename = "first.json" # ERROR: Duplicate result file
  open_loop {
    rate = 1
  }
}
