target "sim" {
  base_url = "sim://tiny"
  api      = "openai"
  model    = "tiny"
}

dataset "random" {
  random {
    input_len   = 16
    output_len  = 8
    num_prompts = 20
  }
}

scenario "stages" {
  target  = target.sim
  dataset = dataset.random

  closed_loop {
    stage {
      users    = 2
      duration = "1s"
    }
    stage {
      users    = 6
      duration = "1s"
    }
  }

  # A P99 needs 1,000 gaps by default; a one-second stage on a busy machine
  # may hold fewer. The test is about stages, not tails: 20 will do.
  min_samples = 20
  sla {
    itl_p99 = "10s"
  }
}
