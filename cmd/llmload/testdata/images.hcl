# Images in prompts against the simulator, for TestImagesEndToEnd: every
# other entry of images.jsonl sends red.png with its question (chat's
# image_url parts, or the Messages API's image blocks with -var
# api=anthropic-messages); the simulator charges image_tokens of prefill
# for each.
variable "api" {
  default = "openai-chat"
}

target "sim" {
  base_url = "sim://tiny"
  api      = var.api
  model    = "tiny"
  sim {
    image_tokens = 300
  }
}

dataset "pictures" {
  jsonl {
    path       = "images.jsonl"
    output_len = 4
    shuffle    = false
  }
}

scenario "images" {
  target   = target.sim
  dataset  = dataset.pictures
  requests = 6
  closed_loop {
    users    = 1
    duration = "60s"
  }
}
