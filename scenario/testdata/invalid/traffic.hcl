target "chat" {
  base_url = "sim://tiny"
}

target "completions" {
  base_url = "sim://tiny"
  api      = "openai"
}

dataset "t" {
  trace {
    path   = "trace.jsonl"
    format = "splunk" # ERROR: Invalid format
    model  = "GPT-4"  # ERROR: Invalid model
    prefix {
      shared_prefix_len = 8
      num_prefixes      = 2
    }
  }
}

dataset "moon" {
  trace {
    path   = "trace.jsonl"
    format = "mooncake"
    prefix { # ERROR: Invalid prefix block
      shared_prefix_len = 8
      num_prefixes      = 2
    }
  }
}

dataset "few" {
  random {
    num_prompts = 3
    prefix {                # ERROR: Invalid prefix block
      shared_prefix_len = 0 # ERROR: Invalid shared_prefix_len
      num_prefixes      = 4
    }
  }
}

dataset "single" {
  jsonl {
    path      = "p.jsonl"
    max_turns = 3 # ERROR: Invalid max_turns
  }
}

dataset "chats" {
  jsonl {
    path       = "p.jsonl"
    multi_turn = true # ERROR: Multi-turn sessions need the chat or Messages API
  }
}

scenario "replay-random" {
  target  = target.chat
  dataset = dataset.few
  replay {    # ERROR: Replay without a trace
    speed = 0 # ERROR: Invalid speed
  }
}

scenario "two-loads" {
  target  = target.chat
  dataset = dataset.moon
  replay {}
  open_loop { # ERROR: Conflicting load blocks
    rate = 1
  }
}

scenario "history-without-sessions" {
  target          = target.chat
  dataset         = dataset.single
  history         = "generated" # ERROR: Invalid history
  turn_think_time = "1s"        # ERROR: Invalid turn_think_time
  open_loop {
    rate = 1
  }
}

scenario "bad-history" {
  target  = target.chat
  dataset = dataset.chats
  history = "invented" # ERROR: Invalid history
  open_loop {
    rate = 1
  }
}

scenario "completions-sessions" {
  target  = target.completions
  dataset = dataset.chats
  open_loop {
    rate = 1
  }
}

dataset "azure_sessions" {
  trace {
    path       = "azure.csv"
    format     = "azure"
    multi_turn = true # ERROR: Invalid multi_turn
  }
}
