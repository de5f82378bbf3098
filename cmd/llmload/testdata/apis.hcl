# The Responses, chat and embeddings APIs against the simulator, whose
# model reasons for 8 tokens before it answers (chat and Responses).
variable "api" {
  type = string
}

target "sim" {
  base_url   = "sim://tiny"
  api        = var.api
  ignore_eos = true
  sim {
    reasoning_tokens = 8
  }
}

dataset "random" {
  random {
    input_len   = 32
    output_len  = 24
    num_prompts = 20
    seed        = 1
  }
}

scenario "apis" {
  target   = target.sim
  dataset  = dataset.random
  requests = 20

  open_loop {
    rate = "inf"
  }

  assert "every request completed" {
    condition = metrics.completed == 20
  }
}
