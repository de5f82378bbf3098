# A healthy simulator and two that answer as fast with broken text, for
# TestOutputFaults: every latency check passes, the output checks do not.
variable "fault" {
  type    = string
  default = "none"
}

target "sim" {
  base_url   = "sim://tiny"
  model      = "tiny"
  ignore_eos = true
  sim {
    fault_repeat_token   = var.fault == "repeat_token" ? 1 : 0
    fault_garbage_output = var.fault == "garbage_output" ? 1 : 0
  }
}

dataset "d" {
  random {
    input_len   = 16
    output_len  = 24
    num_prompts = 12
    seed        = 3
  }
}

scenario "answers" {
  target      = target.sim
  dataset     = dataset.d
  requests    = 12
  min_samples = 10
  closed_loop {
    users    = 2
    duration = "60s"
  }
  sla {
    ttft_p50   = "10s"
    itl_p50    = "10s"
    error_rate = 0
  }
  assert "no_loops" {
    condition     = metrics.output_defects.degenerate == 0
    error_message = "Answers repeated a few words over and over."
  }
  assert "valid_text" {
    condition     = metrics.output_defects.bad_text == 0
    error_message = "Answers held invalid UTF-8 or replacement characters."
  }
}
