target "t" {
  base_url = "http://127.0.0.1:8000"
  model    = "m"
}

dataset "d" {
  random {}
}

scenario "both" {
  target  = target.t
  dataset = dataset.d
  open_loop {
    rate = 1
  }
  closed_loop { # ERROR: Conflicting load blocks
    users = 1
  }
}

scenario "none" { # ERROR: Missing load block
  target  = target.t
  dataset = dataset.d
}

scenario "rates" {
  target  = target.t
  dataset = dataset.d
  open_loop {
    rate            = 0 # ERROR: Invalid rate
    arrival         = "poison" # ERROR: Invalid arrival
    burstiness      = 0 # ERROR: Invalid burstiness
    max_concurrency = 0 # ERROR: Invalid max_concurrency
  }
}

scenario "rate_word" {
  target  = target.t
  dataset = dataset.d
  open_loop {
    rate       = "fast" # ERROR: Invalid rate
    burstiness = 2 # ERROR: Invalid burstiness
  }
}

scenario "no_rate" {
  target  = target.t
  dataset = dataset.d
  open_loop { # ERROR: Missing required argument
  }
}

scenario "users" {
  target  = target.t
  dataset = dataset.d
  closed_loop {
    users      = 0 # ERROR: Invalid users
    think_time = ["3s", "1s"] # ERROR: Invalid think_time
    duration   = "1m"
  }
}

scenario "think" {
  target  = target.t
  dataset = dataset.d
  closed_loop {
    users      = 2
    think_time = ["1s", "2s", "3s"] # ERROR: Invalid think_time
    duration   = "1m"
  }
}

scenario "think_word" {
  target  = target.t
  dataset = dataset.d
  closed_loop {
    users      = 2
    think_time = ["1s", "soon"] # ERROR: Invalid duration
    duration   = "1m"
  }
}

scenario "mixed" {
  target  = target.t
  dataset = dataset.d
  closed_loop {
    users = 5 # ERROR: Conflicting closed_loop arguments
    stage {
      users    = 10
      duration = "1m"
    }
  }
}

scenario "stages" {
  target  = target.t
  dataset = dataset.d
  closed_loop {
    duration = "5m" # ERROR: Conflicting closed_loop arguments
    stage {
      users    = 10
      duration = "1m"
      ramp     = "2m" # ERROR: Invalid ramp
    }
    stage { # ERROR: Missing required argument
      users = 20
    }
  }
}

scenario "empty" {
  target  = target.t
  dataset = dataset.d
  closed_loop { # ERROR: Missing users
  }
}

scenario "endless" {
  target  = target.t
  dataset = dataset.d
  closed_loop { # ERROR: Closed loop without an end
    users = 2
  }
}

scenario "ends_by_requests" {
  target   = target.t
  dataset  = dataset.d
  requests = 10
  closed_loop {
    users = 2
  }
}

scenario "a/b" { # ERROR: Invalid name
  target  = target.t
  dataset = dataset.d
  open_loop {
    rate = 1
  }
}
