# Outputs kept for the first requests, for TestOutputs.
variable "base_url" {
  type    = string
  default = "sim://tiny"
}

variable "api_key" {
  type      = string
  default   = ""
  sensitive = true
}

target "t" {
  base_url = var.base_url
  model    = "tiny"
  api_key  = var.api_key
  api      = "openai"
}

dataset "d" {
  random {
    input_len   = 16
    output_len  = 8
    num_prompts = 12
    seed        = 3
  }
}

scenario "kept" {
  target   = target.t
  dataset  = dataset.d
  requests = 12
  closed_loop {
    users    = 2
    duration = "60s"
  }
  outputs {
    keep = 5
  }
  assert "finish" {
    condition     = metrics.finish.stop + metrics.finish.length + metrics.finish.other == metrics.completed
    error_message = "Every completed request has one finish reason."
  }
}
