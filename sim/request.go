package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"strings"
)

// apiRequest is what the simulator reads from a request body, whatever
// the API. Every other field is accepted and ignored.
type apiRequest struct {
	Model               string          `json:"model"`
	Prompt              json.RawMessage `json:"prompt"`
	Messages            []chatMessage   `json:"messages"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	Stream              bool            `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	IgnoreEOS bool `json:"ignore_eos"`
	// Temperature 0 is greedy sampling; Seed fixes a sampled answer.
	Temperature *float64 `json:"temperature"`
	Seed        *int64   `json:"seed"`
	// CacheSalt keys the prefix cache, as vLLM's cache_salt does: prompts
	// with different salts share no block.
	CacheSalt string `json:"cache_salt"`
	// Tools offered (chat) and the choice among them.
	Tools      json.RawMessage `json:"tools"`
	ToolChoice json.RawMessage `json:"tool_choice"`
	// imageTokens is what each image part of a message adds to the
	// prompt (Profile.ImageTokens), set before the prompt is counted.
	imageTokens int
	// The Responses and embeddings APIs' fields.
	Input           json.RawMessage `json:"input"`
	MaxOutputTokens *int            `json:"max_output_tokens"`
	// The Messages API's system prompt: a string, or a list of text
	// blocks.
	System json.RawMessage `json:"system"`
}

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	// ToolCalls are an assistant message's calls (their names and
	// arguments count in the prompt).
	ToolCalls []struct {
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// request is a validated completion request.
type request struct {
	promptTokens int
	// blocks are the prompt's prefix-cache block hashes, when the
	// profile caches prefixes.
	blocks       []uint64
	maxTokens    int // effective: as asked, or what max_model_len leaves
	stream       bool
	includeUsage bool
	ignoreEOS    bool
	// answer keys a deterministic answer (greedy sampling, or a request
	// seed): a hash of the prompt's tokens and the seed; 0 when the answer
	// is sampled afresh.
	answer uint64
	// tool is the function the answer calls (chat with tools offered;
	// tools.go), "" for a text answer.
	tool string
}

// apiError is an error answered with an HTTP status and an OpenAI-style body.
type apiError struct {
	status int
	param  string
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func badRequest(param, format string, args ...any) *apiError {
	return &apiError{status: http.StatusBadRequest, param: param, msg: fmt.Sprintf(format, args...)}
}

// parseRequest validates a body of the API kind against profile p.
func parseRequest(body []byte, kind api, p *Profile) (request, *apiError) {
	var a apiRequest
	if err := json.Unmarshal(body, &a); err != nil {
		return request{}, badRequest("", "invalid JSON body: %v", err)
	}
	if err := checkModel(a.Model, p); err != nil {
		return request{}, err
	}
	var r request
	fe := kind.frontend()
	a.imageTokens = p.ImageTokens
	ids, err := fe.prompt(&a)
	if err != nil {
		return request{}, err
	}
	r.promptTokens = len(ids)
	if a.Temperature != nil && *a.Temperature == 0 || a.Seed != nil {
		r.answer = answerKey(ids, a.Seed)
	}
	if p.PrefixCaching {
		r.blocks = blockHashes(a.CacheSalt, ids)
	}
	asked, usage := fe.limits(&a)
	if !kind.row().Streaming {
		// No output (embeddings): the input is all.
		if r.promptTokens > p.MaxModelLen {
			return request{}, badRequest("input", "This model's maximum context length is %d tokens. However, your request has %d input tokens.", p.MaxModelLen, r.promptTokens)
		}
		return r, nil
	}
	if asked != nil && *asked < 1 {
		return request{}, badRequest("max_tokens", "max_tokens must be at least 1, got %d", *asked)
	}
	if r.promptTokens >= p.MaxModelLen {
		return request{}, badRequest("messages", "This model's maximum context length is %d tokens. However, your request has %d input tokens. Please reduce the length of the input.", p.MaxModelLen, r.promptTokens)
	}
	r.maxTokens = p.MaxModelLen - r.promptTokens
	if asked != nil {
		if r.promptTokens+*asked > p.MaxModelLen {
			return request{}, badRequest("max_tokens", "This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.", p.MaxModelLen, r.promptTokens+*asked, r.promptTokens, *asked)
		}
		r.maxTokens = *asked
	}
	r.stream = a.Stream
	r.includeUsage = a.Stream && usage
	r.ignoreEOS = a.IgnoreEOS
	if tc, ok := fe.(toolChooser); ok && len(a.Tools) > 0 {
		tool, err := tc.tool(&a, ids, p)
		if err != nil {
			return request{}, err
		}
		r.tool = tool
	}
	return r, nil
}

func checkModel(model string, p *Profile) *apiError {
	if model != "" && model != p.Model {
		return &apiError{status: http.StatusNotFound, param: "model", msg: fmt.Sprintf("The model `%s` does not exist.", model)}
	}
	return nil
}

// promptIDs tokenizes a completions prompt: a string, a one-element list
// of strings, or a list of token ids.
func promptIDs(raw json.RawMessage) ([]int, *apiError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, badRequest("prompt", "prompt is required")
	}
	var text string
	var texts []string
	if json.Unmarshal(raw, &text) == nil || json.Unmarshal(raw, &texts) == nil && len(texts) == 1 {
		if len(texts) == 1 {
			text = texts[0]
		}
		if ids := tokenIDs(text); len(ids) > 0 {
			return ids, nil
		}
		return nil, badRequest("prompt", "prompt must not be empty")
	}
	var ids []int
	if json.Unmarshal(raw, &ids) == nil && len(ids) > 0 {
		return ids, nil
	}
	return nil, badRequest("prompt", "prompt must be a string, a list of one string, or a non-empty list of token ids")
}

// inputIDs tokenizes the input of the Responses or embeddings API: a
// string (or a completions-style prompt: a list of one string, token ids),
// or, for Responses, a list of messages ({"role", "content"}) counted as a
// chat prompt.
func inputIDs(raw json.RawMessage) ([]int, *apiError) {
	var msgs []chatMessage
	if json.Unmarshal(raw, &msgs) == nil && len(msgs) > 0 && msgs[0].Role != "" {
		return chatIDs(msgs, 0)
	}
	n, err := promptIDs(raw)
	if err != nil {
		err.param = "input"
		err.msg = strings.Replace(err.msg, "prompt", "input", 1)
	}
	return n, err
}

// chatIDs tokenizes a chat prompt as a Llama-3 chat template would: each
// message is a start header, its role, an end header, its text and an end
// of turn (chatMessageOverhead tokens besides the text).
func chatIDs(msgs []chatMessage, imageTokens int) ([]int, *apiError) {
	if len(msgs) == 0 {
		return nil, badRequest("messages", "messages must be a non-empty list")
	}
	ids := []int{}
	for i, m := range msgs {
		text, err := messageText(m.Content)
		if err != nil {
			return nil, badRequest("messages", "messages[%d].content: %v", i, err)
		}
		ids = append(ids, startHeaderID, wordID(m.Role), endHeaderID)
		ids = append(ids, tokenIDs(text)...)
		images, err := messageImages(m.Content)
		if err != nil {
			return nil, badRequest("messages", "messages[%d].content: %v", i, err)
		}
		for _, u := range images {
			ids = append(ids, imageIDs(u, imageTokens)...)
		}
		for _, tc := range m.ToolCalls {
			ids = append(append(ids, tokenIDs(tc.Function.Name)...), tokenIDs(tc.Function.Arguments)...)
		}
		ids = append(ids, eotID)
	}
	return ids, nil
}

// messageText is a message content's text: a string, or the text parts of
// a list of content parts joined by newlines, as vLLM joins them (other
// parts count nothing).
func messageText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", nil
	}
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return text, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("must be a string or a list of content parts")
	}
	var texts []string
	for _, part := range parts {
		if part.Type == "text" || part.Type == "input_text" {
			texts = append(texts, part.Text)
		}
	}
	return strings.Join(texts, "\n"), nil
}

