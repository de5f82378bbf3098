package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// startTiny starts the tiny profile, with overrides, on a free loopback port.
func startTiny(t *testing.T, overrides map[string]string) *Running {
	t.Helper()
	p, err := LookupProfile("tiny")
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range overrides {
		if err := p.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Listen("127.0.0.1:0", p, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return r
}

// chunk is a streamed chunk as a client decodes it.
type chunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index int     `json:"index"`
		Text  *string `json:"text"`
		Delta *struct {
			Role             *string `json:"role"`
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *usage `json:"usage"`
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// streamResult is what the test client saw on one request.
type streamResult struct {
	status    int
	body      []byte   // the body when the status is not 200
	payloads  []string // every data payload, [DONE] included
	chunks    []chunk  // the payloads that decoded
	malformed int      // payloads that did not decode
	done      bool     // [DONE] was seen
	readErr   error    // the stream broke (dropped connection)
}

// text is the concatenated generated text and the number of events that carried some.
func (s *streamResult) text() (string, int) {
	var b strings.Builder
	events := 0
	for _, c := range s.chunks {
		for _, ch := range c.Choices {
			var piece string
			if ch.Text != nil {
				piece = *ch.Text
			} else if ch.Delta != nil && ch.Delta.Content != nil {
				piece = *ch.Delta.Content
			}
			if piece != "" {
				events++
				b.WriteString(piece)
			}
		}
	}
	return b.String(), events
}

// post sends a JSON body and reads an SSE stream with a bufio.Reader.
func post(t testing.TB, url string, body any) streamResult {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(data))
	if err != nil {
		return streamResult{readErr: err}
	}
	defer resp.Body.Close()
	res := streamResult{status: resp.StatusCode}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		res.body, res.readErr = io.ReadAll(resp.Body)
		return res
	}
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadString('\n')
		if payload, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "data: "); ok {
			res.payloads = append(res.payloads, payload)
			if payload == "[DONE]" {
				res.done = true
			} else {
				var c chunk
				if json.Unmarshal([]byte(payload), &c) != nil {
					res.malformed++
				} else {
					res.chunks = append(res.chunks, c)
				}
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) || !res.done {
				res.readErr = fmt.Errorf("after %d payloads: %w", len(res.payloads), err)
			}
			return res
		}
	}
}

func getBody(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}
