# The memory benchmark (make bench-memory): closed-loop users as fast as a
# zero-delay local server answers, 256 output tokens each. Peak RSS must not
# grow with the number of requests: results stream to disk, and so do the
# answers kept (outputs { keep }).
variable "base_url" {
  description = "The fake server's URL (make bench-memory starts one)."
}

variable "requests" {
  type    = number
  default = 1000000
}

target "fake" {
  base_url = var.base_url
  api      = "openai"
  model    = "fake"
  timeout  = "60s"
}

dataset "random" {
  random {
    input_len   = 16
    output_len  = 256
    num_prompts = 100
  }
}

scenario "memory" {
  target  = target.fake
  dataset = dataset.random

  closed_loop {
    users = 64
  }

  requests = var.requests

  # The first 1,000 answers' texts, streamed to memory.outputs.jsonl: the
  # rest are hashed as they stream and never kept.
  outputs {
    keep = 1000
  }
}
