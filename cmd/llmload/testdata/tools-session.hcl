# Agent sessions with tool calls against the simulator, for
# TestToolRoundTrips: each session has two user turns and offers a search
# tool; even entries require a call ("required" calls at every round, so
# those turns run to max_tool_rounds), odd ones let the model choose. An
# answer that calls the tool gets its result back at once, and the server
# answers that. -var api=anthropic-messages runs them through Anthropic's
# Messages API.
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
    path       = "tools-session.jsonl"
    output_len = 6
    multi_turn = true
  }
}

scenario "tool-rounds" {
  target             = target.sim
  dataset            = dataset.journeys
  requests           = 8
  max_tool_rounds    = 2
  tool_result_tokens = 20
  closed_loop {
    users    = 2
    duration = "60s"
  }
}
