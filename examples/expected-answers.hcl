# Expected answers: each prompt of examples/data/expected-answers.jsonl
# carries the answer a working model gives ("expected": text the answer
# contains, or { equals | contains | regex }), and the run fails when
# fewer than 10 of 12 answers meet theirs, however fast they came. The
# questions are written for a real instruction-tuned model: point base_url
# and model at one (-var base_url=http://127.0.0.1:8000 -var model=...).
# The built-in simulator answers random words, so against it the check
# fails, as it should (docs/outputs.md).
variable "base_url" {
  default = "sim://tiny"
}

variable "model" {
  default = "tiny"
}

target "server" {
  base_url = var.base_url
  model    = var.model
  api      = "openai-chat"
}

dataset "questions" {
  jsonl {
    path       = "data/expected-answers.jsonl"
    output_len = 32
  }
}

scenario "expected_answers" {
  target   = target.server
  dataset  = dataset.questions
  requests = 12
  closed_loop {
    users    = 2
    duration = "120s"
  }
  sla {
    min_pass_rate = 0.8
  }
}
