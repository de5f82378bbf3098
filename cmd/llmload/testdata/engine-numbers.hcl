# The simulator reporting vLLM's per-request metrics
# (--enable-per-request-metrics), with speculative decoding of one draft
# token per step (--per-request-spec-decode-metrics), for
# TestEngineNumbers.
target "sim" {
  base_url = "sim://tiny"
  model    = "tiny"
  sim {
    per_request_metrics = true
    tokens_per_event    = 2
  }
}

dataset "d" {
  random {
    input_len   = 16
    output_len  = 8
    num_prompts = 20
    seed        = 3
  }
}

scenario "engine" {
  target   = target.sim
  dataset  = dataset.d
  requests = 20
  closed_loop {
    users    = 4
    duration = "60s"
  }
}

# The same run, where any time outside the engine is too much: the run is
# invalid, and says the path to the engine was slow.
scenario "slow_path" {
  target   = target.sim
  dataset  = dataset.d
  requests = 20
  closed_loop {
    users    = 4
    duration = "60s"
  }
  validity {
    max_client_overhead = "1us"
  }
}

# A candidate engine whose draft model agrees less: three drafts a step,
# half of them accepted. A gate on the acceptance rate fails the run.
target "sim_drafts_rejected" {
  base_url   = "sim://tiny"
  model      = "tiny"
  ignore_eos = true
  sim {
    per_request_metrics = true
    tokens_per_event    = 4
    spec_acceptance     = 0.5
  }
}

scenario "spec_gate" {
  target   = target.sim_drafts_rejected
  dataset  = dataset.d
  requests = 8
  closed_loop {
    users    = 2
    duration = "60s"
  }
  assert "drafts_accepted" {
    condition     = metrics.spec_acceptance >= 0.7
    error_message = "The draft model's tokens were accepted less often than 70% of the time."
  }
}
