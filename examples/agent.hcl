# An agent at work, on the built-in simulator: coding tasks replayed as
# sessions of two user turns. Each turn offers three tools; an answer
# that calls them gets their results back at once (tool round trips). After
# the first turn the agent fans out: three sub-agents, each briefed with
# the orchestrator's answer, work at once, and their replies open the
# second turn's prompt. Every history holds what the server itself
# answered (history = "generated"), and the agent pauses between turns for
# an exponential think time.
#
#   go run ./cmd/llmload run examples/agent.hcl
#   go run ./cmd/llmload run examples/agent.hcl -var base_url=http://127.0.0.1:8000 -var model=<served name>
#
# The second is a vLLM server with a tool parser (--enable-auto-tool-choice
# --tool-call-parser <parser>). The console shows the tool calls, the TTFT
# of each turn and the sessions: how long each took, how much of it waited
# on the server, and its round trips and sub-agents. The requests file
# marks each round trip (tool_round) and sub-agent (sub_agent). Takes about
# 6 seconds on the simulator.

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
    tool_call_share = 0.5
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

scenario "agent" {
  target             = target.agent
  dataset            = dataset.tasks
  requests           = 12
  history            = "generated"
  max_tool_rounds    = 2
  tool_result_tokens = 120
  turn_think_time    = { distribution = "exponential", mean = "300ms", max = "2s" }

  # After the first turn's answer, three sub-agents at once; the second
  # turn reads their replies.
  fan_out {
    after_turn = 1
    sub_agents = 3
    prompt     = "You are a sub-agent. Check one suspect file of the plan below and report what you found."
    output_len = 32
    context    = "fresh"
  }

  closed_loop {
    users    = 4
    duration = "2m"
  }

  sla {
    ttft_tool_call_p50 = "2s"
  }
  assert "tool calls parse" {
    condition = metrics.output_defects.bad_tool_call == 0
  }
  assert "every session ran whole" {
    condition = metrics.sessions_complete == metrics.sessions
  }
}
