# The conformance suite's scenarios (engines/conformance): each runs
# against a real engine serving the generated tiny model, with the
# engine's default settings. The test sets base_url, model and api.
variable "base_url" {
  type = string
}

variable "model" {
  type = string
}

# The model's own tokenizer.json (Qwen3's, from ../shared), for the
# dataset whose ideal prefix reuse is counted in the model's tokens.
variable "tokenizer" {
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

# The same engine with its prompt cache off for these requests
# (llama.cpp's cache_prompt = false), or under another policy.
variable "prompt_cache" {
  type    = string
  default = "off"
}

target "engine_nocache" {
  base_url      = var.base_url
  model         = var.model
  api           = var.api
  timeout       = "120s"
  stall_timeout = "60s"
  prompt_cache  = var.prompt_cache
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

# Long answers, for readers who leave: an engine that went on generating
# an abandoned answer would spend 400 tokens on it.
dataset "long" {
  random {
    input_len   = 24
    output_len  = 400
    num_prompts = 12
    seed        = 7
  }
}

# Readers who leave: the engine must free the slot (the requests after
# them still complete) and stop generating what nobody reads.
scenario "abandon" {
  target   = target.engine
  dataset  = dataset.long
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

# Prompts that share a 64-token prefix, counted with the model's own
# tokenizer: the engine's prefix cache must serve at least half of what an
# ideal one would (prefix_reuse), so an engine that reuses less fails.
dataset "prefixed" {
  random {
    input_len   = 32
    output_len  = 8
    prefix_len  = 64
    num_prompts = 12
    seed        = 9
  }
  tokenizer = var.tokenizer
}

scenario "prefix" {
  target   = target.engine
  dataset  = dataset.prefixed
  requests = 12
  closed_loop {
    users    = 1
    duration = "600s"
  }
  assert "reuse" {
    condition     = metrics.prefix_reuse >= 0.5
    error_message = "The engine's prefix cache served less than half of what an ideal one would."
  }
}

scenario "prefix_nocache" {
  target   = target.engine_nocache
  dataset  = dataset.prefixed
  requests = 12
  closed_loop {
    users    = 1
    duration = "600s"
  }
  assert "reuse" {
    condition     = metrics.prefix_reuse >= 0.5
    error_message = "The engine's prefix cache served less than half of what an ideal one would."
  }
}

# The stop model (tinymodel's Stop: one word, then EOS) with ignore_eos
# off, then on: an engine that honours it runs every answer to max_tokens
# ("length"); one that does not stops after the word, and llmload says so
# (short_outputs).
target "engine_ignore_eos" {
  base_url      = var.base_url
  model         = var.model
  api           = var.api
  timeout       = "120s"
  stall_timeout = "60s"
  ignore_eos    = true
}

scenario "eos" {
  target   = target.engine
  dataset  = dataset.words
  requests = 4
  closed_loop {
    users    = 1
    duration = "600s"
  }
}

scenario "eos_ignored" {
  target   = target.engine_ignore_eos
  dataset  = dataset.words
  requests = 4
  closed_loop {
    users    = 1
    duration = "600s"
  }
}

# The pieces model (tinymodel's Pieces) writes any whole piece of text, not
# only words, so its answers run into each other and re-tokenize to other
# counts than the engine generated, as a sampled model's do. Counted with
# the model's own tokenizer the run is valid; counted with another
# (-var tokenizer=<Mistral's>) every answer is disputed and it is not.
dataset "pieces" {
  random {
    input_len   = 24
    output_len  = 64
    num_prompts = 16
    seed        = 11
  }
  tokenizer = var.tokenizer
}

scenario "pieces" {
  target   = target.engine
  dataset  = dataset.pieces
  requests = 16
  closed_loop {
    users    = 4
    duration = "600s"
  }
}

# An A/B run of two engines serving models from the same generator: the
# test starts the candidate at var.candidate_url, serving the same model
# (its answers agree with the baseline's) or one of another seed (they do
# not, at the same speed).
variable "candidate_url" {
  type    = string
  default = "http://127.0.0.1:1"
}

# The candidate's model, when it differs from the baseline's by name (two
# models on one Ollama server); empty: var.model.
variable "candidate_model" {
  type    = string
  default = ""
}

target "candidate" {
  base_url      = var.candidate_url
  model         = var.candidate_model != "" ? var.candidate_model : var.model
  api           = var.api
  timeout       = "120s"
  stall_timeout = "60s"
}

dataset "ab_prompts" {
  random {
    input_len   = 24
    output_len  = 32
    num_prompts = 16
    seed        = 13
  }
}

scenario "ab" {
  targets    = { baseline = target.engine, candidate = target.candidate }
  interleave = 8
  dataset    = dataset.ab_prompts
  requests   = 16
  open_loop {
    rate = 8
  }
}
