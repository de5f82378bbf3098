# A short users sweep on the simulator's tiny profile with four sequences
# a step: output throughput stops rising past 4 users, and TTFT jumps there
# (a fifth user waits for a whole request to finish).
target "sim" {
  base_url   = "sim://tiny"
  ignore_eos = true # every reply runs to its 64 tokens: the batch fills as planned
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
  # Steps end after a number of requests, not a duration, so that every
  # step holds as many samples however busy the machine: a P90 on at least
  # 5 of them (a P99 would need 1,000).
  sweep {
    users    = [1, 4, 8, 16]
    requests = 16
  }
  min_samples = 5
  sla {
    ttft_p90 = "40ms"
  }
  assert "some capacity" {
    condition = metrics.capacity >= 1
  }
}

scenario "capacity" {
  target  = target.sim
  dataset = dataset.random
  # Each probe ends after 12 requests: its checks rest on as many samples
  # however busy the machine.
  capacity {
    vary     = "users"
    min      = 1
    max      = 16
    requests = 12
  }
  min_samples = 5
  sla {
    ttft_p90 = "40ms"
  }
}

# The capacity search with each probe run twice, pooled and judged, each
# run also judged alone.
scenario "repeats" {
  target   = target.sim
  dataset  = dataset.random
  repeat   = 2
  cooldown = "50ms"
  capacity {
    vary     = "users"
    min      = 2
    max      = 8
    requests = 8
  }
  min_samples = 5
  sla {
    ttft_p90 = "40ms"
  }
}

# A sweep over the open loop's rate, each step 8 requests long: the run
# is an open loop whatever rate each step offers.
scenario "rates" {
  target  = target.sim
  dataset = dataset.random
  sweep {
    rate     = [20, 40]
    requests = 8
  }
}
