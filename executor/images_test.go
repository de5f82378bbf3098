package executor

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/llmload/llmload/dataset"
)

// TestImagesNeedChat: a request with images goes to the chat API as
// content parts (the documented wire format: a text part, then image_url
// parts), and any other API refuses it rather than drop the images.
func TestImagesNeedChat(t *testing.T) {
	req := dataset.Request{Prompt: "what is this", OutputLen: 4, Images: 1, PromptBytes: 20,
		Messages: []dataset.Message{{Role: "user", Content: "what is this", Images: []string{"data:image/png;base64,iVBORw0KGgo="}}}}
	preps, err := prepare(Target{API: APIChat, Model: "m"}, []dataset.Request{req})
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type     string `json:"type"`
				Text     string `json:"text"`
				ImageURL struct {
					URL string `json:"url"`
				} `json:"image_url"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(preps[0].body, &body); err != nil {
		t.Fatalf("%v: %s", err, preps[0].body)
	}
	c := body.Messages[0].Content
	if len(c) != 2 || c[0].Type != "text" || c[0].Text != "what is this" || c[1].Type != "image_url" || c[1].ImageURL.URL != "data:image/png;base64,iVBORw0KGgo=" {
		t.Errorf("body %s", preps[0].body)
	}
	if preps[0].images != 1 || preps[0].promptBytes != 20 {
		t.Errorf("prepared: %d images, %d bytes", preps[0].images, preps[0].promptBytes)
	}
	for _, api := range []string{APICompletions, APIResponses} {
		if _, err := prepare(Target{API: api, Model: "m"}, []dataset.Request{req}); err == nil || !strings.Contains(err.Error(), "carries images") {
			t.Errorf("api %s: error %v, want a refusal", api, err)
		}
	}
}

// TestImagesInMessages: the Messages API takes a request's images as
// image blocks after its text (Anthropic's documented format: a base64
// source with its media type, or a url source), and refuses an image it
// cannot read rather than send it.
func TestImagesInMessages(t *testing.T) {
	req := dataset.Request{Prompt: "what is this", OutputLen: 4, Images: 2,
		Messages: []dataset.Message{{Role: "user", Content: "what is this", Images: []string{"data:image/png;base64,iVBORw0KGgo=", "https://example.com/cat.jpg"}}}}
	preps, err := prepare(Target{API: APIMessages, Model: "m"}, []dataset.Request{req})
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type   string `json:"type"`
				Text   string `json:"text"`
				Source *struct {
					Type      string `json:"type"`
					MediaType string `json:"media_type"`
					Data      string `json:"data"`
					URL       string `json:"url"`
				} `json:"source"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(preps[0].body, &body); err != nil {
		t.Fatalf("%v: %s", err, preps[0].body)
	}
	c := body.Messages[0].Content
	if len(c) != 3 || c[0].Type != "text" || c[0].Text != "what is this" ||
		c[1].Type != "image" || c[1].Source == nil || *c[1].Source != (struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
		URL       string `json:"url"`
	}{Type: "base64", MediaType: "image/png", Data: "iVBORw0KGgo="}) ||
		c[2].Type != "image" || c[2].Source == nil || c[2].Source.Type != "url" || c[2].Source.URL != "https://example.com/cat.jpg" {
		t.Errorf("body %s", preps[0].body)
	}
	for _, bad := range []string{"data:image/bmp;base64,Qk0=", "file:///etc/passwd"} {
		r := req
		r.Messages = []dataset.Message{{Role: "user", Content: "what is this", Images: []string{bad}}}
		if _, err := prepare(Target{API: APIMessages, Model: "m"}, []dataset.Request{r}); err == nil {
			t.Errorf("image %q: no refusal", bad)
		}
	}
}

// chatPart is a content part of OpenAI's chat API, as its reference
// documents it (and vLLM's OpenAI server takes it for multimodal models):
// {"type": "text", "text": ...} or {"type": "image_url", "image_url":
// {"url": ...}} with a data URL or an http(s) URL.
type chatPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

// TestImagesOverTheWire: a fake chat server that checks every message
// against the documented content-part format (answering 400, as vLLM
// does, to anything else) receives a request's images as image_url parts
// after its text, and the run counts the images and the prompt's bytes.
func TestImagesOverTheWire(t *testing.T) {
	const png = "data:image/png;base64,iVBORw0KGgo="
	var mu sync.Mutex
	var images []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, m := range body.Messages {
			var text string
			if json.Unmarshal(m.Content, &text) == nil {
				continue // a plain string content
			}
			var parts []chatPart
			if err := json.Unmarshal(m.Content, &parts); err != nil || len(parts) == 0 {
				http.Error(w, "content: a string or an array of parts", http.StatusBadRequest)
				return
			}
			for _, p := range parts {
				switch {
				case p.Type == "text" && p.ImageURL == nil:
				case p.Type == "image_url" && p.ImageURL != nil && (strings.HasPrefix(p.ImageURL.URL, "data:image/") || strings.HasPrefix(p.ImageURL.URL, "https://")):
					mu.Lock()
					images = append(images, p.ImageURL.URL)
					mu.Unlock()
				default:
					http.Error(w, fmt.Sprintf("bad content part %+v", p), http.StatusBadRequest)
					return
				}
			}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, tok := range []string{"a", " red", " square"} {
			fmt.Fprintf(w, "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", tok)
		}
		fmt.Fprint(w, "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":600,\"completion_tokens\":3}}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	reqs := []dataset.Request{
		{Prompt: "what is this", OutputLen: 4, PromptLen: 3, Images: 2, PromptBytes: 40,
			Messages: []dataset.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "what is this", Images: []string{png, "https://example.com/cat.jpg"}}}},
		{Prompt: "and now", OutputLen: 4, PromptLen: 2, PromptBytes: 7, Messages: []dataset.Message{{Role: "user", Content: "and now"}}},
	}
	out := mustRun(t, context.Background(), Plan{
		Target:      Target{BaseURL: srv.URL, API: APIChat, Model: "m"},
		Requests:    reqs,
		Closed:      &ClosedLoop{Stages: []Stage{{Users: 1}}},
		MaxRequests: 2,
	})
	s := out.Overall
	if s.Completed != 2 || s.Failed != 0 {
		t.Fatalf("%d completed, %d failed: the server refused the body (%v)", s.Completed, s.Failed, s.Errors)
	}
	if !slices.Equal(images, []string{png, "https://example.com/cat.jpg"}) {
		t.Errorf("the server saw images %v", images)
	}
	if s.Images != 2 || s.PromptBytes != 47 {
		t.Errorf("summary: %d images, %d prompt bytes; want 2 and 47", s.Images, s.PromptBytes)
	}
}