// messageImages are the URLs of a message content's image parts
// ({"type": "image_url", "image_url": {"url": ...}}); a string content has
// none. An image part without a URL is an error, as vLLM's.
func messageImages(raw json.RawMessage) ([]string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return nil, nil
	}
	var parts []struct {
		Type     string `json:"type"`
		ImageURL *struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return nil, fmt.Errorf("must be a string or a list of content parts")
	}
	var urls []string
	for i, p := range parts {
		if p.Type != "image_url" {
			continue
		}
		if p.ImageURL == nil || p.ImageURL.URL == "" {
			return nil, fmt.Errorf("part %d: an image_url part needs image_url.url", i)
		}
		urls = append(urls, p.ImageURL.URL)
	}
	return urls, nil
}

// imageIDs are the n prompt tokens an image becomes (its patches, as a
// vision encoder's), the same for the same image: its URL's hash seeds
// them, so that a history that repeats an image shares its cached blocks.
func imageIDs(url string, n int) []int {
	h := fnv.New64a()
	h.Write([]byte(url))
	w := wordStream{state: h.Sum64()}
	ids := make([]int, n)
	vocab := uint64(promptTokenizer.VocabSize())
	for i := range ids {
		w.state = w.state*6364136223846793005 + 1442695040888963407
		ids[i] = int((w.state >> 33) % vocab)
	}
	return ids
}

// answerKey is the FNV-1a hash of a prompt's token ids and a request's
// seed: what fixes a deterministic answer (never 0).
func answerKey(ids []int, seed *int64) uint64 {
	h := uint64(14695981039346656037)
	mix := func(v uint64) {
		for range 8 {
			h ^= v & 0xff
			h *= 1099511628211
			v >>= 8
		}
	}
	for _, id := range ids {
		mix(uint64(id))
	}
	if seed != nil {
		mix(1)
		mix(uint64(*seed))
	}
	return max(h, 1)
}
