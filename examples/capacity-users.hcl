# The most concurrent users one instance serves within its SLAs, searched
# with every probe run twice: the capacity is the highest load at which
# the pooled runs met the SLAs, and the highest at which every run did is
# the lower bound that `llmload ops` turns into alert thresholds and an
# autoscaler's target per replica (docs/operations.md).
#
#   llmload run examples/capacity-users.hcl -out capacity-users
#   llmload ops capacity-users/capacity-users.json -dir ops
#   llmload run examples/capacity-users.hcl -var base_url=http://127.0.0.1:8000 -var model=<served name>
#
# Takes about 3 minutes on the simulated A100.

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
    output_len  = 128
    range_ratio = 0.5
    num_prompts = 1000
  }
}

scenario "capacity-users" {
  target  = target.server
  dataset = dataset.chat

  closed_loop {
    think_time = "0s" # the users are the capacity block's to vary
  }

  capacity {
    vary         = "users"
    min          = 4
    max          = 256
    precision    = "10%"
    duration     = "8s"
    min_requests = 30
  }
  repeat   = 2
  cooldown = "1s"

  min_samples = 20
  sla {
    ttft_p99 = "500ms"
    itl_p99  = "50ms"
  }
}
