# plan and run must agree on the number of requests: requests-more
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

scenario "requests-more" {
  target  = target.sim
  dataset = dataset.random

  open_loop {
    rate    = 40
    arrival = "constant"
  }

  duration = "500ms"
  requests = 100
}
