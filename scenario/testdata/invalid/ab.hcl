target "old" {
  base_url = "http://127.0.0.1:8000"
  model    = "m"
}

target "new" {
  base_url = "http://127.0.0.1:8001"
  model    = "m"
}

target "completions" {
  base_url = "http://127.0.0.1:8002"
  model    = "m"
  api      = "openai"
}

dataset "d" {
  random {}
}

scenario "both" {
  target  = target.old
  targets = { baseline = target.old, candidate = target.new } # ERROR: Conflicting arguments
  dataset = dataset.d
  open_loop {
    rate = 1
  }
}

scenario "arms" {
  targets = { # ERROR: Missing arm
    baseline  = target.old
    candidat  = target.new # ERROR: Unknown arm
  }
  dataset = dataset.d
  open_loop {
    rate = 1
  }
}

scenario "same" {
  targets = { baseline = target.old, candidate = target.old } # ERROR: One target in both arms
  dataset = dataset.d
  open_loop {
    rate = 1
  }
}

scenario "undeclared" {
  targets = { baseline = target.odl, candidate = target.new } # ERROR: Reference to undeclared target
  dataset = dataset.d
  open_loop {
    rate = 1
  }
}

scenario "closed" {
  targets    = { baseline = target.old, candidate = target.new } # ERROR: Not with an A/B run
  interleave = true # ERROR: Invalid interleave
  dataset    = dataset.d
  repeat     = 2 # ERROR: Not with an A/B run
  baseline   = "b.json" # ERROR: Not with an A/B run
  closed_loop {
    users    = 2
    duration = "10s"
  }
}

scenario "apis" {
  targets = { baseline = target.completions, candidate = target.new } # ERROR: Not with an A/B run
  dataset = dataset.d
  open_loop {
    rate = 1
  }
}

scenario "interleave" {
  target     = target.old
  interleave = 50 # ERROR: Invalid interleave
  cooldown   = "1s" # ERROR: Invalid cooldown
  dataset    = dataset.d
  open_loop {
    rate = 1
  }
}

scenario "blocks" {
  targets    = { baseline = target.old, candidate = target.new }
  interleave = 0 # ERROR: Invalid interleave
  dataset    = dataset.d
  open_loop {
    rate = 1
  }
}
