// Package serverinfo reads what an inference server says of its own
// configuration, before a run's load: SGLang's GET /get_server_info (every
// server argument), TGI's GET /info, llama.cpp's GET /props, Ollama's GET
// /api/version and POST /api/show, vLLM's GET /version and the labels of
// its *_config_info gauges on GET /metrics (vllm:cache_config_info), and
// GET /v1/models on any OpenAI-compatible server (max_model_len, root).
// Each endpoint is optional: its outcome is recorded (results.ServerRead),
// and a failed read is never fatal. What a server says is hostile input:
// bodies are bounded, values are flattened to bounded scalars, escaped
// (secret.Printable) and scrubbed of the target's secrets, and settings
// whose names say they hold a credential are left out.
//
// It imports results (whose ServerConfig it fills) and internal/secret.
// runner imports it; it never imports executor: the caller hands it the
// target's own HTTP client (its TLS settings and credentials, no redirect
// followed).
package serverinfo
