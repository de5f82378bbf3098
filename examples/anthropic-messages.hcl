# Anthropic's Messages API (api = "anthropic-messages", POST /v1/messages):
# ShareGPT conversations replayed as multi-turn sessions, each later turn
# carrying the replies the server gave, by 4 users, against the simulator,
# whose model thinks for 16 tokens (a thinking block) before it answers.
# The key goes in x-api-key with anthropic-version 2023-06-01; a
# conversation's system message is the request's top-level system prompt.
#
#   go run ./cmd/llmload run examples/anthropic-messages.hcl
#   ANTHROPIC_API_KEY=... go run ./cmd/llmload run examples/anthropic-messages.hcl -var base_url=https://api.anthropic.com -var model=<model>
#   go run ./cmd/llmload run examples/anthropic-messages.hcl -var base_url=http://127.0.0.1:8000 -var model=<served name>
#
# The last is a vLLM or llama.cpp server, which serve /v1/messages too.
# Takes about 5 seconds on the simulator. The console shows TTFT (the
# first token of any kind: here the first thinking token) apart from
# ttft_answer (the first text token), and the TTFT of each turn.

variable "base_url" {
  description = "Where the server listens: http(s)://host:port (https://api.anthropic.com for Anthropic), or sim://<profile> for the built-in simulator."
  default     = "sim://a100-llama3-8b"
}

variable "model" {
  description = "The model name sent in every request (the simulator serves any name)."
  default     = "sim-claude"
}

target "server" {
  base_url = var.base_url
  api      = "anthropic-messages"
  model    = var.model
  api_key  = env("ANTHROPIC_API_KEY", "") # sent as x-api-key, never printed or saved
  timeout  = "60s"

  sim {
    reasoning_tokens = 16
    prefix_caching   = true # a later turn's prompt begins with the turn before
  }
}

dataset "conversations" {
  sharegpt {
    path             = "data/sharegpt_synthetic.json"
    multi_turn       = true
    max_turns        = 3
    num_prompts      = 24
    output_len       = 64
    max_total_tokens = 1500
  }
}

scenario "messages" {
  target          = target.server
  dataset         = dataset.conversations
  turn_think_time = ["50ms", "200ms"]

  closed_loop {
    users = 4
  }
  requests = 24

  sla {
    error_rate = 0.01
  }

  assert "every conversation was answered" {
    condition     = metrics.ttft_first_turn.count == 24
    error_message = "Not every session's first turn was answered."
  }
}
