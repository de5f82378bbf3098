package tokenizer

import (
	"strings"
)

// HF is a tokenizer loaded from a Hugging Face tokenizer.json: a BPE model
// (byte-level like GPT-2, Llama-3 and Qwen, or SentencePiece-style with byte
// fallback like Llama-2 and Mistral), its normalizer, pre-tokenizer, added
// tokens, post-processor and decoder. It is safe for concurrent use.
type HF struct {
	name      string
	model     *bpe
	normalize normalizer // nil: none
	pre       []splitter
	rawAdded  *addedMatcher // added tokens matched on the raw text
	normAdded *addedMatcher // added tokens matched after normalization
	tokens    []string      // id -> model-space string, for Decode
	known     []bool        // id has a token
	special   []bool        // id is a special added token (Decode skips it)
	decoder   []decodeStep
	prefix    []int // ids Encode(text, true) puts before the text
	suffix    []int // and after it
}

// Encode returns the ids for text; with addSpecial, the special tokens the
// post-processor (or tokenizer_config.json, for Llama-style classes) adds.
func (t *HF) Encode(text string, addSpecial bool) []int {
	ids := make([]int, 0, len(text)/3+len(t.prefix)+len(t.suffix)+1)
	if addSpecial {
		ids = append(ids, t.prefix...)
	}
	ws := workspaces.Get().(*workspace)
	first := true
	token := func(id int) {
		ids = append(ids, id)
		first = false
	}
	t.rawAdded.split(text, func(seg string) {
		if t.normalize != nil {
			seg = t.normalize(seg)
		}
		t.normAdded.split(seg, func(piece string) {
			ids = t.encodePiece(ws, ids, piece, first)
			first = false
		}, token)
	}, token)
	workspaces.Put(ws)
	if addSpecial {
		ids = append(ids, t.suffix...)
	}
	return ids
}

// encodePiece pre-tokenizes one normalized piece and runs the model on
// each word.
func (t *HF) encodePiece(ws *workspace, ids []int, piece string, first bool) []int {
	words := append(ws.words[0][:0], piece)
	spare := ws.words[1][:0]
	for _, split := range t.pre {
		for k, w := range words {
			spare = split(spare, w, first && k == 0)
		}
		clear(words) // the pooled workspace must not keep the text alive
		words, spare = spare, words[:0]
	}
	for _, w := range words {
		if !t.model.splitMeta {
			ids = t.model.encodeWord(ws, ids, w)
			continue
		}
		// Merges never cross "x▁" (see bpe.splitMeta): encode the parts
		// between such places separately, so that they are cached.
		for len(w) > 0 {
			k := 0
			for {
				n := strings.Index(w[k+1:], metaspace)
				if n < 0 {
					k = len(w)
					break
				}
				k += 1 + n
				if !strings.HasSuffix(w[:k], metaspace) {
					break
				}
			}
			ids = t.model.encodeWord(ws, ids, w[:k])
			w = w[k:]
		}
	}
	clear(words)
	ws.words[0], ws.words[1] = words[:0], spare[:0]
	return ids
}

// Decode turns ids back into text, skipping special tokens and unknown ids.
func (t *HF) Decode(ids []int) string {
	toks := make([]string, 0, len(ids))
	for _, id := range ids {
		if id < 0 || id >= len(t.tokens) || !t.known[id] || t.special[id] {
			continue
		}
		toks = append(toks, t.tokens[id])
	}
	if len(t.decoder) == 0 {
		return strings.Join(toks, " ")
	}
	for _, step := range t.decoder {
		toks = step(toks)
	}
	return strings.Join(toks, "")
}

// VocabSize is the largest id plus one, added tokens included.
func (t *HF) VocabSize() int { return len(t.tokens) }

// Name is the path the tokenizer was loaded from.
func (t *HF) Name() string { return t.name }

// Exact reports true: counts are the model's own.
func (t *HF) Exact() bool { return true }
