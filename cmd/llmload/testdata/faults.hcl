# Scenarios for the fault tests: a target the test points at a fault
# server, with planted secrets (a key, a sensitive token sent in X-Auth, a
# custom sensitive header) that must never be printed or saved.
variable "base_url" {
  type = string
}

variable "key" {
  type      = string
  default   = "sk-PLANTED-api-key-0123456789"
  sensitive = true
}

variable "token" {
  type      = string
  default   = "tok-PLANTED-sensitive-var-42"
  sensitive = true
  validation {
    condition     = strlen(var.token) > 12
    error_message = "The token is too short."
  }
}

variable "follow_redirects" {
  type    = string
  default = "never"
}

variable "preflight" {
  type    = bool
  default = false
}

target "t" {
  base_url          = var.base_url
  api               = "openai"
  model             = "m"
  api_key           = var.key
  headers           = { "X-Auth" = var.token, "X-Tenant-Pass" = "tenant-PLANTED-header-7" }
  sensitive_headers = ["x-tenant-pass"]
  timeout           = "5s"
  stall_timeout     = "2s"
  follow_redirects  = var.follow_redirects
  # A sensitive value in the body, too: results record extra_body (config
  # and workload), redacted.
  extra_body = { user = var.token }
}

dataset "d" {
  random {
    input_len   = 8
    output_len  = 6
    num_prompts = 20
    seed        = 1
  }
}

# Longer answers, for the streams' timing.
dataset "long" {
  random {
    input_len   = 8
    output_len  = 16
    num_prompts = 20
    seed        = 1
  }
}

# The same prompts counted by the target's /tokenize.
dataset "server" {
  random {
    input_len   = 8
    output_len  = 6
    num_prompts = 4
    seed        = 1
  }
  tokenizer = "server"
}

scenario "tokenize" {
  target   = target.t
  dataset  = dataset.server
  requests = 4
  open_loop {
    rate = 100
  }
}

scenario "open" {
  target    = target.t
  dataset   = dataset.d
  preflight = var.preflight
  requests  = 20
  open_loop {
    rate = 500
  }
  sla {
    error_rate = 0
  }
}

scenario "closed" {
  target    = target.t
  dataset   = dataset.d
  preflight = var.preflight
  closed_loop {
    users    = 4
    duration = "1s"
  }
}

scenario "abort" {
  target    = target.t
  dataset   = dataset.d
  preflight = var.preflight
  requests  = 400
  abort_on {
    error_rate   = 0.5
    min_requests = 10
  }
  open_loop {
    rate = 200
  }
}

# An ITL gate over long enough streams to see how their events came.
scenario "itl" {
  target   = target.t
  dataset  = dataset.long
  requests = 20
  open_loop {
    rate = 500
  }
  sla {
    itl_p50 = "50ms"
  }
}

# Many streams at once, for the client's own limits.
scenario "many" {
  target   = target.t
  dataset  = dataset.d
  requests = 200
  open_loop {
    rate = "inf"
  }
}
