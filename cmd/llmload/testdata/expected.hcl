# Expected answers against the simulator, for TestExpectedAnswers: two
# prompts expect any text (met), two an answer no simulator gives (not
# met), two expect nothing (not judged).
target "sim" {
  base_url = "sim://tiny"
  model    = "tiny"
}

dataset "questions" {
  jsonl {
    path       = "expected.jsonl"
    output_len = 8
  }
}

scenario "expected" {
  target   = target.sim
  dataset  = dataset.questions
  requests = 6
  closed_loop {
    users    = 1
    duration = "60s"
  }
  sla {
    min_pass_rate = 0.75
  }
}
