# Locust-style users: 20 people chatting, each waiting 1 to 3 seconds
# between answers, with replies of 89 to 167 tokens (128 on average: the
# dataset's range_ratio spreads the lengths by 30% either way), over the
# chat API. Shows a realistic interactive load rather than a stress test.
#
#   llmload run examples/locust-style.hcl
#   llmload run examples/locust-style.hcl -var base_url=http://127.0.0.1:8000 -var model=<served name>
#
# Takes about 1 minute.

variable "base_url" {
  description = "Where the server listens: http(s)://host:port, or sim://<profile> for the built-in simulator."
  default     = "sim://a100-llama3-8b"
}

variable "model" {
  description = "The model name sent in every request (the simulator serves any name)."
  default     = "meta-llama/Meta-Llama-3-8B-Instruct"
}

target "chat" {
  base_url = var.base_url
  api      = "openai-chat"
  model    = var.model
  timeout  = "60s"

  # Each reply runs to the length its request asks for (max_tokens, drawn
  # by the dataset), as vLLM asks of its random dataset.
  ignore_eos = true
}

dataset "prompts" {
  random {
    input_len   = 200
    output_len  = 128
    range_ratio = 0.3
    num_prompts = 500
    seed        = 7
  }
}

scenario "chat_users" {
  target  = target.chat
  dataset = dataset.prompts

  closed_loop {
    users      = 20
    think_time = ["1s", "3s"]
    duration   = "1m"
  }

  sla {
    ttft_p95 = "300ms"
    itl_p99  = "40ms"
  }
}
