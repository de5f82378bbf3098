# Two runs of the same prompts against one simulator that caches prompt
# prefixes (vLLM's automatic prefix caching), under each prompt_cache
# policy, for TestPromptCache.
variable "policy" {
  type    = string
  default = "shared"
}

target "sim" {
  base_url     = "sim://tiny"
  model        = "tiny"
  prompt_cache = var.policy
  sim {
    prefix_caching = true
  }
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

scenario "twice" {
  target   = target.sim
  dataset  = dataset.prefixed
  requests = 12
  repeat   = 2
  cooldown = "10ms"
  closed_loop {
    users    = 1
    duration = "60s"
  }
}
