# Two scenarios: "fast" needs no file, "real" needs the real ShareGPT file,
# which is not here. For TestOnlySelectedScenariosNeedTheirFiles.
variable "sharegpt" {
  default     = "not-downloaded/ShareGPT_V3_unfiltered_cleaned_split.json"
  description = "Download it from the Hugging Face dataset anon8231489123/ShareGPT_Vicuna_unfiltered."
}

target "sim" {
  base_url = "sim://tiny"
  api      = "openai-chat"
  model    = "tiny"
  timeout  = "20s"
}

dataset "random" {
  random {
    input_len   = 16
    output_len  = 8
    num_prompts = 5
  }
}

dataset "real" {
  sharegpt {
    path = var.sharegpt
  }
}

scenario "fast" {
  target   = target.sim
  dataset  = dataset.random
  requests = 5
  open_loop {
    rate = "inf"
  }
}

scenario "real" {
  target  = target.sim
  dataset = dataset.real
  open_loop {
    rate = 1
  }
}
