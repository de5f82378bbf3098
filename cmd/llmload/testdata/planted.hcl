# Secrets planted in every place a value can come from, for
# TestPlantedSecretsEveryOutput: the environment (api_key), sensitive
# variables (a header, extra_body, the tokenizer's folder), a sensitive
# header by name, and the passwords of the base URL and the metrics URL
# (the test adds them). None may reach any output.
variable "base_url" {
  type = string
}

# Quotes, HTML and a backslash: their JSON-, URL- and shell-escaped forms
# differ from the value, and must be scrubbed too.
variable "token" {
  type      = string
  default   = "tok-PLANTED-sensitive-var-42\"<&>'\\ x"
  sensitive = true
}

# The scraper's own URL, with a password of its own.
variable "metrics_url" {
  type = string
}

variable "tokenizer_dir" {
  type      = string
  sensitive = true
}

target "t" {
  base_url          = var.base_url
  api               = "openai"
  model             = "m"
  api_key           = env("LLMLOAD_TEST_PLANTED_KEY")
  headers           = { "X-Auth" = var.token, "X-Tenant-Pass" = "tenant-PLANTED-header-7" }
  sensitive_headers = ["x-tenant-pass"]
  extra_body        = { user = var.token }
  metrics_url       = var.metrics_url
  scrape_interval   = "100ms"
  timeout           = "5s"
}

dataset "d" {
  random {
    input_len   = 8
    output_len  = 6
    num_prompts = 20
    seed        = 1
  }
  tokenizer = "${var.tokenizer_dir}/tokenizer.json"
}

scenario "planted" {
  target    = target.t
  dataset   = dataset.d
  requests  = 20
  preflight = false
  open_loop {
    rate = 20
  }
  # Fails (the server answers some requests with a 401 echoing the
  # request's headers), so that every output has a failure to describe.
  sla {
    error_rate = 0
    ttft_p50   = "1ms"
  }
}
