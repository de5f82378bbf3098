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

  # The tests are about stages, not speed: each stage is judged by a check
  # no timing decides (a latency check would be inconclusive on a busy
  # machine, with too few samples in a second or tokens read in one go), so
  # the knee is the last stage whatever the machine.
  sla {
    error_rate = 0.0
  }
}
