# An agent trace replayed: four sessions recorded in AIPerf's
# mooncake_trace format (rows sharing a session_id; each row the whole
# conversation so far, with the assistant's tool calls and the tools'
# results; the first row at its timestamp, each later one a delay after
# the previous answer ended). The server sees each recorded request's
# messages, tools and tool_choice, each session at its recorded time and
# each later request its recorded delay after this run's answer before it.
#
#   go run ./cmd/llmload run examples/agent-trace.hcl
#   go run ./cmd/llmload run examples/agent-trace.hcl -var base_url=http://127.0.0.1:8000 -var model=<served name>
#
# history = "generated" would send the server's own answers instead, with
# the recorded tool results answering the server's calls. Takes about 5
# seconds on the simulator.

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
}

dataset "agent_trace" {
  trace {
    path       = "data/agent_trace.jsonl"
    format     = "mooncake"
    multi_turn = true # rows sharing a session_id are one session
  }
}

scenario "agent-trace" {
  target  = target.agent
  dataset = dataset.agent_trace
  # history = "recorded" and turn_think_time = "recorded" are a trace's
  # defaults: its own replies and delays.

  replay {
    speed = 1 # the recorded times; 2 replays twice as fast
  }

  assert "every session ran whole" {
    condition = metrics.sessions_complete == 4
  }
}
