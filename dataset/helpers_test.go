package dataset

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/llmload/llmload/tokenizer"
)

var update = flag.Bool("update", false, "rewrite golden files")

// wordTokenizer is a test tokenizer: one token per whitespace-separated
// word ("w<id>" for ids it produced, any other word maps to 1000), and a
// BOS (id 0) with special tokens when bos is set.
type wordTokenizer struct{ bos bool }

func (w wordTokenizer) Encode(text string, addSpecial bool) []int {
	var ids []int
	if addSpecial && w.bos {
		ids = append(ids, 0)
	}
	for _, f := range strings.Fields(text) {
		id, err := strconv.Atoi(strings.TrimPrefix(f, "w"))
		if !strings.HasPrefix(f, "w") || err != nil || id < 1 || id >= 1000 {
			id = 1000
		}
		ids = append(ids, id)
	}
	return ids
}

func (w wordTokenizer) Decode(ids []int) string {
	words := make([]string, 0, len(ids))
	for _, id := range ids {
		if id == 0 { // special: skipped
			continue
		}
		words = append(words, fmt.Sprintf("w%d", id))
	}
	return strings.Join(words, " ")
}

func (w wordTokenizer) VocabSize() int { return 1001 }
func (w wordTokenizer) Name() string   { return "words" }
func (w wordTokenizer) Exact() bool    { return true }

// pairTokenizer merges: ids 0-9 are the letters a-j, ids 10-109 the
// two-letter pairs; Encode takes pairs greedily, so decoding n random ids
// and re-encoding rarely gives n ids back.
type pairTokenizer struct{}

func (pairTokenizer) Encode(text string, addSpecial bool) []int {
	var ids []int
	var letters []int
	for _, c := range text {
		if c >= 'a' && c <= 'j' {
			letters = append(letters, int(c-'a'))
		}
	}
	for i := 0; i < len(letters); i += 2 {
		if i+1 < len(letters) {
			ids = append(ids, 10+letters[i]*10+letters[i+1])
		} else {
			ids = append(ids, letters[i])
		}
	}
	return ids
}

func (pairTokenizer) Decode(ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		if id < 10 {
			b.WriteByte(byte('a' + id))
		} else {
			b.WriteByte(byte('a' + (id-10)/10))
			b.WriteByte(byte('a' + (id-10)%10))
		}
	}
	return b.String()
}

func (pairTokenizer) VocabSize() int { return 110 }
func (pairTokenizer) Name() string   { return "pairs" }
func (pairTokenizer) Exact() bool    { return true }

// failingTokenizer stands for the server tokenizer when the server fails:
// it reports an error through Err after encoding.
type failingTokenizer struct{ wordTokenizer }

func (failingTokenizer) Err() error   { return errors.New("POST /tokenize: connection refused") }
func (failingTokenizer) Name() string { return "server" }

// refSample is one request of a reference sampling.
type refSample struct {
	Index     int `json:"index"`
	PromptLen int `json:"prompt_len"`
	OutputLen int `json:"output_len"`
}

// sizeless stands for the server tokenizer, which does not know its
// vocabulary's size.
type sizeless struct{ tokenizer.Tokenizer }

func (sizeless) VocabSize() int { return 0 }
func (sizeless) Name() string   { return "sizeless" }
