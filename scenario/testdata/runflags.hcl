# Scenarios that some command-line flags make impossible: runflags_test.go
# checks each against each flag.
target "a" {
  base_url = "sim://tiny"
}

target "b" {
  base_url = "sim://tiny"
}

dataset "d" {
  random {
    input_len   = 8
    output_len  = 4
    num_prompts = 10
  }
}

scenario "plain" {
  target   = target.a
  dataset  = dataset.d
  requests = 10
  open_loop {
    rate = 10
  }
}

scenario "repeated" {
  target   = target.a
  dataset  = dataset.d
  requests = 10
  repeat   = 3
  open_loop {
    rate = 10
  }
}

scenario "ab" {
  targets  = { baseline = target.a, candidate = target.b }
  dataset  = dataset.d
  requests = 100
  open_loop {
    rate = 10
  }
}

scenario "two_users" {
  target  = target.a
  dataset = dataset.d
  closed_loop {
    users    = 2
    duration = "1s"
  }
}

scenario "three_requests" {
  target   = target.a
  dataset  = dataset.d
  requests = 3
  open_loop {
    rate = 10
  }
}

scenario "sweep" {
  target  = target.a
  dataset = dataset.d
  sweep {
    rate     = [1, 2]
    requests = 8
  }
}

scenario "capacity" {
  target  = target.a
  dataset = dataset.d
  capacity {
    vary     = "rate"
    min      = 1
    max      = 8
    duration = "1s"
  }
}
