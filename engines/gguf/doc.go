// Package gguf writes (and, for tests and checks, reads) GGUF version 3
// files: the single-file model format of ggml, llama.cpp and Ollama.
//
// The layout follows ggml's docs/gguf.md: a little-endian header (magic
// "GGUF", version 3, tensor count, metadata count), the metadata key-value
// pairs, the tensor infos (name, dimensions innermost first, ggml type,
// offset relative to the data section), zero padding to general.alignment
// (32 when the key is absent), then each tensor's data at an offset that is
// a multiple of the alignment.
//
// It owns the byte format only: which keys and tensors make a model of a
// given architecture is the caller's business (see engines/tinymodel).
// Only the plain types F32 and F16 are written; quantized types are out of
// scope. It imports only the standard library; engines/tinymodel imports
// it.
package gguf
