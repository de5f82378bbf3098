# Tool calls against the simulator, for TestToolCallsEndToEnd: each entry
# of tools.jsonl offers two functions; the simulator answers about half
# the prompts with a call (tool_call_share), the first always (tool_choice
# "required"), the second never ("none"). -var api=anthropic-messages
# sends them through Anthropic's Messages API.
variable "api" {
  default = "openai-chat"
}

target "sim" {
  base_url = "sim://tiny"
  api      = var.api
  model    = "tiny"
}

dataset "journeys" {
  jsonl {
    path       = "tools.jsonl"
    output_len = 12
  }
}

scenario "tools" {
  target   = target.sim
  dataset  = dataset.journeys
  requests = 24
  # A handful of calls: the median's check rests on them.
  min_samples = 2
  closed_loop {
    users    = 2
    duration = "60s"
  }
  sla {
    ttft_tool_call_p50 = "20s"
  }
  assert "tool calls well formed" {
    condition = metrics.output_defects.bad_tool_call == 0
  }
}
