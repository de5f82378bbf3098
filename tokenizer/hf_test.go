package tokenizer

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
	"golang.org/x/text/unicode/norm"

	"github.com/llmload/llmload/internal/testshared"
)

func loadFixture(t testing.TB, dir string) *HF {
	t.Helper()
	tok, err := Load(filepath.Join("testdata", dir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// loadVariant loads a copy of a fixture's tokenizer.json, edited by the
// replacements (old, new, ...), alone in a temporary folder.
func loadVariant(t *testing.T, dir string, replacements ...string) *HF {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", dir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for i := 0; i+1 < len(replacements); i += 2 {
		if !strings.Contains(s, replacements[i]) {
			t.Fatalf("fixture %s has no %q", dir, replacements[i])
		}
		s = strings.ReplaceAll(s, replacements[i], replacements[i+1])
	}
	path := filepath.Join(t.TempDir(), "tokenizer.json")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	tok, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestEncodeFixtures(t *testing.T) {
	bl := loadFixture(t, "bytelevel")
	sp := loadFixture(t, "sp")
	spNoConfig := loadVariant(t, "sp")
	blMerges := loadVariant(t, "bytelevel", `"ignore_merges": true`, `"ignore_merges": false`)
	spNoFallback := loadVariant(t, "sp", `"byte_fallback": true`, `"byte_fallback": false`)
	spNoFuse := loadVariant(t, "sp", `"byte_fallback": true`, `"byte_fallback": false`, `"fuse_unk": true`, `"fuse_unk": false`)
	const (
		// sp ids
		unk, bos, eos      = 0, 1, 2
		meta, hello, world = 259, 271, 276
	)
	byteID := func(b byte) int { return 3 + int(b) }
	tests := []struct {
		name    string
		tok     *HF
		text    string
		special bool
		want    []int
	}{
		// bytelevel: ids 0-255 are the bytes; 256 Ġt, 257 he, 258 Ġthe, 259 the, 260 ll, 265 hello.
		{"merges in rank order", bl, "the the", false, []int{259, 258}},
		{"leftover pairs stay apart", bl, " hello", false, []int{' ', 257, 260, 'o'}},
		{"ignore_merges takes a whole word from the vocab", bl, "hello", false, []int{265}},
		{"without ignore_merges the merges decide", blMerges, "hello", false, []int{257, 260, 'o'}},
		{"special added token split out", bl, "a<|end|>b", false, []int{'a', 263, 'b'}},
		{"non-special added token split out", bl, "x <think>y", false, []int{'x', ' ', 264, 'y'}},
		{"ByteLevel post-processor adds nothing", bl, "the", true, []int{259}},
		{"bytes beyond ASCII", bl, "é", false, []int{0xC3, 0xA9}},
		{"empty", bl, "", true, []int{}},
		// sp: <unk> 0, <s> 1, </s> 2, <0xXX> 3+XX, ▁ 259, ▁hello 271, ▁world 276.
		{"prepend and replace", sp, "hello world", false, []int{hello, world}},
		{"config adds BOS and EOS", sp, "hello", true, []int{bos, hello, eos}},
		{"template adds BOS without config", spNoConfig, "hello", true, []int{bos, hello}},
		{"byte fallback", sp, "hello €", false, []int{hello, meta, byteID(0xE2), byteID(0x82), byteID(0xAC)}},
		{"added token splits normalization", sp, "hello<s>world", false, []int{hello, bos, world}},
		{"unknown characters fused", spNoFallback, "hello €€", false, []int{hello, meta, unk}},
		{"unknown characters not fused", spNoFuse, "hello €€", false, []int{hello, meta, unk, unk}},
		{"empty with special", sp, "", true, []int{bos, eos}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.tok.Encode(tt.text, tt.special)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Encode(%q, %v) (-want +got):\n%s", tt.text, tt.special, diff)
			}
		})
	}
}

func TestDecodeFixtures(t *testing.T) {
	bl := loadFixture(t, "bytelevel")
	sp := loadFixture(t, "sp")
	tests := []struct {
		name string
		tok  *HF
		ids  []int
		want string
	}{
		{"byte level", bl, []int{259, 258, ' ', 257, 260, 'o'}, "the the hello"},
		{"special skipped", bl, []int{'a', 263, 'b'}, "ab"},
		{"non-special added token kept", bl, []int{'a', 264}, "a<think>"},
		{"unknown ids skipped", bl, []int{-1, 'a', 100000}, "a"},
		{"partial UTF-8 is replaced", bl, []int{0xE2, 0x82, 'x'}, "\uFFFDx"},
		{"sentencepiece", sp, []int{1, 271, 276, 2}, "hello world"},
		{"byte fallback", sp, []int{271, 259, 3 + 0xE2, 3 + 0x82, 3 + 0xAC}, "hello €"},
		{"invalid byte fallback is one U+FFFD per byte", sp, []int{271, 3 + 0xE2, 3 + 0x82}, "hello\uFFFD\uFFFD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.tok.Decode(tt.ids); got != tt.want {
				t.Errorf("Decode(%v) = %q, want %q", tt.ids, got, tt.want)
			}
		})
	}
}

