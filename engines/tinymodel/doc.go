// Package tinymodel generates a tiny llama-architecture model with random
// weights, as a GGUF file that llama.cpp's llama-server and Ollama load and
// serve: a real engine in the loop without a model hub.
//
// The model is 2 layers of width 64 with 4 heads, a 4096-token context and
// an FFN of 128 by default, with a real tokenizer's vocabulary and merges
// (the Qwen3 tokenizer, read from a folder holding its tokenizer.json and
// tokenizer_config.json) and a ChatML chat template. Its weights come from a
// seed alone: the same seed and tokenizer give the same bytes.
//
// Its output head is shaped so that what it says can be measured: every
// row of output.weight is zero except those of "word" tokens, a space
// followed by ASCII letters only (Ġhello) that byte-pair encoding turns
// back into that one token, and those rows are scaled up. The model then
// emits plain words that re-tokenize exactly, never a byte fragment (which
// broke llama.cpp's output parser on 20-37% of streams with plain random
// rows) and never the end-of-sequence token, so every request runs to its
// max_tokens.
//
// Config.Stop makes a variant that does stop, for engines' handling of
// EOS (ignore_eos): after every word it reads, the end-of-sequence token
// outscores every word by a wide margin, so a chat answer is one word and
// then EOS. The default model's bytes do not change with it.
//
// It owns the model's shape and weights; the byte format is engines/gguf's,
// which it imports. tools/tinymodel imports it; nothing in llmload's load
// path does.
package tinymodel
