# ShareGPT conversations as sessions against the simulator with vLLM's
# automatic prefix caching, replaying the recorded replies, for
# TestSessionPrefixReuse: each later turn's prompt begins with the turn
# before it.
target "sim" {
  base_url = "sim://tiny"
  model    = "tiny"
  timeout  = "20s"
  sim {
    prefix_caching = true
  }
}

dataset "chats" {
  sharegpt {
    path             = "../../../examples/data/sharegpt_synthetic.json"
    multi_turn       = true
    num_prompts      = 8
    output_len       = 8
    max_total_tokens = 1500
  }
}

scenario "sessions" {
  target          = target.sim
  dataset         = dataset.chats
  history         = "recorded"
  turn_think_time = "5ms"
  requests        = 8
  closed_loop {
    users = 1
  }
  assert "reuse" {
    condition     = metrics.prefix_reuse >= 0.9
    error_message = "Later turns were not served from the cache of the turns before them."
  }
}
