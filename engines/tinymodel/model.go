package tinymodel

import (
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/llmload/llmload/engines/gguf"
)

// ChatML is the chat template written into the model: plain ChatML, which
// both engines recognise (llama.cpp's /props says chat_format
// "Content-only"; ollama create says "using autodetected template
// chatml"). Qwen3's own template, in its tokenizer_config.json, adds
// <think> and tool-call branches that invite the engines' reasoning and
// tool-call output parsing, which a model of random words has no use for.
const ChatML = "{%- for message in messages %}" +
	"{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}" +
	"{%- endfor %}" +
	"{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"

// Config is the model's shape and seed.
type Config struct {
	Seed    uint64
	Name    string // general.name
	Layers  int    // llama.block_count
	Width   int    // llama.embedding_length
	Heads   int    // llama.attention.head_count
	KVHeads int    // llama.attention.head_count_kv
	FFN     int    // llama.feed_forward_length
	Context int    // llama.context_length
	// RMSEpsilon and RopeBase are written explicitly: the engines'
	// defaults differ (Ollama assumes a RoPE base of 1e5, llama.cpp 1e4).
	RMSEpsilon float32
	RopeBase   float32
	// F32 writes every tensor as F32. By default the 2-D weights are F16
	// (llama.cpp's converter's default, "mostly F16"): it halves the file
	// (token_embd and output are vocabulary × width each) and the memory
	// each generated token reads; the norms stay F32 as ggml wants them.
	F32 bool
	// WordScale is the half-width of the uniform distribution of the word
	// rows of output.weight. With width 64 and RMS-normalised hidden
	// states a scale of 2 gives word logits of standard deviation about 9,
	// so the tokens whose rows are zero (logit 0, EOS among them) trail
	// the best word by some 35 and are never sampled, top-k or not.
	WordScale float32
	// PreTokenizer is tokenizer.ggml.pre, the name by which llama.cpp and
	// Ollama choose the pre-tokenizer regex: "qwen2" for Qwen's tokenizers.
	PreTokenizer string
	ChatTemplate string
	// Stop makes a model that ends its answers: after every word it reads,
	// the end-of-sequence token is by far the most likely next token (see
	// stopMark). The default model never emits it.
	Stop bool
	// Pieces makes a model that emits any whole piece of text, not only
	// words: every normal token whose bytes are valid UTF-8 with no control
	// character (PieceTokens), about 4 in 5 of Qwen3's vocabulary. Its
	// answers run into each other ("ingЖ.("), so their text re-tokenizes
	// to a different count from the tokens the engine generated: the
	// non-canonical sequences a sampled model writes, which a client's
	// token count must tolerate (metrics.TokenizerDisputes).
	Pieces bool
}

// Default is the model the conformance suite uses: 2 layers of width 64,
// 4 heads, FFN 128, a 4096-token context, seed 1.
func Default() Config {
	return Config{
		Seed:         1,
		Name:         "llmload-tiny",
		Layers:       2,
		Width:        64,
		Heads:        4,
		KVHeads:      4,
		FFN:          128,
		Context:      4096,
		RMSEpsilon:   1e-6,
		RopeBase:     10000,
		WordScale:    2,
		PreTokenizer: "qwen2",
		ChatTemplate: ChatML,
	}
}

func (c Config) validate() error {
	switch {
	case c.Layers < 1 || c.Width < 1 || c.Heads < 1 || c.KVHeads < 1 || c.FFN < 1 || c.Context < 1:
		return fmt.Errorf("layers, width, heads, kv heads, FFN and context must all be positive: %+v", c)
	case c.Width%c.Heads != 0:
		return fmt.Errorf("width %d is not a multiple of the %d heads", c.Width, c.Heads)
	case c.Heads%c.KVHeads != 0:
		return fmt.Errorf("%d heads are not a multiple of the %d KV heads", c.Heads, c.KVHeads)
	case (c.Width/c.Heads)%2 != 0:
		return fmt.Errorf("the head width %d must be even for RoPE", c.Width/c.Heads)
	case c.PreTokenizer == "" || c.ChatTemplate == "":
		return fmt.Errorf("a pre-tokenizer name and a chat template are needed")
	case !(c.WordScale > 0):
		return fmt.Errorf("the word scale must be positive, not %g", c.WordScale)
	case c.Stop && c.Pieces:
		return fmt.Errorf("the stop model emits words: it cannot also emit pieces")
	}
	return nil
}

