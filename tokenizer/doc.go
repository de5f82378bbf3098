// Package tokenizer counts and produces token ids the way a model's
// Hugging Face tokenizer does, offline, from tokenizer.json.
//
// It imports nothing else of llmload.
//
// It imports only internal/secret. dataset, sim, runner and
// examples/data/gen import it.
package tokenizer
