# The scenario CI runs on every pull request (examples/ci/github-actions.yml,
# examples/ci/gitlab-ci.yml): Poisson load against the server the job
# started, gated by absolute SLAs and against the baseline stored in
# baselines/ (refreshed on main). docs/ci.md walks through it.
variable "base_url" {
  description = "The server under test; CI starts `llmload sim` on this address."
  default     = "http://127.0.0.1:8000"
}

variable "model" {
  description = "The model name sent in every request: the tiny simulator's by default."
  default     = "sim-tiny"
}

target "server" {
  base_url   = var.base_url
  api        = "openai-chat"
  model      = var.model
  ignore_eos = true
  timeout    = "30s"
}

dataset "random" {
  random {
    input_len   = 64
    output_len  = 32
    num_prompts = 1200
    seed        = 1
  }
}

scenario "ci" {
  target   = target.server
  dataset  = dataset.random
  requests = 1200
  open_loop {
    rate = 40
  }
  warmup {
    requests = 10
  }

  # A server that dies mid-run: stop once more than 10% of at least 130
  # finished requests failed, which is more failures than the 1% error
  # budget of 1,200 allows (the run cannot pass any more), rather than send
  # the rest to a closed port. Exit 1; the report says ABORTED and why.
  abort_on {
    error_rate   = 0.1
    min_requests = 130
  }

  # The first run on a branch has no baseline yet: its baseline checks
  # are skipped, not failed.
  baseline          = "baselines/ci.json"
  baseline_optional = true

  sla {
    ttft_p99   = "500ms"
    itl_p99    = "100ms"
    error_rate = 0.01
    # Fast is not right: at most 5% of the answers blank, a loop of a few
    # words, or byte fragments (judged here although ignore_eos is set,
    # where the default bound only reports).
    output_defect_rate = 0.05
  }

  # The first 200 answers' texts, written beside the result. With the
  # requests file they become part of the baseline (the refresh step
  # copies all three), and the next run pairs its answers with it by
  # prompt: the default agreement check fails a server that answers the
  # same greedy prompts otherwise (docs/outputs.md).
  outputs {
    keep = 200
  }

  # At most this much worse than the baseline, beyond noise. Medians:
  # tails move with the machine between runs, which one run's interval
  # cannot see, and an open loop's throughput is the offered rate's, not
  # the server's (docs/ci.md).
  regression {
    ttft_p50 = "10%"
    itl_p50  = "10%"
    e2el_p50 = "10%"
  }

  assert "median TTFT close to the baseline" {
    condition     = metrics.ttft.p50 <= baseline.ttft.p50 * 1.10
    error_message = "Median TTFT grew by more than 10% against the baseline."
  }
}
