target "t" {
  base_url   = "http://127.0.0.1:8000"
  model      = "m"
  timeout    = 30 # ERROR: Invalid duration
  ignore_eos = "maybe" # ERROR: Incorrect attribute value type
  headers    = ["X-Team", "serving"] # ERROR: Incorrect attribute value type
  extra_body = "temperature=0" # ERROR: Invalid extra_body
  stall_timeout = "5 minutes" # ERROR: Invalid duration
}

dataset "d" {
  random {
    input_len   = "long" # ERROR: Incorrect attribute value type
    output_len  = 1.5 # ERROR: Invalid output_len
    num_prompts = -3 # ERROR: Invalid num_prompts
  }
}

scenario "s" {
  target   = target.t
  dataset  = dataset.d
  requests = 0 # ERROR: Invalid requests
  duration = "-1m" # ERROR: Invalid duration

  open_loop {
    rate = 1
  }
}
