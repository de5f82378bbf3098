# A stored healthy baseline and a candidate as fast whose answers never
# stop, for TestOutputShift. ShareGPT asks for each recorded reply's length
# as max_tokens: the healthy simulator (answers of 16 tokens on average)
# stops well short of it, the candidate runs every answer to it. No check
# reads the outputs, so both runs pass; the console names the change.
variable "fault" {
  type    = string
  default = "none"
}

variable "baseline" {
  type    = string
  default = ""
}

target "sim" {
  base_url = "sim://tiny"
  model    = "tiny"
  sim {
    fault_never_stop = var.fault == "never_stop" ? 1 : 0
  }
}

# Replies of at most about 150 tokens keep a never-ending answer short.
dataset "chats" {
  sharegpt {
    path             = "../../../examples/data/sharegpt_synthetic.json"
    num_prompts      = 24
    max_total_tokens = 200
  }
}

scenario "record" {
  target   = target.sim
  dataset  = dataset.chats
  requests = 24
  closed_loop {
    users    = 4
    duration = "60s"
  }
}

scenario "gate" {
  target   = target.sim
  dataset  = dataset.chats
  requests = 24
  baseline = var.baseline
  closed_loop {
    users    = 4
    duration = "60s"
  }
  sla {
    ttft_p50 = "10s"
  }
}
