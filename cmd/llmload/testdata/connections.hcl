# End-to-end test of the connection phases and policy (connections_test.go):
# a TLS server slow to accept, and a new connection per request.
variable "base_url" {}

variable "new_conn" {
  type    = bool
  default = true
}

variable "prewarm" {
  type    = number
  default = 0
}

target "slow_accept" {
  base_url                   = var.base_url
  api                        = "openai"
  model                      = "fake"
  insecure_skip_verify       = true
  new_connection_per_request = var.new_conn
  prewarm_connections        = var.prewarm
  metrics_url                = ""
}

dataset "tiny" {
  random {
    input_len   = 4
    output_len  = 3
    num_prompts = 4
  }
}

scenario "conns" {
  target  = target.slow_accept
  dataset = dataset.tiny
  closed_loop {
    users = 2
  }
  requests  = 6
  preflight = false
  validity {
    max_lag_p99    = "10s"
    max_client_cpu = 1
  }
}
