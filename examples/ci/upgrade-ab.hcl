# Gate an engine upgrade in one job, within a budget: the old and the new
# server side by side, blocks of one schedule sent to each in turn, the
# regression block re-judged after every block, and the run stopped as soon
# as it is decided (docs/ci.md, docs/compare.md). From a clone, both arms
# are simulators of an A100 and the candidate's every decode step costs
# 2.5 ms instead of 0.5 ms:
#
#   go run ./cmd/llmload run examples/ci/upgrade-ab.hcl
#
# exits 1 after a few of its 30 blocks (P50 ITL well beyond its 5%
# tolerance; 4 blocks and 21 s on this project's 2-core machine, where the
# whole schedule would have taken 2m38s), saying how long the whole
# schedule would have taken (cmd/llmload/stopearly_test.go runs it). In CI,
# point the two URLs at the two servers the job started:
#
#   llmload run examples/ci/upgrade-ab.hcl -var model=<served name> \
#     -var base_url=http://127.0.0.1:8000 -var candidate_url=http://127.0.0.1:8001

variable "base_url" {
  description = "The server as it is today: http(s)://host:port, or sim://<profile> for the built-in simulator."
  default     = "sim://a100-llama3-8b"
}

variable "candidate_url" {
  description = "The server with the upgrade; empty: base_url's (an A/A run)."
  default     = ""
}

variable "model" {
  description = "The model both servers serve (the simulator serves any name)."
  default     = "meta-llama/Meta-Llama-3-8B-Instruct"
}

variable "candidate_step_overhead" {
  description = "On the simulator only: the candidate's fixed cost per decode step (the profile's is 500us)."
  default     = "2.5ms"
}

target "old" {
  base_url   = var.base_url
  api        = "openai-chat"
  model      = var.model
  ignore_eos = true
  timeout    = "60s"
}

target "new" {
  base_url   = var.candidate_url != "" ? var.candidate_url : var.base_url
  api        = "openai-chat"
  model      = var.model
  ignore_eos = true
  timeout    = "60s"
  sim {
    step_overhead = var.candidate_step_overhead
  }
}

dataset "random" {
  random {
    input_len   = 256
    output_len  = 64
    num_prompts = 1000
    seed        = 1
  }
}

scenario "upgrade" {
  targets    = { baseline = target.old, candidate = target.new }
  interleave = 20
  dataset    = dataset.random
  requests   = 600
  open_loop {
    rate = 10
  }

  # At most 15 minutes of load (both servers held), and no longer than it
  # takes to decide: 30 blocks at most, stopped once the regression block
  # is decided. On GPUs priced by the minute: budget = "60 gpu-minutes"
  # with gpus = 4 (both arms' GPUs).
  budget     = "15m"
  stop_early = true

  regression {
    ttft_p50 = "10%"
    itl_p50  = "5%"
  }
}
