package tokenizer

// Tokenizer turns text into token ids and back.
type Tokenizer interface {
	// Encode returns the ids for text. With addSpecial, the special tokens
	// the model's post-processor adds (BOS for Llama-2/Mistral, and what
	// tokenizer_config.json asks for) are included, as Hugging Face's
	// tokenizer(text).input_ids counts them.
	Encode(text string, addSpecial bool) []int
	// Decode turns ids back into text (special tokens skipped).
	Decode(ids []int) string
	// VocabSize is the number of ids in the model's vocabulary, added tokens included.
	VocabSize() int
	// Name says what this tokenizer is, e.g. the path it was loaded from,
	// "approximate" or "server".
	Name() string
	// Exact reports whether counts are the model's own (false for the
	// approximation, which must be labelled approximate wherever it is used).
	Exact() bool
}
