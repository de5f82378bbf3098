package tokenizer

import (
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/dlclark/regexp2"
	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/llmload/llmload/internal/testshared"
)

var scannedPatterns = []struct {
	name, pattern string
}{
	{"gpt4", patternGPT4},
	{"qwen", patternQwen},
	{"gpt2", patternGPT2},
}

// trickyRunes are the characters where the split patterns' classes and
// alternatives meet.
var trickyRunes = []string{
	" ", " ", "  ", "\t", "\r", "\n", "\v", "\f", "\u00a0", "\u2028", "\u3000", "\u0085",
	"a", "Z", "é", "ſ", "K", "한", "中", "ß", "s", "t", "re", "VE", "ll", "M", "d", "D",
	"'", "'", "’", "0", "7", "٣", "²", "Ⅻ", "½",
	".", ",", "!", "(", ")", "#", "$", "\u0301", "🙂", "_", "-", "\xff", "\xe2\x82",
}

func randomTricky(r *rand.Rand, n int) string {
	var sb strings.Builder
	for range n {
		sb.WriteString(trickyRunes[r.IntN(len(trickyRunes))])
	}
	return sb.String()
}

// splitWithRegexp2 is the reference: regexp2 running the pattern itself.
func splitWithRegexp2(t testing.TB, pattern, s string) []string {
	re, err := regexp2.Compile(pattern, regexp2.Unicode)
	if err != nil {
		t.Fatal(err)
	}
	return splitSpans(nil, s, regexpSpans(re, s), splitIsolated, false)
}

func splitWithScanner(t testing.TB, pattern, s string) []string {
	sp, err := regexSplitter(pattern, splitIsolated, false)
	if err != nil {
		t.Fatal(err)
	}
	return sp(nil, s, true)
}

// TestScannerMatchesRegexp2 proves the hand-written scanners split exactly
// as regexp2 does with the patterns themselves, on the vector texts and the
// sonnet corpus (when ../shared is there) and on random strings of tricky
// characters.
func TestScannerMatchesRegexp2(t *testing.T) {
	texts := []string{"", "Hello world", "I'M don't 'S 'sup", "a  b   \n\n  c \t\n", "x1234567y", "  \n", "foo  ", "(foo) ...bar!!\n\n"}
	for _, name := range sharedNames {
		vs, err := readVectors(name)
		testshared.Missing(t, err)
		for _, v := range vs {
			texts = append(texts, v.Text)
		}
	}
	sonnet, err := os.ReadFile("../../shared/data/vllm_sonnet.txt")
	testshared.Missing(t, err)
	if err == nil {
		texts = append(texts, string(sonnet))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		texts = append(texts, randomTricky(r, 1+r.IntN(24)))
	}
	for _, p := range scannedPatterns {
		t.Run(p.name, func(t *testing.T) {
			failures := 0
			for _, s := range texts {
				want, got := splitWithRegexp2(t, p.pattern, s), splitWithScanner(t, p.pattern, s)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("split %q (-want +got):\n%s", s, diff)
					if failures++; failures > 10 {
						t.Fatal("too many differences")
					}
				}
			}
		})
	}
}

// FuzzScanner checks the scanners against regexp2 on arbitrary input.
func FuzzScanner(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range scannedPatterns {
			if diff := cmp.Diff(splitWithRegexp2(t, p.pattern, s), splitWithScanner(t, p.pattern, s)); diff != "" {
				t.Errorf("%s split %q (-want +got):\n%s", p.name, s, diff)
			}
		}
	})
}

