package executor

import (
	"encoding/json"
	"strings"
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
	for _, api := range []string{APICompletions, APIResponses, APIMessages} {
		if _, err := prepare(Target{API: api, Model: "m"}, []dataset.Request{req}); err == nil || !strings.Contains(err.Error(), "carries images") {
			t.Errorf("api %s: error %v, want a refusal", api, err)
		}
	}
}
