# The conformance suite's scenarios (engines/conformance): each runs
# against a real engine serving the generated tiny model, with the
# engine's default settings. The test sets base_url, model and api.
variable "base_url" {
  type = string
}

variable "model" {
  type = string
}

variable "api" {
  type    = string
  default = "openai"
}

target "engine" {
  base_url = var.base_url
  model    = var.model
  api      = var.api
  # The tiny model never emits EOS: every answer runs to max_tokens.
  timeout       = "120s"
  stall_timeout = "60s"
}

# The same engine with llama.cpp's prompt cache off for these requests.
target "engine_nocache" {
  base_url      = var.base_url
  model         = var.model
  api           = var.api
  timeout       = "120s"
  stall_timeout = "60s"
  extra_body    = { cache_prompt = false }
}

dataset "words" {
  random {
    input_len   = 24
    output_len  = 32
    num_prompts = 64
    seed        = 7
  }
}

# The same prompts counted by the engine's own /tokenize (llama.cpp).
dataset "server_counted" {
  random {
    input_len   = 24
    output_len  = 16
    num_prompts = 8
    seed        = 7
  }
  tokenizer = "server"
}

# A closed loop at 1, 4 and 8 users: every request completes, counted by
# the engine's usage, and the run is valid.
scenario "users1" {
  target   = target.engine
  dataset  = dataset.words
  requests = 6
  closed_loop {
    users    = 1
    duration = "600s"
  }
  sla {
    error_rate = 0
  }
}

scenario "users4" {
  target   = target.engine
  dataset  = dataset.words
  requests = 16
  closed_loop {
    users    = 4
    duration = "600s"
  }
  sla {
    error_rate = 0
  }
}

scenario "users8" {
  target   = target.engine
  dataset  = dataset.words
  requests = 24
  closed_loop {
    users    = 8
    duration = "600s"
  }
  sla {
    error_rate = 0
  }
}

# An open loop at a rate the slowest engine keeps up with.
scenario "open" {
  target   = target.engine
  dataset  = dataset.words
  requests = 12
  open_loop {
    rate = 2
  }
  # The engine shares the machine's two cores with the client: the
  # dispatch lag bound is the suite's own, not a client benchmark's.
  validity {
    max_lag_p99 = "200ms"
  }
  sla {
    error_rate = 0
  }
}

# Prompts counted by the engine's /tokenize.
scenario "tokenize" {
  target   = target.engine
  dataset  = dataset.server_counted
  requests = 4
  closed_loop {
    users    = 2
    duration = "600s"
  }
  sla {
    error_rate = 0
  }
}

# Readers who leave: the engine must free the slot (the requests after
# them still complete).
scenario "abandon" {
  target   = target.engine
  dataset  = dataset.words
  requests = 12
  closed_loop {
    users    = 4
    duration = "600s"
  }
  abandon {
    share        = 0.5
    after_tokens = [4, 8]
  }
  sla {
    error_rate = 0
  }
}

# The same six prompts, for runs one after another: llama.cpp's prompt
# cache, on by default, serves a second run's prompts from the first's.
scenario "again" {
  target   = target.engine
  dataset  = dataset.words
  requests = 6
  closed_loop {
    users    = 1
    duration = "600s"
  }
}

scenario "again_nocache" {
  target   = target.engine_nocache
  dataset  = dataset.words
  requests = 6
  closed_loop {
    users    = 1
    duration = "600s"
  }
}
