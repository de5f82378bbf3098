# Interleaved A/B: one schedule of requests cut into blocks of 20, each
# block sent to the baseline and then to the candidate (the arm that goes
# first alternates), so that whatever drifts during the run (a busy
# machine, the network, the time of day) falls on both arms alike. Two
# in-process simulators stand in for the servers: the candidate's every
# decode step costs 1 ms more (an engine flag that made decoding slower).
#
#   go run ./cmd/llmload run examples/ab.hcl
#
# Takes about 40 seconds and exits 1: the candidate's median ITL is about
# 10% worse, beyond the 5% tolerance, in every block. With equal arms it
# exits 0:
#
#   go run ./cmd/llmload run -var candidate_step_overhead=500us examples/ab.hcl
#
# Against real servers, the old and the new (the candidate's sim block,
# for the simulator only, is then ignored with a warning):
#
#   go run ./cmd/llmload run examples/ab.hcl -var model=<served name> \
#     -var base_url=http://old:8000 -var candidate_url=http://new:8000
#
# With base_url alone both arms are that server: an A/A run, which shows
# the noise the tolerance must stand above.
#
# docs/scenarios.md (targets, interleave), docs/compare.md (the per-block
# interval), docs/ci.md (when to prefer A/B to a stored baseline).

variable "base_url" {
  description = "The baseline arm's server: http(s)://host:port, or sim://<profile> for the built-in simulator."
  default     = "sim://a100-llama3-8b"
}

variable "candidate_url" {
  description = "The candidate arm's server; empty: base_url's (an A/A run)."
  default     = ""
}

variable "model" {
  description = "The model name sent in every request, to both arms (the simulator serves any name)."
  default     = "meta-llama/Meta-Llama-3-8B-Instruct"
}

variable "candidate_step_overhead" {
  description = "the candidate simulator's fixed cost per decode step (the baseline's is the profile's 500us)"
  default     = "1.5ms"
}

target "baseline" {
  base_url   = var.base_url
  api        = "openai-chat"
  model      = var.model
  ignore_eos = true
}

target "candidate" {
  base_url   = var.candidate_url != "" ? var.candidate_url : var.base_url
  api        = "openai-chat"
  model      = var.model
  ignore_eos = true
  sim {
    step_overhead = var.candidate_step_overhead
  }
}

dataset "random" {
  random {
    input_len   = 256
    output_len  = 64
    num_prompts = 120
    seed        = 0
  }
}

scenario "ab" {
  targets    = { baseline = target.baseline, candidate = target.candidate }
  interleave = 20 # requests per block and arm; or a span of the schedule, "5s"
  dataset    = dataset.random
  requests   = 120

  open_loop {
    rate = 8
  }
  warmup {
    requests = 4
  }

  sla {
    error_rate = 0.01
  }

  # Judged as llmload compare judges, candidate against the baseline arm:
  # a regression only when the whole 95% interval of the delta (from the
  # six per-block differences) lies beyond the tolerance.
  regression {
    itl_p50 = "5%"
  }

  # baseline.* is the baseline arm of this same run.
  assert "end-to-end latency within 10% of the baseline arm" {
    condition = metrics.e2el.p50 <= baseline.e2el.p50 * 1.10
  }
}
