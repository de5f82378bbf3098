# How many users does one instance hold while P90 TTFT < 500 ms and P99
# ITL < 50 ms? A sweep runs the scenario once per user count and reports
# each step on its own: output throughput, throughput per user, TTFT and
# ITL, the SLA verdict, the knee (where an added user adds under 10% of
# what the first one did) and the capacity (the most users meeting every
# SLA, with the step that shows it).
#
#   llmload run examples/sweep.hcl -html sweep.html
#   llmload run examples/sweep.hcl -var base_url=http://127.0.0.1:8000 -var model=<served name>
#
# Takes about 95 s on the simulated A100 (measured 2026-12-01 on a shared
# 2-core machine: 6 steps of 12 s, capacity 25 users, knee 50 users).

variable "base_url" {
  description = "Where the server listens: http(s)://host:port, or sim://<profile> for the built-in simulator."
  default     = "sim://a100-llama3-8b"
}

variable "model" {
  description = "The model name sent in every request (the simulator serves any name)."
  default     = "meta-llama/Meta-Llama-3-8B-Instruct"
}

target "server" {
  base_url   = var.base_url
  api        = "openai"
  model      = var.model
  ignore_eos = true
}

dataset "chat" {
  random {
    input_len   = 256
    output_len  = 200
    range_ratio = 0.5
    num_prompts = 500
  }
}

scenario "sweep" {
  target  = target.server
  dataset = dataset.chat

  sweep {
    users    = [1, 10, 25, 50, 100, 150]
    duration = "12s" # each step; or requests = N
    cooldown = "1s"  # idle between steps, so one step's tail does not spill into the next
  }

  # Short steps: a low load's step holds a few dozen requests, too few for
  # a TTFT P99 (1,000 samples). Gate the P90 and accept 20 samples per
  # percentile here; ITL has thousands of gaps per step either way.
  min_samples = 20
  sla {
    ttft_p90 = "500ms"
    itl_p99  = "50ms"
  }

  assert "holds at least 10 users" {
    condition     = metrics.capacity >= 10
    error_message = "Fewer than 10 users meet the SLAs."
  }
}
