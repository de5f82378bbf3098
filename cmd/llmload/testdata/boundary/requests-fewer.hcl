# plan and run must agree on the number of requests: requests-fewer
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

scenario "requests-fewer" {
  target  = target.sim
  dataset = dataset.random

  open_loop {
    rate    = 20
    arrival = "constant"
  }

  duration = "1s"
  requests = 7
}
