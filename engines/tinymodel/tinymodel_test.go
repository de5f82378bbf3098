package tinymodel

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/llmload/llmload/engines/gguf"
	"github.com/llmload/llmload/internal/testshared"
)

// writeTokenizer makes a tokenizer folder from the two files' contents.
func writeTokenizer(t *testing.T, tokenizerJSON, configJSON string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{"tokenizer.json": tokenizerJSON, "tokenizer_config.json": configJSON} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// small is a byte-level BPE tokenizer of a few tokens: "Ġhi" is reachable
// by its merges, "Ġi" is not (no "Ġ i" merge), id 8 is named by nothing.
const smallTokenizer = `{
  "added_tokens": [
    {"id": 9, "content": "<|endoftext|>", "special": true},
    {"id": 10, "content": "<|im_end|>", "special": true},
    {"id": 11, "content": "<think>", "special": false},
    {"id": 12, "content": "<|fim_pad|>", "special": false}
  ],
  "model": {
    "type": "BPE",
    "vocab": {"Ġ": 0, "h": 1, "i": 2, "Ġh": 3, "Ġhi": 4, "hi": 5, "Ġi": 6, "!": 7},
    "merges": [["Ġ", "h"], ["Ġh", "i"], ["h", "i"]]
  }
}`

const smallConfig = `{"add_bos_token": false, "bos_token": null, "eos_token": "<|im_end|>", "pad_token": {"content": "<|endoftext|>"}}`

func smallTok(t *testing.T) *Tokenizer {
	t.Helper()
	tok, err := LoadTokenizer(writeTokenizer(t, smallTokenizer, smallConfig))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestLoadTokenizerSmall(t *testing.T) {
	got := smallTok(t)
	want := &Tokenizer{
		Tokens: []string{"Ġ", "h", "i", "Ġh", "Ġhi", "hi", "Ġi", "!", "[PAD8]", "<|endoftext|>", "<|im_end|>", "<think>", "<|fim_pad|>"},
		Types: []int32{TokenNormal, TokenNormal, TokenNormal, TokenNormal, TokenNormal, TokenNormal, TokenNormal, TokenNormal,
			TokenUnused, TokenControl, TokenControl, TokenUserDefined, TokenControl},
		Merges: []string{"Ġ h", "Ġh i", "h i"},
		BOS:    9, EOS: 10, PAD: 9,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestLoadTokenizerErrors(t *testing.T) {
	tests := []struct {
		name, tokenizer, config, want string
	}{
		{"merges as strings", strings.Replace(smallTokenizer, `[["Ġ", "h"], ["Ġh", "i"], ["h", "i"]]`, `["Ġ h", "Ġh i", "h i"]`, 1), smallConfig, ""},
		{"bad merge", strings.Replace(smallTokenizer, `["h", "i"]]`, `["h", "i", "x"]]`, 1), smallConfig, "not a pair"},
		{"not BPE", strings.Replace(smallTokenizer, `"BPE"`, `"Unigram"`, 1), smallConfig, "only byte-level BPE"},
		{"no eos", smallTokenizer, `{"eos_token": null}`, "names no eos_token"},
		{"unknown eos", smallTokenizer, `{"eos_token": "</s>"}`, "not a token"},
		{"id clash", strings.Replace(smallTokenizer, `"id": 11`, `"id": 7`, 1), smallConfig, "names both"},
		{"not json", "{", smallConfig, "tokenizer.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadTokenizer(writeTokenizer(t, tt.tokenizer, tt.config))
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("LoadTokenizer = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestIsWord(t *testing.T) {
	tests := []struct {
		token string
		want  bool
	}{
		{"Ġhello", true},
		{"ĠHello", true},
		{"Ġa", true},
		{"hello", false},   // no space: glued to the word before it
		{"Ġ", false},       // a space alone
		{"ĠĠhello", false}, // two spaces
		{"Ġhello!", false}, // punctuation
		{"Ġ123", false},    // digits
		{"Ġcafé", false},   // non-ASCII letter (byte-level "Ã©")
		{"ĠcafÃ©", false},  // ... as the vocabulary spells it
		{"Ġhel lo", false}, // a literal space is not a byte-level character
		{"<|im_end|>", false},
		{"Ċ", false}, // newline
	}
	for _, tt := range tests {
		if got := IsWord(tt.token); got != tt.want {
			t.Errorf("IsWord(%q) = %v, want %v", tt.token, got, tt.want)
		}
	}
}

// readBack writes the model and reads the file back with the GGUF reader,
// returning it with the bytes' SHA-256.
func readBack(t *testing.T, c Config, tok *Tokenizer) (*gguf.File, [32]byte, int) {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, c, tok); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatalf("reading the model back: %v", err)
	}
	return f, sha256.Sum256(buf.Bytes()), buf.Len()
}

func TestModelLayout(t *testing.T) {
	tok := smallTok(t)
	for _, f32 := range []bool{false, true} {
		c := Default()
		c.F32 = f32
		f, _, _ := readBack(t, c, tok)

		// The metadata the engines read, with its GGUF types.
		fileType := uint32(1)
		if f32 {
			fileType = 0
		}
		wantKV := map[string]any{
			"general.architecture":                   "llama",
			"general.alignment":                      uint32(32),
			"general.file_type":                      fileType,
			"llama.context_length":                   uint32(4096),
			"llama.embedding_length":                 uint32(64),
			"llama.block_count":                      uint32(2),
			"llama.feed_forward_length":              uint32(128),
			"llama.attention.head_count":             uint32(4),
			"llama.attention.head_count_kv":          uint32(4),
			"llama.rope.dimension_count":             uint32(16),
			"llama.rope.freq_base":                   float32(10000),
			"llama.attention.layer_norm_rms_epsilon": float32(1e-6),
			"llama.vocab_size":                       uint32(13),
			"tokenizer.ggml.model":                   "gpt2",
			"tokenizer.ggml.pre":                     "qwen2",
			"tokenizer.ggml.tokens":                  tok.Tokens,
			"tokenizer.ggml.token_type":              tok.Types,
			"tokenizer.ggml.merges":                  tok.Merges,
			"tokenizer.ggml.bos_token_id":            uint32(9),
			"tokenizer.ggml.eos_token_id":            uint32(10),
			"tokenizer.ggml.padding_token_id":        uint32(9),
			"tokenizer.ggml.add_bos_token":           false,
			"tokenizer.chat_template":                ChatML,
		}
		for key, want := range wantKV {
			got, ok := f.Get(key)
			if !ok {
				t.Errorf("f32=%v: %s is missing", f32, key)
				continue
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("f32=%v: %s (-want +got):\n%s", f32, key, diff)
			}
		}

		// The tensors, in order, with ggml's dimensions (innermost first).
		big := gguf.F16
		if f32 {
			big = gguf.F32
		}
		type info struct {
			Name string
			Dims []uint64
			Type gguf.TensorType
		}
		want := []info{{"token_embd.weight", []uint64{64, 13}, big}}
		for _, b := range []string{"blk.0.", "blk.1."} {
			want = append(want,
				info{b + "attn_norm.weight", []uint64{64}, gguf.F32},
				info{b + "attn_q.weight", []uint64{64, 64}, big},
				info{b + "attn_k.weight", []uint64{64, 64}, big},
				info{b + "attn_v.weight", []uint64{64, 64}, big},
				info{b + "attn_output.weight", []uint64{64, 64}, big},
				info{b + "ffn_norm.weight", []uint64{64}, gguf.F32},
				info{b + "ffn_gate.weight", []uint64{64, 128}, big},
				info{b + "ffn_up.weight", []uint64{64, 128}, big},
				info{b + "ffn_down.weight", []uint64{128, 64}, big},
			)
		}
		want = append(want, info{"output_norm.weight", []uint64{64}, gguf.F32}, info{"output.weight", []uint64{64, 13}, big})
		var got []info
		for _, tn := range f.Tensors {
			got = append(got, info{tn.Name, tn.Dims, tn.Type})
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("f32=%v: tensors (-want +got):\n%s", f32, diff)
		}
		norm, _ := f.Tensor("output_norm.weight").Floats()
		for _, v := range norm {
			if v != 1 {
				t.Fatalf("output_norm.weight has %g; norms are all 1", v)
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	tok := smallTok(t)
	c := Default()
	_, a, _ := readBack(t, c, tok)
	_, b, _ := readBack(t, c, tok)
	if a != b {
		t.Fatalf("two writes of seed %d differ: %x and %x", c.Seed, a, b)
	}
	c.Seed = 2
	if _, other, _ := readBack(t, c, tok); other == a {
		t.Fatalf("seeds 1 and 2 wrote the same bytes")
	}
}

// checkOutputRows checks the output-row rule on a model read back: a row of
// output.weight is non-zero exactly when its token is a word.
func checkOutputRows(t *testing.T, f *gguf.File, tok *Tokenizer) (words int) {
	t.Helper()
	out, err := f.Tensor("output.weight").Floats()
	if err != nil {
		t.Fatal(err)
	}
	width := int(f.Tensor("output.weight").Dims[0])
	isWord := WordTokens(tok)
	for id, s := range tok.Tokens {
		nonzero := false
		for _, v := range out[id*width : (id+1)*width] {
			nonzero = nonzero || v != 0
		}
		if nonzero != isWord[id] {
			t.Fatalf("token %d %q: output row non-zero = %v, word = %v", id, s, nonzero, isWord[id])
		}
		if isWord[id] && (!IsWord(s) || tok.Types[id] != TokenNormal) {
			t.Fatalf("token %d %q (type %d) has a row but is not a normal word token", id, s, tok.Types[id])
		}
		if isWord[id] {
			words++
		}
	}
	if isWord[tok.EOS] {
		t.Fatalf("the EOS token has a non-zero output row")
	}
	return words
}

func TestOutputRowsSmall(t *testing.T) {
	tok := smallTok(t)
	f, _, _ := readBack(t, Default(), tok)
	checkOutputRows(t, f, tok)
	isWord := WordTokens(tok)
	// Ġhi and Ġh are reached by the merges; Ġi is in the vocabulary but BPE
	// would spell " i" as Ġ + i, so emitting it would not re-tokenize.
	for id, want := range map[int]bool{3: true, 4: true, 6: false, 0: false, 1: false, 5: false, 11: false} {
		if isWord[id] != want {
			t.Errorf("token %d %q: word = %v, want %v", id, tok.Tokens[id], isWord[id], want)
		}
	}
}

// TestQwen3 builds the real model from ../shared's Qwen3 tokenizer: counts
// against tokenizer.json read independently, the output-row rule, the
// size, and determinism by the hash of two writes.
func TestQwen3(t *testing.T) {
	dir := testshared.Path(t, "data", "tokenizers", "qwen3")
	tok, err := LoadTokenizer(dir)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		AddedTokens []struct {
			Content string
			Special bool
		} `json:"added_tokens"`
		Model struct {
			Vocab  map[string]int
			Merges []json.RawMessage
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	counts := map[int32]int{}
	for _, ty := range tok.Types {
		counts[ty]++
	}
	control := 0
	for _, a := range raw.AddedTokens {
		if a.Special || strings.HasPrefix(a.Content, "<|") {
			control++
		}
	}
	wantCounts := map[int32]int{
		TokenNormal:      len(raw.Model.Vocab),
		TokenControl:     control,
		TokenUserDefined: len(raw.AddedTokens) - control,
	}
	if diff := cmp.Diff(wantCounts, counts); diff != "" {
		t.Errorf("token types (-want +got):\n%s", diff)
	}
	if got, want := len(tok.Tokens), len(raw.Model.Vocab)+len(raw.AddedTokens); got != want {
		t.Errorf("%d tokens, want %d (vocabulary + added, no gaps)", got, want)
	}
	if got, want := len(tok.Merges), len(raw.Model.Merges); got != want {
		t.Errorf("%d merges, want %d", got, want)
	}
	if tok.Tokens[tok.EOS] != "<|im_end|>" || tok.Tokens[tok.PAD] != "<|endoftext|>" || tok.Tokens[tok.BOS] != "<|endoftext|>" || tok.AddBOS {
		t.Errorf("special tokens: eos %q pad %q bos %q add_bos %v; want <|im_end|>, <|endoftext|>, <|endoftext|>, false",
			tok.Tokens[tok.EOS], tok.Tokens[tok.PAD], tok.Tokens[tok.BOS], tok.AddBOS)
	}

	f, sum, size := readBack(t, Default(), tok)
	words := checkOutputRows(t, f, tok)
	if words < 20000 {
		t.Errorf("only %d word tokens: too few for varied output", words)
	}
	for _, w := range []string{"Ġhello", "Ġthe", "ĠThe", "Ġworld"} {
		if id := raw.Model.Vocab[w]; !WordTokens(tok)[id] {
			t.Errorf("%q (%d) is not a word token", w, id)
		}
	}
	if size < 40<<20 || size > 50<<20 {
		t.Errorf("the model is %d bytes; about 45 MB was expected", size)
	}
	if _, again, _ := readBack(t, Default(), tok); again != sum {
		t.Errorf("two writes of the same seed differ: %x and %x", sum, again)
	}
	// The bytes docs/engines.md and engines/testdata/NOTES.md quote: the
	// default model stays what the suite measured (the stop model is
	// opt-in).
	const wantSize, wantSum = 44916352, "3f2d3fb4f162f99a68417ba598f94fa882ab8b85c789446f79ecd5c89d59c235"
	if size != wantSize || fmt.Sprintf("%x", sum) != wantSum {
		t.Errorf("seed 1: %d bytes, sha256 %x; want %d bytes, sha256 %s", size, sum, wantSize, wantSum)
	}
	t.Logf("%d bytes, sha256 %x, %d word tokens", size, sum, words)
}

// TestStop checks the stop model against the default one, tensor by
// tensor: it differs only in the stop dimension (every word's embedding
// holds stopMark there, every other token's 0; no block writes into it;
// EOS's output row is stopGain there and 0 elsewhere, every other row 0
// there) and in its description.
func TestStop(t *testing.T) {
	tok := smallTok(t)
	for _, f32 := range []bool{false, true} {
		c := Default()
		c.F32 = f32
		def, defSum, _ := readBack(t, c, tok)
		c.Stop = true
		stop, stopSum, _ := readBack(t, c, tok)
		if _, again, _ := readBack(t, c, tok); again != stopSum {
			t.Fatalf("f32=%v: two writes of the stop model differ", f32)
		}
		if stopSum == defSum {
			t.Fatalf("f32=%v: the stop model is the default one", f32)
		}
		if d, _ := stop.Get("general.description"); !strings.Contains(d.(string), "ends every answer after one word") {
			t.Errorf("f32=%v: description %q does not say the model stops", f32, d)
		}
		words := WordTokens(tok)
		for i, tn := range stop.Tensors {
			got, err := tn.Floats()
			if err != nil {
				t.Fatal(err)
			}
			want, err := def.Tensors[i].Floats()
			if err != nil {
				t.Fatal(err)
			}
			in := int(tn.Dims[0])
			// want becomes the default tensor with the stop model's
			// changes made by hand.
			switch {
			case tn.Name == "token_embd.weight":
				for id := range tok.Tokens {
					want[id*in+stopDim] = 0
					if words[id] {
						want[id*in+stopDim] = stopMark
					}
				}
			case strings.HasSuffix(tn.Name, ".attn_output.weight") || strings.HasSuffix(tn.Name, ".ffn_down.weight"):
				clear(want[stopDim*in : (stopDim+1)*in])
			case tn.Name == "output.weight":
				for id := range tok.Tokens {
					want[id*in+stopDim] = 0
				}
				eos := want[int(tok.EOS)*in : int(tok.EOS+1)*in]
				clear(eos)
				eos[stopDim] = stopGain
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("f32=%v: %s (-want +got):\n%s", f32, tn.Name, diff)
			}
		}
	}
}

// TestPieces checks the pieces model's choice of tokens and its output
// rows: every normal token that prints whole is emitted (with or without
// a space, in any script), byte fragments, control characters and special
// tokens are not, and the stop model cannot also emit pieces.
func TestPieces(t *testing.T) {
	tests := []struct {
		token string
		want  bool
	}{
		{"Ġhello", true},
		{"ing", true},
		{"!", true},
		{"Ġ", true},        // a space
		{"ĠÐĸ", true},      // " Ж", two bytes that decode whole
		{"Ð", false},       // the first byte of a two-byte rune
		{"Ċ", false},       // a newline: a control character
		{"ĉ", false},       // a tab
		{"hello", true},    // no space
		{"h\u4e16", false}, // a rune outside the byte-level alphabet
	}
	tok := &Tokenizer{}
	for _, tt := range tests {
		tok.Tokens = append(tok.Tokens, tt.token)
		tok.Types = append(tok.Types, TokenNormal)
	}
	tok.Tokens = append(tok.Tokens, "<|im_end|>")
	tok.Types = append(tok.Types, TokenControl)
	got := PieceTokens(tok)
	for i, tt := range tests {
		if got[i] != tt.want {
			t.Errorf("%q: piece = %v, want %v", tt.token, got[i], tt.want)
		}
	}
	if got[len(tests)] {
		t.Errorf("a control token is a piece")
	}

	small := smallTok(t)
	c := Default()
	c.Pieces = true
	f, _, _ := readBack(t, c, small)
	rows := outputRows(t, f, small)
	pieces := PieceTokens(small)
	for id := range small.Tokens {
		if nonzero := rows[id]; nonzero != pieces[id] {
			t.Errorf("token %d %q: output row non-zero = %v, want %v", id, small.Tokens[id], nonzero, pieces[id])
		}
	}
	if d, _ := f.Get("general.description"); !strings.Contains(d.(string), "pieces of text") {
		t.Errorf("description %q does not say the model writes pieces", d)
	}
	c.Stop = true
	if _, err := Build(c, small); err == nil {
		t.Errorf("a stop model that emits pieces was built")
	}
}

// outputRows says, by token id, whether the model's output row is
// non-zero: whether the model can emit the token.
func outputRows(t *testing.T, f *gguf.File, tok *Tokenizer) []bool {
	t.Helper()
	for _, tn := range f.Tensors {
		if tn.Name != "output.weight" {
			continue
		}
		vs, err := tn.Floats()
		if err != nil {
			t.Fatal(err)
		}
		in := int(tn.Dims[0])
		out := make([]bool, len(tok.Tokens))
		for id := range out {
			for _, v := range vs[id*in : (id+1)*in] {
				out[id] = out[id] || v != 0
			}
		}
		return out
	}
	t.Fatal("no output.weight")
	return nil
}
