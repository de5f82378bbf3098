# vLLM's knobs on the simulator's tiny profile, for the command's tests.
target "sim" {
  base_url   = "sim://tiny"
  api        = "openai"
  model      = "tiny"
  api_key    = "sk-test-SECRET-do-not-leak"
  headers    = { "X-Api-Token" = "SECRET-token", "X-Team" = "serving" }
  ignore_eos = true
  extra_body = { top_p = 0.9, logprobs = null }
}

dataset "random" {
  random {
    input_len   = 16
    output_len  = 8
    num_prompts = 20
  }
}

scenario "knobs" {
  target  = target.sim
  dataset = dataset.random
  seed    = 11

  percentiles        = [50, 75, 99.9]
  percentile_metrics = ["ttft", "e2el"]
  result_filename    = "tiny-10qps.json"
  save_detailed      = true

  open_loop {
    rate = 400
  }

  requests = 20
  warmup {
    requests = 2
  }
}
