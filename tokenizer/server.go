package tokenizer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/llmload/llmload/internal/secret"
)

// Request and response shapes of the servers' tokenizer endpoints.
const (
	shapeUnknown = iota
	shapeVLLM    // vLLM and SGLang: {"model","prompt","add_special_tokens"} -> {"tokens","count"}
	shapeLlama   // llama.cpp: {"content","add_special"} -> {"tokens"}
)

// Server is a Tokenizer that asks the inference server: POST
// {baseURL}/tokenize and /detokenize, in vLLM's and SGLang's shape or
// llama.cpp's, whichever the server answers (found on the first call).
// Results of Encode are cached. It is safe for concurrent use.
//
// Encode and Decode cannot return errors: on failure they return nil or ""
// and Err reports the first error. Callers must check Err after using it.
type Server struct {
	baseURL string
	shown   string // baseURL with any password hidden, for messages
	model   string
	client  *http.Client
	ctx     context.Context
	scrub   *secret.Scrubber

	mu    sync.Mutex
	shape int
	cache map[serverKey][]int
	err   error
}

type serverKey struct {
	text       string
	addSpecial bool
}

// NewServer returns a tokenizer that asks the server at baseURL (e.g.
// "http://127.0.0.1:8000") for model's tokens; model may be empty. A nil
// client means one with a 30 s timeout.
func NewServer(baseURL, model string, client *http.Client) *Server {
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	return &Server{
		baseURL: strings.TrimRight(baseURL, "/"),
		shown:   redactURL(strings.TrimRight(baseURL, "/")),
		model:   model,
		client:  client,
		ctx:     context.Background(),
		cache:   map[serverKey][]int{},
	}
}

// WithContext makes every call of s stop when ctx ends (an interruption):
// the call in flight is canceled and later ones fail at once.
func (s *Server) WithContext(ctx context.Context) *Server {
	s.ctx = ctx
	return s
}

// WithSecrets scrubs sc's secrets (the API key the client sends, say) from
// every error message, since a server may echo the request.
func (s *Server) WithSecrets(sc *secret.Scrubber) *Server {
	s.scrub = sc
	return s
}

// Encode returns the server's ids for text (nil on error: see Err).
func (s *Server) Encode(text string, addSpecial bool) []int {
	key := serverKey{text, addSpecial}
	s.mu.Lock()
	ids, ok := s.cache[key]
	shape := s.shape
	s.mu.Unlock()
	if ok {
		return append([]int(nil), ids...)
	}
	body := map[string]any{}
	if shape != shapeLlama {
		body["prompt"], body["add_special_tokens"] = text, addSpecial
		if s.model != "" {
			body["model"] = s.model
		}
	}
	if shape != shapeVLLM {
		// Before the shape is known, both shapes' fields go in one request:
		// llama.cpp answers {"tokens": []} to a request without "content".
		body["content"], body["add_special"] = text, addSpecial
	}
	var resp struct {
		Tokens *[]int `json:"tokens"`
		Count  *int   `json:"count"`
	}
	if err := s.post("/tokenize", body, &resp); err != nil {
		s.fail(err)
		return nil
	}
	if resp.Tokens == nil {
		s.fail(fmt.Errorf("%s/tokenize: response has no \"tokens\"", s.shown))
		return nil
	}
	ids = *resp.Tokens
	s.mu.Lock()
	if s.shape == shapeUnknown {
		s.shape = shapeLlama
		if resp.Count != nil {
			s.shape = shapeVLLM
		}
	}
	s.cache[key] = append([]int(nil), ids...)
	s.mu.Unlock()
	return ids
}

// Decode returns the server's text for ids ("" on error: see Err).
func (s *Server) Decode(ids []int) string {
	if ids == nil {
		ids = []int{}
	}
	body := map[string]any{"tokens": ids}
	if s.model != "" {
		body["model"] = s.model
	}
	var resp struct {
		Prompt  *string `json:"prompt"`  // vLLM
		Text    *string `json:"text"`    // SGLang
		Content *string `json:"content"` // llama.cpp
	}
	if err := s.post("/detokenize", body, &resp); err != nil {
		s.fail(err)
		return ""
	}
	for _, t := range []*string{resp.Prompt, resp.Text, resp.Content} {
		if t != nil {
			return *t
		}
	}
	s.fail(fmt.Errorf("%s/detokenize: response has no \"prompt\", \"text\" or \"content\"", s.shown))
	return ""
}

// post sends body as JSON to path and decodes the JSON answer into out.
func (s *Server) post(path string, body any, out any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("%s%s: %v", s.shown, path, err)
	}
	if err := s.ctx.Err(); err != nil {
		return fmt.Errorf("%s%s: %w", s.shown, path, err)
	}
	req, err := http.NewRequestWithContext(s.ctx, http.MethodPost, s.baseURL+path, bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("%s%s: %v", s.shown, path, s.scrub.Scrub(err.Error()))
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		if cerr := s.ctx.Err(); cerr != nil {
			return fmt.Errorf("%s%s: %w", s.shown, path, cerr)
		}
		return fmt.Errorf("tokenizer server: %s", s.scrub.Scrub(err.Error()))
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("%s%s: reading the answer: %v", s.shown, path, err)
	}
	if resp.StatusCode >= 300 && resp.StatusCode <= 399 {
		loc := secret.Printable(s.scrub.ScrubClip(resp.Header.Get("Location"), 256))
		return fmt.Errorf("%s%s: HTTP %d redirect to %q, not followed (the target's follow_redirects; never to another host)", s.shown, path, resp.StatusCode, loc)
	}
	if resp.StatusCode != http.StatusOK {
		// Scrubbed before it is cut: a server may echo the request's
		// credentials, and a cut first could leave part of one.
		snippet := secret.Printable(s.scrub.ScrubClip(strings.TrimSpace(string(answer)), 1024))
		return fmt.Errorf("%s%s: %s: %s", s.shown, path, secret.Printable(resp.Status), snippet)
	}
	if err := json.Unmarshal(answer, out); err != nil {
		return fmt.Errorf("%s%s: malformed answer: %v", s.shown, path, err)
	}
	return nil
}

func (s *Server) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
}

// Err returns the first error any call met, or nil.
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// VocabSize is 0: the tokenize endpoints do not say.
func (s *Server) VocabSize() int { return 0 }

// Name is "server".
func (s *Server) Name() string { return "server" }

// Exact reports true: counts are the server's own.
func (s *Server) Exact() bool { return true }

// redactURL hides a password in a URL, for error messages.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	return u.Redacted()
}