// Build makes the model's GGUF file in memory: metadata, then the tensors
// in llama.cpp's order (token_embd, each block, output_norm, output).
func Build(c Config, tok *Tokenizer) (*gguf.File, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	if len(tok.Tokens) == 0 || len(tok.Types) != len(tok.Tokens) {
		return nil, fmt.Errorf("the tokenizer has %d tokens and %d types", len(tok.Tokens), len(tok.Types))
	}
	for name, id := range map[string]uint32{"bos": tok.BOS, "eos": tok.EOS, "padding": tok.PAD} {
		if int(id) >= len(tok.Tokens) {
			return nil, fmt.Errorf("the %s token id %d is outside the vocabulary of %d", name, id, len(tok.Tokens))
		}
	}
	fileType := uint32(1) // MOSTLY_F16
	if c.F32 {
		fileType = 0 // ALL_F32
	}
	headDim := c.Width / c.Heads
	u32 := func(n int) uint32 { return uint32(n) }
	f := &gguf.File{KV: []gguf.KV{
		{Key: "general.architecture", Value: "llama"},
		{Key: "general.name", Value: c.Name},
		{Key: "general.description", Value: description(c)},
		{Key: "general.file_type", Value: fileType},
		{Key: gguf.AlignmentKey, Value: uint32(gguf.DefaultAlignment)},
		{Key: "llama.context_length", Value: u32(c.Context)},
		{Key: "llama.embedding_length", Value: u32(c.Width)},
		{Key: "llama.block_count", Value: u32(c.Layers)},
		{Key: "llama.feed_forward_length", Value: u32(c.FFN)},
		{Key: "llama.attention.head_count", Value: u32(c.Heads)},
		{Key: "llama.attention.head_count_kv", Value: u32(c.KVHeads)},
		{Key: "llama.rope.dimension_count", Value: u32(headDim)},
		{Key: "llama.rope.freq_base", Value: c.RopeBase},
		{Key: "llama.attention.layer_norm_rms_epsilon", Value: c.RMSEpsilon},
		{Key: "llama.vocab_size", Value: u32(len(tok.Tokens))},
		{Key: "tokenizer.ggml.model", Value: "gpt2"},
		{Key: "tokenizer.ggml.pre", Value: c.PreTokenizer},
		{Key: "tokenizer.ggml.tokens", Value: tok.Tokens},
		{Key: "tokenizer.ggml.token_type", Value: tok.Types},
		{Key: "tokenizer.ggml.merges", Value: tok.Merges},
		{Key: "tokenizer.ggml.bos_token_id", Value: tok.BOS},
		{Key: "tokenizer.ggml.eos_token_id", Value: tok.EOS},
		{Key: "tokenizer.ggml.padding_token_id", Value: tok.PAD},
		{Key: "tokenizer.ggml.add_bos_token", Value: tok.AddBOS},
		{Key: "tokenizer.chat_template", Value: c.ChatTemplate},
	}}

	vocab := uint64(len(tok.Tokens))
	w, ffn, kv := uint64(c.Width), uint64(c.FFN), uint64(c.KVHeads*headDim)
	matrix := func(name string, in, out uint64, fill func(name string, n, in uint64) []float32) {
		vs := fill(name, in*out, in)
		t := gguf.Tensor{Name: name, Dims: []uint64{in, out}, Type: gguf.F16}
		if c.F32 {
			t.Type, t.Data = gguf.F32, gguf.EncodeF32(vs)
		} else {
			t.Data = gguf.EncodeF16(vs)
		}
		f.Tensors = append(f.Tensors, t)
	}
	norm := func(name string) {
		ones := make([]float32, w)
		for i := range ones {
			ones[i] = 1
		}
		f.Tensors = append(f.Tensors, gguf.Tensor{Name: name, Dims: []uint64{w}, Type: gguf.F32, Data: gguf.EncodeF32(ones)})
	}
	// Weights are uniform with variance 1/fan-in, so activations keep their
	// scale through the blocks; the embeddings are uniform in [-1, 1).
	scaled := func(name string, n, in uint64) []float32 {
		return uniform(c.Seed, name, n, float32(math.Sqrt(3/float64(in))))
	}
	words := WordTokens(tok)
	emits := words
	if c.Pieces {
		emits = PieceTokens(tok)
	}
	matrix("token_embd.weight", w, vocab, func(name string, n, in uint64) []float32 {
		vs := uniform(c.Seed, name, n, 1)
		if c.Stop {
			stopEmbeddings(vs, in, words)
		}
		return vs
	})
	// The blocks' output projections: with Stop they write nothing into
	// the stop dimension.
	out := func(name string, n, in uint64) []float32 {
		vs := scaled(name, n, in)
		if c.Stop {
			clear(vs[stopDim*in : (stopDim+1)*in])
		}
		return vs
	}
	for l := range c.Layers {
		p := fmt.Sprintf("blk.%d.", l)
		norm(p + "attn_norm.weight")
		matrix(p+"attn_q.weight", w, w, scaled)
		matrix(p+"attn_k.weight", w, kv, scaled)
		matrix(p+"attn_v.weight", w, kv, scaled)
		matrix(p+"attn_output.weight", w, w, out)
		norm(p + "ffn_norm.weight")
		matrix(p+"ffn_gate.weight", w, ffn, scaled)
		matrix(p+"ffn_up.weight", w, ffn, scaled)
		matrix(p+"ffn_down.weight", ffn, w, out)
	}
	norm("output_norm.weight")
	matrix("output.weight", w, vocab, func(name string, n, in uint64) []float32 {
		vs := uniform(c.Seed, name, n, c.WordScale)
		for id := range vocab {
			if !emits[id] {
				clear(vs[id*in : (id+1)*in])
			}
		}
		if c.Stop {
			stopOutput(vs, in, words, tok.EOS)
		}
		return vs
	})
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return f, nil
}