func TestSplitters(t *testing.T) {
	mustRegex := func(pattern string, behavior splitBehavior, invert bool) splitter {
		s, err := regexSplitter(pattern, behavior, invert)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tests := []struct {
		name  string
		split splitter
		text  string
		first bool
		want  []string
	}{
		{"regexp2 fallback keeps gaps", mustRegex(`\d{1,2}`, splitIsolated, false), "12345a", true, []string{"12", "34", "5", "a"}},
		{"regexp2 removed", mustRegex(`\s+`, splitRemoved, false), "a  b ", true, []string{"a", "b"}},
		{"regexp2 inverted", mustRegex(`\s+`, splitRemoved, true), "a  b ", true, []string{"  ", " "}},
		{"string isolated", stringSplitter("--", splitIsolated, false), "a--b--", true, []string{"a", "--", "b", "--"}},
		{"string removed", stringSplitter("--", splitRemoved, false), "a--b", true, []string{"a", "b"}},
		{"merged with previous", stringSplitter(" ", splitMergedWithPrevious, false), " a  b", true, []string{" ", "a ", " ", "b"}},
		{"merged with next", stringSplitter(" ", splitMergedWithNext, false), "a  b ", true, []string{"a", " ", " b", " "}},
		{"contiguous", stringSplitter("-", splitContiguous, false), "a--b-", true, []string{"a", "--", "b", "-"}},
		{"byte level with prefix space and GPT-2 regex", byteLevelSplitter(true, true), "it's 42!", true, []string{" it", "'s", " 42", "!"}},
		{"metaspace always", metaspaceSplitter('▁', "always", true), "hello big  world", false, []string{"▁hello", "▁big", "▁", "▁world"}},
		{"metaspace first, not first", metaspaceSplitter('▁', "first", true), "a b", false, []string{"a", "▁b"}},
		{"metaspace first, first", metaspaceSplitter('▁', "first", false), "a b", true, []string{"▁a▁b"}},
		{"digits one by one", digitsSplitter(true), "a12b3", true, []string{"a", "1", "2", "b", "3"}},
		{"digit runs", digitsSplitter(false), "a12b3", true, []string{"a", "12", "b", "3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.split(nil, tt.text, tt.first)); diff != "" {
				t.Errorf("split(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestNormalizers(t *testing.T) {
	tests := []struct {
		json, in, want string
	}{
		{`{"type":"NFC"}`, "e\u0301", "é"},
		{`{"type":"NFKD"}`, "ﬁ", "fi"},
		{`{"type":"Lowercase"}`, "ÀB", "àb"},
		{`{"type":"Strip","strip_left":true,"strip_right":false}`, "  a ", "a "},
		{`{"type":"Prepend","prepend":"▁"}`, "", ""},
		{`{"type":"Replace","pattern":{"Regex":" +"},"content":"$1"}`, "a  b", "a$1b"},
		{`{"type":"Sequence","normalizers":[{"type":"Prepend","prepend":"▁"},{"type":"Replace","pattern":{"String":" "},"content":"▁"}]}`, "a b", "▁a▁b"},
	}
	for _, tt := range tests {
		n, err := parseNormalizer(gjson.Parse(tt.json))
		if err != nil {
			t.Fatalf("%s: %v", tt.json, err)
		}
		if got := n(tt.in); got != tt.want {
			t.Errorf("%s on %q = %q, want %q", tt.json, tt.in, got, tt.want)
		}
	}
}

func TestDecoders(t *testing.T) {
	tests := []struct {
		json   string
		tokens []string
		want   string
	}{
		{`{"type":"Metaspace","replacement":"▁","prepend_scheme":"always"}`, []string{"▁Hello", "▁world"}, "Hello world"},
		{`{"type":"Metaspace","replacement":"▁","prepend_scheme":"never"}`, []string{"▁Hello"}, " Hello"},
		{`{"type":"Strip","content":"x","start":2,"stop":1}`, []string{"xxxax"}, "xa"},
		{`{"type":"Sequence","decoders":[{"type":"ByteFallback"},{"type":"Fuse"}]}`, []string{"a", "<0xC3>", "<0xA9>", "b"}, "aéb"},
	}
	for _, tt := range tests {
		steps, err := parseDecoder(gjson.Parse(tt.json))
		if err != nil {
			t.Fatalf("%s: %v", tt.json, err)
		}
		toks := append([]string(nil), tt.tokens...)
		for _, s := range steps {
			toks = s(toks)
		}
		if got := strings.Join(toks, ""); got != tt.want {
			t.Errorf("%s on %q = %q, want %q", tt.json, tt.tokens, got, tt.want)
		}
	}
}
