dataset "none" { # ERROR: Missing dataset source
  tokenizer = "server"
}

dataset "two" {
  random {}
  jsonl { # ERROR: Conflicting dataset sources
    path = "p.jsonl"
  }
}

dataset "sharegpt" {
  sharegpt {
    path              = "s.json"
    num_prompts       = 0 # ERROR: Invalid num_prompts
    min_prompt_tokens = 100
    max_prompt_tokens = 10 # ERROR: Invalid max_prompt_tokens
    output_len        = 0 # ERROR: Invalid output_len
  }
  tokenizer = "" # ERROR: Invalid tokenizer
}

dataset "random" {
  random {
    range_ratio = 1.5 # ERROR: Invalid range_ratio
    prefix_len  = -1 # ERROR: Invalid prefix_len
  }
}

dataset "jsonl" {
  jsonl { # ERROR: Missing required argument
    prompt_field = "" # ERROR: Invalid prompt_field
  }
}
