# A short users sweep on the simulator's tiny profile with four sequences
# a step: output throughput stops rising past 4 users, and TTFT jumps there
# (a fifth user waits for a whole request to finish).
target "sim" {
  base_url = "sim://tiny"
  sim {
    max_num_seqs = 4
  }
}

dataset "random" {
  random {
    input_len   = 32
    output_len  = 64
    num_prompts = 50
  }
}

scenario "sweep" {
  target  = target.sim
  dataset = dataset.random
  sweep {
    users    = [1, 4, 8, 16]
    duration = "500ms"
  }
  sla {
    ttft_p99 = "40ms"
  }
  assert "some capacity" {
    condition = metrics.capacity >= 1
  }
}

scenario "capacity" {
  target  = target.sim
  dataset = dataset.random
  capacity {
    vary     = "users"
    min      = 1
    max      = 16
    duration = "400ms"
  }
  sla {
    ttft_p99 = "40ms"
  }
}
