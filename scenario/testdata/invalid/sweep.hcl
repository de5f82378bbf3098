target "t" {
  base_url = "http://127.0.0.1:8000"
  model    = "m"
}

dataset "d" {
  random {}
}

scenario "two_lists" {
  target  = target.t
  dataset = dataset.d
  sweep {
    users    = [1, 2]
    rate     = [1, 2] # ERROR: Conflicting sweep arguments
    duration = "10s"
  }
}

scenario "no_values" {
  target  = target.t
  dataset = dataset.d
  sweep { # ERROR: Missing sweep values
    duration = "10s"
  }
}

scenario "bad_values" {
  target  = target.t
  dataset = dataset.d
  sweep {
    users      = [1, 2.5] # ERROR: Invalid users
    duration   = "10s"
    knee_share = 2 # ERROR: Invalid knee_share
  }
}

scenario "decreasing" {
  target  = target.t
  dataset = dataset.d
  sweep {
    rate     = [10, 5] # ERROR: Invalid rate
    requests = 100
  }
}

scenario "no_length" {
  target  = target.t
  dataset = dataset.d
  sweep { # ERROR: Steps without an end
    rate = [1, 2]
  }
}

scenario "users_and_stages" {
  target  = target.t
  dataset = dataset.d
  closed_loop { # ERROR: Conflicting load
    users = 4
  }
  sweep {
    users    = [1, 2]
    duration = "5s"
  }
}

scenario "rate_in_open_loop" {
  target  = target.t
  dataset = dataset.d
  open_loop { # ERROR: Conflicting load
    rate = 4
  }
  capacity {
    vary     = "rate"
    min      = 1
    max      = 8
    duration = "5s"
  }
}

scenario "users_with_open_loop" {
  target  = target.t
  dataset = dataset.d
  open_loop { # ERROR: Conflicting load
    rate = 4
  }
  sweep {
    users    = [1, 2]
    duration = "5s"
  }
}

scenario "both" {
  target  = target.t
  dataset = dataset.d
  sweep {
    users    = [1, 2]
    duration = "5s"
  }
  capacity { # ERROR: Conflicting blocks
    vary = "users"
    min  = 1
    max  = 8
  }
}

scenario "bad_capacity" {
  target  = target.t
  dataset = dataset.d
  capacity {
    vary      = "users"
    min       = 1.5 # ERROR: Invalid min
    max       = 1 # ERROR: Invalid max
    precision = "120%" # ERROR: Invalid precision
    duration  = "5s"
  }
}

scenario "bad_vary" {
  target  = target.t
  dataset = dataset.d
  capacity {
    vary      = "tokens" # ERROR: Invalid vary
    min       = 1
    max       = 8
    precision = "fine" # ERROR: Invalid precision
    requests  = 50
  }
}
