target "vllm" {
  base_url = "http://127.0.0.1:8000"
  model    = "m"
}

dataset "sharegpt" {
  sharegpt {
    path = "data.json"
  }
}

scenario "typo" {
  target  = target.vllmm # ERROR: Reference to undeclared target
  dataset = dataset.nope # ERROR: Reference to undeclared dataset
  open_loop {
    rate = 1
  }
}

scenario "strings" {
  target  = "vllm" # ERROR: Invalid reference
  dataset = target.vllm # ERROR: Invalid reference
  open_loop {
    rate = 1
  }
}

# ERROR: Missing required argument
scenario "missing" {
  dataset = dataset.sharegpt
  open_loop {
    rate = 1
  }
}

target "also bad" { # ERROR: Invalid name
  base_url = "http://127.0.0.1:8000"
  model    = "m"
}