func description(c Config) string {
	d := fmt.Sprintf("random weights from seed %d, made by llmload's engines/tinymodel: not a language model", c.Seed)
	if c.Stop {
		d += "; it ends every answer after one word"
	}
	if c.Pieces {
		d += "; it writes pieces of text that run into each other"
	}
	return d
}

// The stop model (Config.Stop) reserves one dimension of the residual
// stream, stopDim, for a single signal: "the token just read was a word".
// Every word token's embedding holds stopMark there and every other
// token's 0, and no block writes into it (the rows of attn_output and
// ffn_down that feed it are zero), so the final hidden state of a word
// carries stopMark in that dimension and that of any other token carries
// exactly 0. The EOS token's output row is stopGain along that dimension
// alone, and the word rows are zero there.
//
// The logits are output · RMSNorm(h), and RMSNorm (with weights of 1)
// gives the normalised state x of width 64 a norm of 8: after a word
// x[stopDim] = stopMark / rms(h), which the blocks' additions to the other
// dimensions keep between 1.75 and 3.09 (Qwen3's vocabulary, seed 1, every
// 20th word token alone), so EOS scores 146 on average where the best word
// scores 36, and leads it by 76 at least: no sampler's temperature, top-k,
// top-p or min-p lets a word through (TestStopLogits). After any other
// token (the newline that ends a chat prompt's template) x[stopDim] is
// exactly 0 and so is EOS's logit, some 35 below the best word's, as in
// the default model. A chat answer is therefore one word and then EOS; a
// bare completion whose prompt ends in a word gets EOS first (an empty
// answer).
const (
	stopDim  = 0
	stopMark = 4
	stopGain = 64
)

// stopEmbeddings writes the word mark into token_embd (in values a row).
func stopEmbeddings(vs []float32, in uint64, words []bool) {
	for id, w := range words {
		vs[uint64(id)*in+stopDim] = 0
		if w {
			vs[uint64(id)*in+stopDim] = stopMark
		}
	}
}

// stopOutput gives EOS its row along the stop dimension and takes that
// dimension out of every other row.
func stopOutput(vs []float32, in uint64, words []bool, eos uint32) {
	for id := range words {
		vs[uint64(id)*in+stopDim] = 0
	}
	row := vs[uint64(eos)*in : uint64(eos+1)*in]
	clear(row)
	row[stopDim] = stopGain
}

// Write builds the model and writes it to w.
func Write(w io.Writer, c Config, tok *Tokenizer) error {
	f, err := Build(c, tok)
	if err != nil {
		return err
	}
	return gguf.Write(w, f)
}

