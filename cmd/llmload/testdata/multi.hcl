# Three fast scenarios in one file, for the labelled output of a run of
# several (multi_test.go): one passes, one fails its assert, one names a
# baseline that does not exist (exit 2 before any load).
target "sim" {
  base_url   = "sim://tiny"
  api        = "openai-chat"
  model      = "tiny"
  ignore_eos = true
  timeout    = "20s"
}

dataset "random" {
  random {
    input_len   = 16
    output_len  = 4
    num_prompts = 20
    seed        = 1
  }
}

scenario "passes" {
  target   = target.sim
  dataset  = dataset.random
  requests = 10
  open_loop {
    rate = 100
  }
  sla {
    error_rate = 0
  }
}

scenario "fails" {
  target   = target.sim
  dataset  = dataset.random
  requests = 10
  open_loop {
    rate = 100
  }
  assert "never" {
    condition = metrics.completed < 0
  }
}

scenario "no_baseline" {
  target   = target.sim
  dataset  = dataset.random
  requests = 10
  baseline = "no-such-baseline.json"
  open_loop {
    rate = 100
  }
}
