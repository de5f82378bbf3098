# Calibration of the simulator's a100-llama3-8b profile against the public
# reference (Llama-3-8B on one A100 80GB, ShareGPT-like prompts, closed-loop
# users without think time): about 115 output tok/s at 1 user, 3,100 at 100,
# 3,150 at 200 with P99 TTFT around 3.4 s. `make calibrate` runs the three
# scenarios and prints the table next to those figures.
#
# Takes about 4 minutes.

variable "base_url" {
  description = "Where the server listens: http(s)://host:port, or sim://<profile> for the built-in simulator."
  default     = "sim://a100-llama3-8b"
}

variable "model" {
  description = "The model name sent in every request (the simulator serves any name)."
  default     = "meta-llama/Meta-Llama-3-8B-Instruct"
}

target "a100" {
  base_url   = var.base_url
  api        = "openai"
  model      = var.model
  ignore_eos = true # replies are as long as the dataset's, as in the reference
}

# The synthetic ShareGPT-format sample shipped in examples/data (lengths
# drawn to match ShareGPT-like prompts and replies; see its README), counted
# by the server's own /tokenize, which the simulator serves.
dataset "sharegpt_like" {
  sharegpt {
    path        = "data/sharegpt_synthetic.json"
    num_prompts = 500
  }
  tokenizer = "server"
}

scenario "users_1" {
  target  = target.a100
  dataset = dataset.sharegpt_like
  closed_loop {
    users    = 1
    duration = "40s"
  }
}

scenario "users_100" {
  target  = target.a100
  dataset = dataset.sharegpt_like
  closed_loop {
    users    = 100
    duration = "75s"
  }
}

scenario "users_200" {
  target  = target.a100
  dataset = dataset.sharegpt_like
  closed_loop {
    users    = 200
    duration = "90s"
  }
}
