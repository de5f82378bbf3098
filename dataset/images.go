package dataset

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"
)

// Images in chat prompts: a JSONL entry's "images", each a path (relative
// to the JSONL file), an inline data URL or an http(s) URL, go with its
// last user message as OpenAI's chat API takes them (content parts:
// {"type": "text"} then {"type": "image_url", "image_url": {"url": ...}}),
// which vLLM's OpenAI server accepts for multimodal models. A path is read
// once, as the dataset loads, and sent inline as a data URL.

// MaxImageBytes bounds one image: a larger one is a mistake (a video, a
// raw scan), and every request would carry it.
const MaxImageBytes = 20 << 20

// imageTypes are the image files a path may name, by extension.
var imageTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".webp": "image/webp", ".gif": "image/gif",
}

// parseImages reads an entry's "images": each entry's URL to send and the
// image bytes it carries (0 for an http(s) URL, which the server fetches).
func parseImages(v gjson.Result, dir string) (urls []string, bytes int, err error) {
	if !v.Exists() {
		return nil, 0, nil
	}
	if !v.IsArray() {
		return nil, 0, fmt.Errorf("\"images\" is %s, not an array of paths or URLs", kind(v))
	}
	v.ForEach(func(_, im gjson.Result) bool {
		i := len(urls)
		if im.Type != gjson.String || strings.TrimSpace(im.Str) == "" {
			err = fmt.Errorf("images[%d] is %s, not a path or URL", i, kind(im))
			return false
		}
		u, n, e := imageURL(im.Str, dir)
		if e != nil {
			err = fmt.Errorf("images[%d]: %w", i, e)
			return false
		}
		urls = append(urls, u)
		bytes += n
		return true
	})
	if err == nil && len(urls) == 0 {
		err = errors.New("\"images\" is empty: remove it, or name an image")
	}
	return urls, bytes, err
}

// imageURL is one image as sent: a data URL as written (checked), an
// http(s) URL as written, or a file read into a data URL.
func imageURL(s, dir string) (string, int, error) {
	switch {
	case strings.HasPrefix(s, "data:"):
		meta, payload, ok := strings.Cut(strings.TrimPrefix(s, "data:"), ",")
		if !ok || !strings.HasPrefix(meta, "image/") || !strings.HasSuffix(meta, ";base64") {
			return "", 0, errors.New("a data URL must be data:image/<type>;base64,<data>")
		}
		n := base64.StdEncoding.DecodedLen(len(payload))
		if n > MaxImageBytes {
			return "", 0, fmt.Errorf("the image is over %d MiB", MaxImageBytes>>20)
		}
		b, err := base64.StdEncoding.DecodeString(payload)
		if err != nil {
			return "", 0, fmt.Errorf("the data URL's base64: %v", err)
		}
		return s, len(b), nil
	case strings.HasPrefix(s, "http://"), strings.HasPrefix(s, "https://"):
		return s, 0, nil
	}
	path := s
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	typ, ok := imageTypes[strings.ToLower(filepath.Ext(path))]
	if !ok {
		return "", 0, fmt.Errorf("%s: not an image file by its extension (want .png, .jpg, .jpeg, .webp or .gif)", s)
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", 0, err
	}
	if st.Size() > MaxImageBytes {
		return "", 0, fmt.Errorf("%s is %d MiB, over the %d MiB an image may be", s, st.Size()>>20, MaxImageBytes>>20)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", 0, err
	}
	return "data:" + typ + ";base64," + base64.StdEncoding.EncodeToString(b), len(b), nil
}

// contentPart is one part of a message's content, as the chat API takes
// it.
type contentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageRef `json:"image_url,omitempty"`
}

type imageRef struct {
	URL string `json:"url"`
}

// MarshalJSON writes a message as the chat API takes it: its content a
// string, or, with images, a list of parts (the text, then each image).
func (m Message) MarshalJSON() ([]byte, error) {
	type plain Message // without this method
	if len(m.Images) == 0 {
		return json.Marshal(plain(m))
	}
	parts := []contentPart{{Type: "text", Text: m.Content}}
	for _, u := range m.Images {
		parts = append(parts, contentPart{Type: "image_url", ImageURL: &imageRef{URL: u}})
	}
	return json.Marshal(struct {
		Role       string        `json:"role"`
		Content    []contentPart `json:"content"`
		ToolCalls  []ToolCall    `json:"tool_calls,omitempty"`
		ToolCallID string        `json:"tool_call_id,omitempty"`
	}{m.Role, parts, m.ToolCalls, m.ToolCallID})
}

// MessagesWeight is what a conversation puts on the wire beside its
// tokens: its images, and its bytes (the messages' text and the images
// sent inline, decoded), as a request's Images and PromptBytes count them.
func MessagesWeight(msgs []Message) (images, bytes int) {
	for _, m := range msgs {
		bytes += len(m.Content)
		for _, u := range m.Images {
			images++
			if _, payload, ok := strings.Cut(u, ";base64,"); ok && strings.HasPrefix(u, "data:") {
				bytes += base64.StdEncoding.DecodedLen(len(payload)) - strings.Count(payload[max(0, len(payload)-2):], "=")
			}
		}
	}
	return images, bytes
}
