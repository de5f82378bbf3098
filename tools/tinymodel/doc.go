// Command tinymodel writes engines/tinymodel's random-weight model as a GGUF
// file, for llama.cpp's llama-server and Ollama to serve in tests:
//
//	go run ./tools/tinymodel -tokenizer ../shared/data/tokenizers/qwen3 -seed 1 -o tiny.gguf
//
// -stop writes the stop model instead (engines/tinymodel's Config.Stop):
// after every word it reads, EOS is its next token, so a chat answer is one
// word and then EOS, where the default model never emits EOS.
//
// The same seed and tokenizer folder give the same bytes. It prints the
// file's size, SHA-256, the number of word tokens the model may emit, and
// how long it took. It imports engines/tinymodel; nothing imports it.
package main
