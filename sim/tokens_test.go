package sim

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Any text's prompt ids detokenize to text with the same ids, special
// tokens included, so lengths survive a /detokenize, /tokenize round trip.
func FuzzTokenRoundTrip(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "requests", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		body, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(body))
	}
	f.Add("<|start_header_id|>user<|end_header_id|>\n\nhello <|eot_id|><|eot_|>")
	f.Add("  naïve café 12345 !!! \n\n\tsupercalifragilistic")
	f.Fuzz(func(t *testing.T, text string) {
		ids := tokenIDs(text)
		if ids == nil {
			t.Fatalf("tokenIDs(%q) is nil, which /tokenize would send as null", text)
		}
		back, err := detokenize(ids)
		if err != nil {
			t.Fatalf("detokenize(tokenIDs(%q)): %v", text, err)
		}
		if again := tokenIDs(back); !slices.Equal(again, ids) {
			t.Fatalf("%q: ids %v; their text %q has ids %v", text, ids, back, again)
		}
	})
}
