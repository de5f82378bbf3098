# Prompts that share a 64-token prefix, against the simulator with vLLM's
# automatic prefix caching on and off, for TestPrefixReuse.
target "cached" {
  base_url = "sim://tiny"
  model    = "tiny"
  sim {
    prefix_caching = true
  }
}

target "uncached" {
  base_url = "sim://tiny"
  model    = "tiny"
}

dataset "prefixed" {
  random {
    input_len   = 32
    output_len  = 4
    prefix_len  = 64
    num_prompts = 12
    seed        = 9
  }
}

scenario "cached" {
  target   = target.cached
  dataset  = dataset.prefixed
  requests = 12
  closed_loop {
    users    = 1
    duration = "60s"
  }
  assert "reuse" {
    condition     = metrics.prefix_reuse >= 0.8
    error_message = "The engine's prefix cache served less than 80% of what an ideal one would."
  }
}

scenario "uncached" {
  target   = target.uncached
  dataset  = dataset.prefixed
  requests = 12
  closed_loop {
    users    = 1
    duration = "60s"
  }
  assert "reuse" {
    condition     = metrics.prefix_reuse >= 0.8
    error_message = "The engine's prefix cache served less than 80% of what an ideal one would."
  }
}
