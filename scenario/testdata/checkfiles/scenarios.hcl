# Fixture for TestCheckFilesSelected: "fast" uses only present or generated
# data; "real" needs a file that is not there, named by a variable.

variable "sharegpt" {
  default     = "absent_sharegpt.json"
  description = "The real ShareGPT file: download ShareGPT_V3_unfiltered_cleaned_split.json from anon8231489123/ShareGPT_Vicuna_unfiltered."
}

target "sim" {
  base_url = "sim://a100-llama3-8b"
}

dataset "present" {
  sharegpt {
    path = "present.json"
  }
}

dataset "random" {
  random {
    num_prompts = 10
  }
}

dataset "real" {
  sharegpt {
    path = var.sharegpt
  }
}

scenario "fast" {
  target  = target.sim
  dataset = dataset.random
  open_loop {
    rate = 1
  }
}

scenario "here" {
  target  = target.sim
  dataset = dataset.present
  open_loop {
    rate = 1
  }
}

scenario "real" {
  target  = target.sim
  dataset = dataset.real
  open_loop {
    rate = 1
  }
}
