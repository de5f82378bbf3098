# A healthy simulator and two that answer as fast with broken text, for
# TestOutputFaults: every latency check passes, the output checks do not.
variable "fault" {
  type    = string
  default = "none"
}

# ignore_eos is off: answers end where the model stops, and a model that
# never stops shows in the finish reasons.
target "sim" {
  base_url = "sim://tiny"
  model    = "tiny"
  sim {
    eos_mean_tokens      = 60
    fault_repeat_token   = var.fault == "repeat_token" ? 1 : 0
    fault_garbage_output = var.fault == "garbage_output" ? 1 : 0
    fault_never_stop     = var.fault == "never_stop" ? 1 : 0
  }
}

dataset "d" {
  random {
    input_len   = 16
    output_len  = 200
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
  assert "stops" {
    condition     = metrics.finish.length <= metrics.completed / 2
    error_message = "Most answers ran to max_tokens: the model stopped emitting its end of sequence."
  }
  assert "valid_text" {
    condition     = metrics.output_defects.bad_text == 0
    error_message = "Answers held invalid UTF-8 or replacement characters."
  }
}

# The same load with no output check written: the default bound on
# defective outputs (over half fails) still catches the answers that say
# nothing.
scenario "defaults" {
  target      = target.sim
  dataset     = dataset.d
  requests    = 12
  min_samples = 10
  closed_loop {
    users    = 2
    duration = "60s"
  }
  sla {
    ttft_p50 = "10s"
    itl_p50  = "10s"
  }
}
