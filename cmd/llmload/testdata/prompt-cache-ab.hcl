# An A/B run whose two arms are one simulator (caching prompt prefixes)
# under each prompt_cache policy, for TestPromptCacheAB: the test serves
# the simulator at var.url and tells the arms apart by X-Arm.
variable "url" {
  type = string
}

variable "policy" {
  type    = string
  default = "shared"
}

target "a" {
  base_url     = var.url
  model        = "tiny"
  prompt_cache = var.policy
  headers      = { "X-Arm" = "baseline" }
}

target "b" {
  base_url     = var.url
  model        = "tiny"
  prompt_cache = var.policy
  headers      = { "X-Arm" = "candidate" }
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

scenario "ab" {
  targets    = { baseline = target.a, candidate = target.b }
  interleave = 4
  dataset    = dataset.prefixed
  requests   = 12
  open_loop {
    rate = 50
  }
}
