# Traces, replays, multi-turn sessions and shared prefixes.
target "chat" {
  base_url = "sim://tiny"
  api      = "openai-chat"
}

target "messages" {
  base_url = "sim://tiny"
  api      = "anthropic-messages"
}

dataset "mooncake" {
  trace {
    path   = "trace.jsonl"
    format = "mooncake"
  }
}

dataset "burst" {
  trace {
    path     = "burst.csv"
    format   = "burstgpt"
    model    = "GPT-4"
    log_type = "Conversation log"
    seed     = 3
    prefix {
      shared_prefix_len = 64
      num_prefixes      = 4
    }
  }
}

dataset "groups" {
  random {
    input_len   = 128
    num_prompts = 40
    prefix {
      shared_prefix_len = 256
      num_prefixes      = 10
    }
  }
}

dataset "chats" {
  sharegpt {
    path       = "chats.json"
    multi_turn = true
    max_turns  = 6
  }
}

scenario "replay" {
  target  = target.chat
  dataset = dataset.mooncake
  replay {
    speed           = 2.5
    start           = "10m"
    window          = "5m"
    max_concurrency = 64
  }
}

scenario "burst-open" {
  target  = target.chat
  dataset = dataset.burst
  open_loop {
    rate = 4
  }
}

scenario "sessions" {
  target          = target.chat
  dataset         = dataset.chats
  history         = "recorded"
  turn_think_time = ["1s", "3s"]
  closed_loop {
    users    = 4
    duration = "1m"
  }
}

scenario "sessions-default" {
  target  = target.chat
  dataset = dataset.chats
  open_loop {
    rate = 1
  }
  requests = 10
}

scenario "sessions-messages" {
  target  = target.messages
  dataset = dataset.chats
  open_loop {
    rate = 1
  }
  requests = 10
}

# An agent: exponential think time, a fan-out step after the second turn.
scenario "agent" {
  target          = target.chat
  dataset         = dataset.chats
  turn_think_time = { distribution = "exponential", mean = "2s", max = "20s" }
  fan_out {
    after_turn = 2
    sub_agents = 3
    context    = "shared"
  }
  closed_loop {
    users    = 2
    duration = "1m"
  }
}

scenario "agent-recorded-think" {
  target          = target.chat
  dataset         = dataset.agent_trace
  history         = "generated"
  turn_think_time = "recorded"
  open_loop {
    rate = 1
  }
  requests = 4
}

# An agent trace: a mooncake trace's sessions, replayed as recorded.
dataset "agent_trace" {
  trace {
    path       = "trace.jsonl"
    format     = "mooncake"
    multi_turn = true
    max_turns  = 8
  }
}

scenario "agent-trace" {
  target  = target.chat
  dataset = dataset.agent_trace
  replay {
    speed = 2
  }
}
