target "chat" {
  base_url = "http://127.0.0.1:8000"
  api      = "openai-chat"
  model    = "m"
}

dataset "single" {
  random {}
}

scenario "rounds-without-sessions" {
  target          = target.chat
  dataset         = dataset.single
  requests        = 10
  max_tool_rounds = 2 # ERROR: Invalid max_tool_rounds
  open_loop {
    rate = 1
  }
}

scenario "negative-rounds" {
  target          = target.chat
  dataset         = dataset.single
  requests        = 10
  max_tool_rounds = -1 # ERROR: Invalid max_tool_rounds
  open_loop {
    rate = 1
  }
}
