// Package dataset turns prompt sources (ShareGPT JSON, random prompts, JSONL)
// into plain requests for the executor. It knows no HCL and no HTTP.
package dataset

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is one sampled prompt, ready to be sent.
type Request struct {
	// Index is the entry's position in the source: array index for JSON
	// files, line number from 0 for JSONL, sequence number for random.
	Index int `json:"index"`
	// Prompt is the prompt text (for completion APIs, and the single user
	// message for chat APIs when Messages is empty).
	Prompt string `json:"prompt"`
	// Messages, when set, is sent as-is to chat APIs.
	Messages []Message `json:"messages,omitempty"`
	// PromptLen is the prompt's token count (special tokens included).
	PromptLen int `json:"prompt_len"`
	// OutputLen is the number of tokens to ask for (max_tokens).
	OutputLen int `json:"output_len"`
	// IgnoreEOS asks the server to generate exactly OutputLen tokens
	// (the random dataset sets it, as vLLM does).
	IgnoreEOS bool `json:"ignore_eos,omitempty"`
}