func TestFixtureProperties(t *testing.T) {
	for _, tc := range []struct {
		dir   string
		vocab int
	}{{"bytelevel", 266}, {"sp", 278}} {
		tok := loadFixture(t, tc.dir)
		if got := tok.VocabSize(); got != tc.vocab {
			t.Errorf("%s: VocabSize() = %d, want %d", tc.dir, got, tc.vocab)
		}
		if want := filepath.Join("testdata", tc.dir, "tokenizer.json"); tok.Name() != want {
			t.Errorf("Name() = %q, want %q", tok.Name(), want)
		}
		if !tok.Exact() {
			t.Errorf("%s: Exact() = false", tc.dir)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		path string
		want string
	}{
		{"testdata/errors/absent.json", "no such file or directory"},
		{"testdata/errors/malformed.json", "malformed JSON at line 3, column 26"},
		{"testdata/errors/no_model.json", `no "model" object`},
		{"testdata/errors/wordpiece.json", `unsupported model type "WordPiece" (supported: BPE)`},
		{"testdata/errors/unigram.json", `unsupported model type "Unigram"`},
		{"testdata/errors/bad_pretokenizer.json", `unsupported pre_tokenizer type "BertPreTokenizer"`},
		{"testdata/errors/bad_split.json", `unsupported pre_tokenizer Split behavior "Sideways"`},
		{"testdata/errors/bad_normalizer.json", `unsupported normalizer type "Precompiled" (with a precompiled_charsmap)`},
		{"testdata/errors/bad_decoder.json", `unsupported decoder type "WordPiece"`},
		{"testdata/errors/bad_postprocessor.json", `unsupported post_processor type "Magic"`},
		{"testdata/errors/merge_oov.json", `merge 0 ("a" "z"): token not in the vocabulary`},
		{"testdata/errors/bad_merge.json", `merge 0 "a b c" is not two tokens`},
		{"testdata/errors/subword_prefix.json", `unsupported BPE option continuing_subword_prefix = "##"`},
		{"testdata/errors/bad_config/tokenizer.json", "bad_config/tokenizer_config.json: malformed JSON at line 1, column 52"},
		{"testdata/errors/missing_bos/tokenizer.json", `missing_bos/tokenizer_config.json: bos_token "<s>" is not a token`},
	}
	for _, tt := range tests {
		t.Run(strings.TrimPrefix(tt.path, "testdata/errors/"), func(t *testing.T) {
			_, err := Load(tt.path)
			if err == nil {
				t.Fatalf("Load(%s) succeeded, want an error with %q", tt.path, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load(%s) error = %q, want it to contain %q", tt.path, err, tt.want)
			}
			if !strings.Contains(err.Error(), filepath.Dir(tt.path)) {
				t.Errorf("Load(%s) error = %q does not name the file", tt.path, err)
			}
		})
	}
}

// TestRoundTripShared checks Decode(Encode(x)) == x for the byte-level
// real tokenizers on the vector texts and on random strings of tricky
// characters (those in valid UTF-8 and NFC: Qwen3 normalizes to NFC).
func TestRoundTripShared(t *testing.T) {
	for _, name := range []string{"llama3", "qwen3"} {
		t.Run(name, func(t *testing.T) {
			tok, vs := loadShared(t, name)
			var texts []string
			for _, v := range vs {
				texts = append(texts, v.Text)
			}
			r := rand.New(rand.NewPCG(5, 6))
			for range 500 {
				texts = append(texts, randomTricky(r, 1+r.IntN(30)))
			}
			checked := 0
		texts:
			for _, s := range texts {
				if !utf8.ValidString(s) || !norm.NFC.IsNormalString(s) {
					continue
				}
				ids := tok.Encode(s, false)
				for _, id := range ids {
					if tok.special[id] {
						continue texts // Decode skips special tokens
					}
				}
				if got := tok.Decode(ids); got != s {
					t.Errorf("Decode(Encode(%q)) = %q", s, got)
				}
				checked++
			}
			t.Logf("%d texts round-tripped", checked)
		})
	}
}

// TestSpecialTokensShared checks what Encode(text, true) adds for the real
// tokenizers (Mistral's BOS, nothing for this Llama-3 file and Qwen3) and
// their sizes (vocabulary and added tokens).
func TestSpecialTokensShared(t *testing.T) {
	for _, tc := range []struct {
		name           string
		prefix, suffix []int
		vocab          int
	}{{"llama3", nil, nil, 128256}, {"qwen3", nil, nil, 151669}, {"mistral7b", []int{1}, nil, 32000}} {
		t.Run(tc.name, func(t *testing.T) {
			tok, _ := loadShared(t, tc.name)
			if got := tok.VocabSize(); got != tc.vocab {
				t.Errorf("VocabSize() = %d, want %d", got, tc.vocab)
			}
			plain, special := tok.Encode("Hello world", false), tok.Encode("Hello world", true)
			want := append(append(append([]int{}, tc.prefix...), plain...), tc.suffix...)
			if diff := cmp.Diff(want, special); diff != "" {
				t.Errorf("Encode(text, true) (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzEncode checks Encode never panics, ids are in range, and byte-level
// tokenizers (the fixture, and Llama-3 when ../shared is there) decode back
// to the input.
func FuzzEncode(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	bl, sp := loadFixture(f, "bytelevel"), loadFixture(f, "sp")
	var llama3 *HF
	_, err := readVectors("llama3")
	testshared.Missing(f, err)
	if err == nil {
		llama3, _ = loadShared(f, "llama3")
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range []*HF{bl, sp, llama3} {
			if tok == nil {
				continue
			}
			for _, id := range tok.Encode(s, true) {
				if id < 0 || id >= tok.VocabSize() {
					t.Fatalf("%s: Encode(%q) gave id %d outside [0, %d)", tok.Name(), s, id, tok.VocabSize())
				}
			}
		}
		if !strings.Contains(s, "<|end|>") { // a special token, which Decode skips
			if got, want := bl.Decode(bl.Encode(s, false)), lossyUTF8([]byte(s)); got != want {
				t.Errorf("byte level: Decode(Encode(%q)) = %q", s, got)
			}
		}
		if llama3 != nil && utf8.ValidString(s) && !strings.Contains(s, "<|") {
			if got := llama3.Decode(llama3.Encode(s, false)); got != s {
				t.Errorf("llama3: Decode(Encode(%q)) = %q", s, got)
			}
		}
		if utf8.ValidString(s) && !strings.ContainsAny(s, "▁<") {
			if got := sp.Decode(sp.Encode(s, false)); got != s {
				t.Errorf("sentencepiece: Decode(Encode(%q)) = %q", s, got)
			}
		}
	})
}

func TestAddedTokenOptions(t *testing.T) {
	const tok = "<x>"
	tests := []struct {
		name  string
		token addedToken
		text  string
		want  []string // pieces, "#" for the token
	}{
		{"plain", addedToken{}, "a <x> b", []string{"a ", "#", " b"}},
		{"lstrip", addedToken{lstrip: true}, "a  <x> b", []string{"a", "#", " b"}},
		{"rstrip", addedToken{rstrip: true}, "a <x>  b", []string{"a ", "#", "b"}},
		{"single word alone", addedToken{singleWord: true}, "a <x> b", []string{"a ", "#", " b"}},
		{"single word inside a word", addedToken{singleWord: true}, "a<x> b", []string{"a<x> b"}},
		{"longest first", addedToken{}, "<x>>", []string{"#", ">"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := tt.token
			a.content, a.id = tok, 7
			m := newAddedMatcher([]addedToken{a, {content: "<", id: 8}})
			var got []string
			m.split(tt.text, func(s string) { got = append(got, s) }, func(id int) {
				if id != 7 {
					got = append(got, "?")
					return
				}
				got = append(got, "#")
			})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("split(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

// TestEncodeConcurrent runs Encode from several goroutines (the word cache
// is shared); run it with -race.
func TestEncodeConcurrent(t *testing.T) {
	tok := loadFixture(t, "bytelevel")
	texts := fuzzSeeds(t)
	want := make([][]int, len(texts))
	for i, s := range texts {
		want[i] = tok.Encode(s, true)
	}
	tok.model.cache = map[string][]int32{}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range texts {
				i := (k + g) % len(texts)
				if diff := cmp.Diff(want[i], tok.Encode(texts[i], true)); diff != "" {
					t.Errorf("Encode(%q) (-want +got):\n%s", texts[i], diff)
				}
			}
		}()
	}
	wg.Wait()
}

func TestPostProcessors(t *testing.T) {
	tok := loadFixture(t, "sp")
	tests := []struct {
		json           string
		prefix, suffix []int
	}{
		{`{"type":"ByteLevel"}`, nil, nil},
		{`{"type":"BertProcessing","sep":["</s>",2],"cls":["<s>",1]}`, []int{1}, []int{2}},
		{`{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>"}},{"Sequence":{"id":"A"}},{"SpecialToken":{"id":"</s>"}}],` +
			`"special_tokens":{"<s>":{"id":"<s>","ids":[1]},"</s>":{"id":"</s>","ids":[2]}}}`, []int{1}, []int{2}},
		{`{"type":"Sequence","processors":[` +
			`{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>"}},{"Sequence":{"id":"A"}}],"special_tokens":{"<s>":{"id":"<s>","ids":[1]}}},` +
			`{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"</s>"}},{"Sequence":{"id":"A"}},{"SpecialToken":{"id":"<s>"}}],"special_tokens":{"<s>":{"id":"<s>","ids":[1]},"</s>":{"id":"</s>","ids":[2]}}}]}`,
			[]int{2, 1}, []int{1}},
	}
	for _, tt := range tests {
		prefix, suffix, err := tok.parsePostProcessor(gjson.Parse(tt.json))
		if err != nil {
			t.Fatalf("%s: %v", tt.json, err)
		}
		if diff := cmp.Diff([][]int{tt.prefix, tt.suffix}, [][]int{prefix, suffix}); diff != "" {
			t.Errorf("%s: prefix and suffix (-want +got):\n%s", tt.json, diff)
		}
	}
	if _, _, err := tok.parsePostProcessor(gjson.Parse(`{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<x>"}}],"special_tokens":{}}`)); err == nil {
		t.Error("a template naming an undefined special token loaded without error")
	}
}
