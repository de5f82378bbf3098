# An agent's traffic: coding tasks replayed as sessions of two user turns,
# each offering three tools (search_code, read_file, run_tests). When the
# model answers with a tool call, the agent sends the call's result back
# at once (a tool message of tool_result_tokens words) and the model goes
# on, up to max_tool_rounds round trips a turn; the history always holds
# what the server itself answered (history = "generated"). A third of the
# tasks require a tool at every step (tool_choice "required").
#
#   go run ./cmd/llmload run examples/agent-tools.hcl
#   go run ./cmd/llmload run examples/agent-tools.hcl -var base_url=http://127.0.0.1:8000 -var model=<served name>
#
# The second is a vLLM server with a tool parser (--enable-auto-tool-choice
# --tool-call-parser <parser>). The console shows the tool calls, the first
# tool-call token and the round trips; the requests file marks each round
# trip (tool_round). Takes about 7 seconds on the simulator.

variable "base_url" {
  description = "Where the server listens: http(s)://host:port, or sim://<profile> for the built-in simulator."
  default     = "sim://a100-llama3-8b"
}

variable "model" {
  description = "The model name sent in every request (the simulator serves any name)."
  default     = "meta-llama/Meta-Llama-3-8B-Instruct"
}

target "agent" {
  base_url = var.base_url
  api      = "openai-chat"
  model    = var.model
  timeout  = "60s"

  sim {
    tool_call_share = 0.6
    prefix_caching  = true # each request's prompt begins with the one before
  }
}

dataset "tasks" {
  jsonl {
    path       = "data/agent_tasks.jsonl"
    output_len = 48
    multi_turn = true
  }
}

scenario "agent-tools" {
  target             = target.agent
  dataset            = dataset.tasks
  requests           = 12
  history            = "generated"
  max_tool_rounds    = 3
  tool_result_tokens = 120

  closed_loop {
    users    = 4
    duration = "2m"
  }

  sla {
    ttft_tool_call_p50 = "2s"
  }
  # Agents break on calls they cannot parse.
  assert "tool calls parse" {
    condition = metrics.output_defects.bad_tool_call == 0
  }
}
