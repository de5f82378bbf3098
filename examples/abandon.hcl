# Users who leave: a quarter of the readers close the tab part-way through
# the answer, and the server must let go of what they asked for. The
# simulator (the tiny engine, in-process) serves the load; its /metrics is
# scraped every 250 ms, and 1 s after the last request ended one last
# scrape says how many requests it still runs: on a server of its own, none.
#
#   go run ./cmd/llmload run examples/abandon.hcl
#   go run ./cmd/llmload run -var leak=true examples/abandon.hcl
#   go run ./cmd/llmload run -var base_url=http://127.0.0.1:8000 -var model=<served name> examples/abandon.hcl
#
# Takes about 10 seconds. The first run passes; the second turns on the
# simulator's leak_on_disconnect fault (a request whose client left stays
# in the engine for good, holding its KV cache, as in an engine that misses
# aborts) and the cleanup check fails (exit 1).
variable "base_url" {
  description = "Where the server listens: http(s)://host:port, or sim://<profile> for the built-in simulator."
  default     = "sim://tiny"
}

variable "model" {
  description = "The model name sent in every request (the simulator serves any name)."
  default     = "sim-tiny"
}

variable "leak" {
  type    = bool
  default = false
}

variable "requests" {
  default = 60
}

target "server" {
  base_url   = var.base_url
  api        = "openai-chat"
  model      = var.model
  ignore_eos = true

  scrape_interval = "250ms"
  # Keep watching the server for 1 s after the load: the last scrape,
  # server.<figure>.last, is the server a second after the last request.
  scrape_cooldown = "1s"

  sim {
    leak_on_disconnect = var.leak
    # Room for leaked requests, so that a leak shows in the figures rather
    # than as a stalled run.
    max_num_seqs    = 64
    kv_cache_tokens = 65536
  }
}

dataset "random" {
  random {
    input_len   = 64
    output_len  = 400
    num_prompts = 60
    seed        = 0
  }
}

scenario "abandon" {
  target   = target.server
  dataset  = dataset.random
  requests = var.requests

  open_loop {
    rate = 10
  }

  # A quarter of the readers leave after 10 to 50 tokens of the answer.
  abandon {
    share        = 0.25
    after_tokens = [10, 50]
  }

  assert "readers left" {
    condition     = metrics.abandoned > 0
    error_message = "No request was abandoned: the check below proves nothing."
  }

  # The cleanup check. Every request has ended when the run does, so a
  # server of its own runs nothing a cooldown later: a request still
  # running is one the server did not let go of when its client left.
  assert "the server let go of the readers who left" {
    condition     = server.requests_running.last <= 0
    error_message = "The server still runs requests after the load ended: it did not abort those whose clients left."
  }

  assert "and freed their KV cache" {
    condition = server.kv_cache_usage.last <= 0
  }

  # Abandoned requests are neither failures nor good requests.
  sla {
    error_rate = 0
  }
}
