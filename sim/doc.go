// Package sim is a simulated LLM inference server: a continuous-batching
// engine (vLLM-style iteration-level scheduling with chunked prefill, a
// KV-cache bound and a max_num_seqs bound) behind an OpenAI-compatible HTTP
// front with vLLM's Prometheus metrics and seeded fault injection. It lets
// scenarios, examples and tests run without a GPU, and SimulateClosedLoop runs
// the same engine in virtual time for calibration. ListenDeployment serves
// several replicas, each a whole simulator on a listener of its own, behind
// a round-robin balancer whose /metrics merges theirs with a replica label.
//
// Each API of the table in internal/apis is served by one front end,
// api_<name>.go (how its body reads, how its answer is written), over the
// one engine; the completions and chat APIs share the choices format
// (choices.go).
//
// It imports metrics, tokenizer, internal/apis, internal/openaiwire,
// internal/anthropicwire and internal/secret.
// runner (for sim:// targets) and tests import it; it
// never imports the executor.
package sim
