target "no_scheme" {
  base_url = "127.0.0.1:8000" # ERROR: Invalid base_url
  model    = "m"
}

target "bad_port" {
  base_url = "http://127.0.0.1:99999" # ERROR: Invalid base_url
  model    = "m"
}

target "bad_sim" {
  base_url = "sim://" # ERROR: Invalid base_url
}

target "api" {
  base_url = "http://127.0.0.1:8000"
  api      = "openai-chatt" # ERROR: Invalid api
  model    = "m"
}

target "no_model" { # ERROR: Missing required argument
  base_url = "http://127.0.0.1:8000"
}

target "sim_values" {
  base_url = "sim://tiny"
  sim {
    list = [1, 2] # ERROR: Invalid simulator override
  }
}

target "no_url" { # ERROR: Missing required argument
  model = "m"
}

target "zero_timeout" {
  base_url = "http://127.0.0.1:8000"
  model    = "m"
  timeout  = "0s" # ERROR: Invalid timeout
}

target "prewarm_without_reuse" {
  base_url                   = "http://127.0.0.1:8000"
  model                      = "m"
  new_connection_per_request = true
  prewarm_connections        = 8 # ERROR: Invalid prewarm_connections
}

target "negative_prewarm" {
  base_url            = "http://127.0.0.1:8000"
  model               = "m"
  prewarm_connections = -1 # ERROR: Invalid prewarm_connections
}

target "prompt_cache_typo" {
  base_url     = "http://127.0.0.1:8000"
  model        = "m"
  prompt_cache = "isolated" # ERROR: Invalid prompt_cache
}

target "prompt_cache_twice" {
  base_url     = "http://127.0.0.1:8000"
  model        = "m"
  extra_body   = { cache_prompt = false }
  prompt_cache = "off" # ERROR: Invalid prompt_cache
}
