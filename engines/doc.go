// Package engines is the root of what llmload needs to test itself against
// real inference engines (llama.cpp's llama-server and Ollama) rather than
// its own simulator: a GGUF writer (engines/gguf) and a deterministic tiny
// model generator (engines/tinymodel) whose output both engines load.
//
// The engines themselves are built outside the repository by .ci/engines.sh;
// engines/testdata/NOTES.md records what they returned when served the
// generated model by hand.
//
// Nothing in llmload's load path imports this tree, and it imports nothing
// of the rest of the project but internal/testshared in tests.
package engines
