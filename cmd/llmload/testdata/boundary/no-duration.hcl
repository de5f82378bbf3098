# plan and run must agree on the number of requests: no-duration
target "sim" {
  base_url = "sim://tiny"
  api      = "openai"
  model    = "tiny"
}

dataset "random" {
  random {
    input_len   = 8
    output_len  = 4
    num_prompts = 10
  }
}

scenario "no-duration" {
  target  = target.sim
  dataset = dataset.random

  open_loop {
    rate    = 50
    arrival = "constant"
  }
  requests = 12
}
