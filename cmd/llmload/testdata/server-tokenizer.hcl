# A dataset counted by the target's /tokenize; the target does not answer.
target "down" {
  base_url = "http://127.0.0.1:1"
  model    = "m"
}

dataset "random" {
  random {
    input_len   = 16
    output_len  = 8
    num_prompts = 4
  }
  tokenizer = "server"
}

scenario "s" {
  target  = target.down
  dataset = dataset.random
  open_loop {
    rate = 10
  }
}
