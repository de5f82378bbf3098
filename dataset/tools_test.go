package dataset

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestJSONLTools: an entry's tools and tool_choice are read as written,
// with their functions' names, for each request (and each session).
func TestJSONLTools(t *testing.T) {
	reqs, err := Load(jsonlSpec(filepath.Join("testdata", "jsonl", "tools.jsonl"), nil), wordTokenizer{bos: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int][]string{}
	choice := map[int]string{}
	for _, r := range reqs.Requests {
		if r.Tools != nil {
			got[r.Index] = r.Tools.Names
			choice[r.Index] = string(r.Tools.Choice)
		}
	}
	want := map[int][]string{0: {"search", "get_time"}, 1: {"search"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools by line (-want +got):\n%s", diff)
	}
	if choice[0] != `"auto"` || !strings.Contains(choice[1], `"name": "search"`) {
		t.Errorf("tool_choice %v", choice)
	}
	sessions, err := Load(jsonlSpec(filepath.Join("testdata", "jsonl", "tools.jsonl"), func(c *JSONL) { c.MultiTurn = true }), wordTokenizer{bos: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sessions.Requests {
		if s.Index == 0 && (s.Tools == nil || len(s.Turns) == 0) {
			t.Errorf("session of line 1: tools %v, %d turns", s.Tools, len(s.Turns))
		}
	}
}

// TestJSONLToolsErrors: a bad tools entry is refused with the file and
// line, and why.
func TestJSONLToolsErrors(t *testing.T) {
	for _, tt := range []struct {
		line, want string
	}{
		{`{"prompt": "x", "tools": {"type": "function"}}`, `line 1: "tools" is an object, not an array of function tools`},
		{`{"prompt": "x", "tools": []}`, `line 1: "tools" is empty`},
		{`{"prompt": "x", "tools": [{"type": "retrieval"}]}`, `line 1: tools[0] has type "retrieval"`},
		{`{"prompt": "x", "tools": [{"type": "function", "function": {}}]}`, `line 1: tools[0] has no function.name`},
		{`{"prompt": "x", "tools": [{"type": "function", "function": {"name": "a"}}, {"type": "function", "function": {"name": "a"}}]}`, `line 1: tools[1]: a second function named "a"`},
		{`{"prompt": "x", "tools": [{"type": "function", "function": {"name": "a", "parameters": "any"}}]}`, `function.parameters is a string, not a JSON schema object`},
		{`{"prompt": "x", "tool_choice": "auto"}`, `"tool_choice" without "tools"`},
		{`{"prompt": "x", "tools": [{"type": "function", "function": {"name": "a"}}], "tool_choice": "sometimes"}`, `"tool_choice" is "sometimes"`},
		{`{"prompt": "x", "tools": [{"type": "function", "function": {"name": "a"}}], "tool_choice": {"type": "function", "function": {"name": "b"}}}`, `names function "b", which "tools" does not offer`},
		{`{"prompt": "x", "tools": [{"type": "function", "function": {"name": "a"}}], "tool_choice": 3}`, `"tool_choice" is a number`},
	} {
		path := filepath.Join(t.TempDir(), "bad.jsonl")
		if err := os.WriteFile(path, []byte(tt.line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(jsonlSpec(path, nil), wordTokenizer{bos: true})
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "bad.jsonl") {
			t.Errorf("%s: error %v, want one naming the file and %q", tt.line, err, tt.want)
		}
	}
}

// TestJSONLImages: an entry's images (a path beside the file, a data URL,
// an http URL) go with its last user message, a path read into a data
// URL; the request counts them and the bytes sent inline; the chat body
// writes that message's content as a text part and image_url parts.
func TestJSONLImages(t *testing.T) {
	ds, err := Load(jsonlSpec(filepath.Join("testdata", "jsonl", "images.jsonl"), func(c *JSONL) { c.Shuffle = false }), wordTokenizer{bos: true})
	if err != nil {
		t.Fatal(err)
	}
	red, err := os.ReadFile(filepath.Join("testdata", "jsonl", "red.png"))
	if err != nil {
		t.Fatal(err)
	}
	r0, r1, r2 := ds.Requests[0], ds.Requests[1], ds.Requests[2]
	if r0.Images != 1 || r0.PromptBytes != len("w1 w2")+len(red) || len(r0.Messages) != 1 || !strings.HasPrefix(r0.Messages[0].Images[0], "data:image/png;base64,") {
		t.Errorf("line 1: %d images, %d bytes, messages %+v", r0.Images, r0.PromptBytes, r0.Messages)
	}
	if r1.Images != 2 || len(r1.Messages[0].Images) != 0 || len(r1.Messages[1].Images) != 2 || r1.Messages[1].Images[1] != "https://example.com/cat.jpg" {
		t.Errorf("line 2: %d images, messages %+v", r1.Images, r1.Messages)
	}
	if r2.Images != 0 || r2.Messages != nil {
		t.Errorf("line 3 has no images: %+v", r2)
	}
	b, err := json.Marshal(r1.Messages)
	if err != nil {
		t.Fatal(err)
	}
	var wire []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &wire); err != nil {
		t.Fatal(err)
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if string(wire[0].Content) != `"w3"` || json.Unmarshal(wire[1].Content, &parts) != nil || len(parts) != 3 ||
		parts[0].Type != "text" || parts[0].Text != "w4" || parts[1].Type != "image_url" || parts[2].ImageURL.URL != "https://example.com/cat.jpg" {
		t.Errorf("the chat messages on the wire: %s", b)
	}
}

// TestJSONLImagesErrors: a bad image is refused with the file and line.
func TestJSONLImagesErrors(t *testing.T) {
	for _, tt := range []struct{ line, want string }{
		{`{"prompt": "x", "images": "red.png"}`, `"images" is a string, not an array`},
		{`{"prompt": "x", "images": []}`, `"images" is empty`},
		{`{"prompt": "x", "images": [3]}`, `images[0] is a number, not a path or URL`},
		{`{"prompt": "x", "images": ["missing.png"]}`, `images[0]: stat`},
		{`{"prompt": "x", "images": ["notes.txt"]}`, `not an image file by its extension`},
		{`{"prompt": "x", "images": ["data:text/plain;base64,aGk="]}`, `a data URL must be data:image/<type>;base64,<data>`},
		{`{"prompt": "x", "images": ["data:image/png;base64,@@@"]}`, `the data URL's base64`},
	} {
		path := filepath.Join(t.TempDir(), "bad.jsonl")
		if err := os.WriteFile(path, []byte(tt.line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(jsonlSpec(path, nil), wordTokenizer{bos: true})
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "bad.jsonl: line 1") {
			t.Errorf("%s: error %v, want one naming the file, the line and %q", tt.line, err, tt.want)
		}
	}
}
