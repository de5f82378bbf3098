target "chat" {
  base_url = "http://127.0.0.1:8000"
  api      = "openai-chat"
  model    = "m"
}

dataset "single" {
  random {}
}

dataset "chats" {
  jsonl {
    path       = "chats.jsonl"
    multi_turn = true
  }
}

scenario "fan-out-without-sessions" {
  target   = target.chat
  dataset  = dataset.single
  requests = 10
  fan_out { # ERROR: fan_out needs multi-turn sessions
    sub_agents = 2
  }
  open_loop {
    rate = 1
  }
}

scenario "fan-out-recorded" {
  target   = target.chat
  dataset  = dataset.chats
  requests = 10
  history  = "recorded"
  fan_out { # ERROR: fan_out needs generated history
    sub_agents = 2
    context    = "forked" # ERROR: Invalid context
    prompt     = " "      # ERROR: Invalid prompt
  }
  open_loop {
    rate = 1
  }
}

scenario "fan-out-zero" {
  target   = target.chat
  dataset  = dataset.chats
  requests = 10
  fan_out {
    sub_agents = 0 # ERROR: Invalid sub_agents
  }
  open_loop {
    rate = 1
  }
}

scenario "think-unknown" {
  target          = target.chat
  dataset         = dataset.chats
  requests        = 10
  turn_think_time = { distribution = "poisson", mean = "1s" } # ERROR: Invalid turn_think_time
  open_loop {
    rate = 1
  }
}

scenario "think-no-mean" {
  target          = target.chat
  dataset         = dataset.chats
  requests        = 10
  turn_think_time = { distribution = "exponential", max = "1s" } # ERROR: Invalid turn_think_time
  open_loop {
    rate = 1
  }
}

scenario "think-typo" {
  target          = target.chat
  dataset         = dataset.chats
  requests        = 10
  turn_think_time = { distribution = "uniform", minimum = "1s" } # ERROR: Invalid turn_think_time
  open_loop {
    rate = 1
  }
}

scenario "too-many-sub-agents" {
  target   = target.chat
  dataset  = dataset.chats
  requests = 10
  fan_out {
    sub_agents = 65 # ERROR: Invalid sub_agents
  }
  open_loop {
    rate = 1
  }
}

scenario "recorded-think-without-trace" {
  target          = target.chat
  dataset         = dataset.chats
  requests        = 10
  turn_think_time = "recorded" # ERROR: Invalid turn_think_time
  open_loop {
    rate = 1
  }
}
