# One replica fails the SLA at a load two replicas meet: capacity scales
# with replicas behind a round-robin balancer, as an autoscaler assumes.
# Each replica runs 4 sequences at a time; a reply of 60 tokens at steps of
# 10 ms or more runs 0.6 s or more. 8 users on one replica: 4 run, 4 wait
# about a whole reply for a place, so P99 TTFT is 0.6 s or more, however
# fast the machine. On two replicas each holds 4 and a request's first
# token comes in its first step or two: tens of ms, with room for a busy
# machine's late steps under the 300 ms bound. It is the simulator of
# ops-sweep.hcl, whose sweep measures a capacity of 4 users per replica:
# 8 users are twice that, which an autoscaler meets with a second replica.
variable "replicas" {
  default = 1
}

target "sim" {
  base_url   = "sim://tiny"
  api        = "openai"
  model      = "tiny"
  ignore_eos = true
  timeout    = "60s"
  sim {
    replicas      = var.replicas
    max_num_seqs  = 4
    step_overhead = "10ms"
  }
}

dataset "random" {
  random {
    input_len   = 16
    output_len  = 60
    num_prompts = 48
    seed        = 1
  }
}

scenario "replicas" {
  target  = target.sim
  dataset = dataset.random

  closed_loop {
    users = 8
  }
  requests = 48

  # 48 TTFTs: enough to tell 0.6 s from tens of ms; the P99 is the 48th.
  min_samples = 40
  # The machine is shared with other tests: the exit code is the SLA's.
  validity {
    max_lag_p99    = "1s"
    max_client_cpu = 1
  }

  sla {
    ttft_p99   = "300ms"
    error_rate = 0.0
  }
}