// uniform returns n values uniform in [-scale, scale), from a PCG stream
// chosen by the seed and the tensor's name, so that each tensor's values
// depend on nothing else (not the order of the tensors, nor the Go
// release: PCG's output is specified and the conversion is integer
// arithmetic).
func uniform(seed uint64, name string, n uint64, scale float32) []float32 {
	h := fnv.New64a()
	h.Write([]byte(name))
	r := rand.NewPCG(seed, h.Sum64())
	out := make([]float32, n)
	for i := range out {
		// 24 random bits, centred: exactly representable in a float32.
		v := float32(int32(r.Uint64()>>40)-1<<23) / (1 << 23)
		out[i] = v * scale
	}
	return out
}

// IsWord reports whether a byte-level token is a space followed by ASCII
// letters only ("Ġhello"): the tokens the model may emit.
func IsWord(token string) bool {
	rest, ok := strings.CutPrefix(token, "Ġ")
	if !ok || rest == "" {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// WordTokens marks, by id, the normal tokens that are words (IsWord) and
// that byte-pair encoding of their own text yields whole: emitted one
// after another they re-tokenize to the same ids (the pre-tokenizer splits
// text before each " word", and BPE then rebuilds each token).
func WordTokens(tok *Tokenizer) []bool {
	ranks := make(map[string]int, len(tok.Merges))
	for i, m := range tok.Merges {
		ranks[m] = i
	}
	out := make([]bool, len(tok.Tokens))
	for id, s := range tok.Tokens {
		out[id] = tok.Types[id] == TokenNormal && IsWord(s) && bpe(s, ranks) == 1
	}
	return out
}

// PieceTokens marks, by id, the normal tokens whose bytes are valid UTF-8
// with no control character and no U+FFFD (which output checks read as
// broken text): pieces of text that print whole (no byte
// fragment, which llama.cpp's output parser may refuse), in any script,
// with or without a leading space.
func PieceTokens(tok *Tokenizer) []bool {
	out := make([]bool, len(tok.Tokens))
	for id, s := range tok.Tokens {
		if tok.Types[id] != TokenNormal {
			continue
		}
		b, ok := byteLevel(s)
		out[id] = ok && len(b) > 0 && utf8.Valid(b) && !strings.ContainsFunc(string(b), func(r rune) bool {
			return unicode.IsControl(r) || r == utf8.RuneError
		})
	}
	return out
}

// byteLevel decodes a byte-level BPE token (GPT-2's bytes_to_unicode: the
// printable Latin-1 bytes stand for themselves, every other byte b for
// rune 256 plus its rank among them) into its bytes.
func byteLevel(token string) ([]byte, bool) {
	var out []byte
	for _, r := range token {
		b, ok := byteOf[r]
		if !ok {
			return nil, false
		}
		out = append(out, b)
	}
	return out, true
}

var byteOf = func() map[rune]byte {
	m := make(map[rune]byte, 256)
	n := 0
	for b := range 256 {
		if b >= '!' && b <= '~' || b >= 0xA1 && b <= 0xAC || b >= 0xAE && b <= 0xFF {
			m[rune(b)] = byte(b)
			continue
		}
		m[rune(256+n)] = byte(b)
		n++
	}
	return m
}()

// bpe applies the merges to one pre-token, as GPT-2's BPE does (the
// lowest-ranked adjacent pair first, all its occurrences at once), and
// returns how many tokens are left.
func bpe(word string, ranks map[string]int) int {
	var syms []string
	for _, r := range word {
		syms = append(syms, string(r))
	}
	for len(syms) > 1 {
		best, bestRank := -1, math.MaxInt
		for i := 0; i+1 < len(syms); i++ {
			if r, ok := ranks[syms[i]+" "+syms[i+1]]; ok && r < bestRank {
				best, bestRank = i, r
			}
		}
		if best < 0 {
			break
		}
		a, b := syms[best], syms[best+1]
		merged := syms[:0:0]
		for i := 0; i < len(syms); i++ {
			if i+1 < len(syms) && syms[i] == a && syms[i+1] == b {
				merged = append(merged, a+b)
				i++
			} else {
				merged = append(merged, syms[i])
			}
		}
		syms = merged
	}
	return len(syms)
}
