package sim

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseRequest(t *testing.T) {
	p, _ := LookupProfile("tiny")
	tests := []struct {
		file    string
		kind    api
		want    request
		wantErr string
	}{
		{"completion_stream.json", apiCompletions, request{promptTokens: 2, maxTokens: 16, stream: true, includeUsage: true, ignoreEOS: true}, ""},
		{"completion_ids.json", apiCompletions, request{promptTokens: 3, maxTokens: 4}, ""},
		// The image part adds the profile's image_tokens.
		{"chat_parts.json", apiChat, request{promptTokens: 2 + 4 + 1 + 4 + p.ImageTokens, maxTokens: 8, stream: true}, ""},
		{"chat_null_content.json", apiChat, request{promptTokens: 4 + 1 + 4, maxTokens: 2048 - 9}, ""},
		{"bad_prompt.json", apiCompletions, request{}, "prompt must be a string, a list of one string, or a non-empty list of token ids"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join("testdata", "requests", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			got, aerr := parseRequest(body, tt.kind, &p)
			if tt.wantErr != "" {
				if aerr == nil || aerr.msg != tt.wantErr {
					t.Fatalf("%s: error %v, want %q", tt.file, aerr, tt.wantErr)
				}
				return
			}
			if aerr != nil {
				t.Fatalf("%s: %v", tt.file, aerr)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(request{})); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.file, diff)
			}
		})
	}
}

func FuzzParseRequest(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "requests", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		body, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for k := range uint8(4) {
			f.Add(body, k)
		}
	}
	p, _ := LookupProfile("tiny")
	f.Fuzz(func(t *testing.T, body []byte, k uint8) {
		kind := api(k % 4)
		chat := kind == apiChat
		r, aerr := parseRequest(body, kind, &p)
		if aerr != nil {
			if aerr.status != 400 && aerr.status != 404 || aerr.msg == "" {
				t.Fatalf("error %+v", aerr)
			}
			return
		}
		if kind == apiEmbeddings {
			if r.promptTokens < 1 || r.promptTokens > p.MaxModelLen || r.stream {
				t.Fatalf("accepted an impossible embeddings request: %+v", r)
			}
			return
		}
		if r.promptTokens < 1 && !chat || r.maxTokens < 1 || r.promptTokens+r.maxTokens > p.MaxModelLen {
			t.Fatalf("accepted an impossible request: %+v", r)
		}
		if r.includeUsage && !r.stream {
			t.Fatalf("include_usage without stream: %+v", r)
		}
	})
}
