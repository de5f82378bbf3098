package tokenizer

import (
	"hash/fnv"
	"strings"
	"unicode/utf8"
)

// approxVocab is the approximate tokenizer's fixed word list: every
// two-syllable word of 14 consonants and 5 vowels ("baba" ... "zuzu"),
// cut at 4096 words.
var approxVocab, approxIndex = func() ([]string, map[string]int) {
	const consonants, vowels, size = "bdfgklmnprstvz", "aeiou", 4096
	var syllables []string
	for _, c := range consonants {
		for _, v := range vowels {
			syllables = append(syllables, string(c)+string(v))
		}
	}
	words := make([]string, 0, size)
	index := make(map[string]int, size)
	for _, a := range syllables {
		for _, b := range syllables {
			if len(words) == size {
				return words, index
			}
			index[a+b] = len(words)
			words = append(words, a+b)
		}
	}
	return words, index
}()

// Tuning of the approximation (see docs/tokenizer.md for how it was
// measured against Llama-3).
const (
	approxWordBytes  = 10 // an ASCII word up to this long is one token; longer ones take one per approxPieceBytes
	approxPieceBytes = 6
	approxDigits     = 3 // digits per token
	approxOtherRunes = 2 // punctuation and symbols per token
	approxSpaceRunes = 4 // spaces per token in runs of spaces
	approxWideBytes  = 3 // bytes per token in words of non-ASCII letters
)

type approx struct{}

// Approximate returns a fast tokenizer that estimates Llama-3-like counts
// without a model: a word up to 10 ASCII letters (with its leading space) is
// one token, longer words one per 6 bytes, non-ASCII words one per 3 bytes,
// digits one per 3, punctuation one per 2 characters, a newline run one.
// Decode writes words of a fixed list of VocabSize() made-up words, one
// token each, so that Encode(Decode(ids), false) == ids for ids in
// [0, VocabSize()). It adds no special tokens, Exact() is false and Name()
// is "approximate". It is safe for concurrent use.
func Approximate() Tokenizer { return approx{} }

// Encode returns estimated ids: a word of the fixed list is its index,
// anything else a hash of the piece.
func (approx) Encode(text string, _ bool) []int {
	ids := make([]int, 0, len(text)/4+1)
	piece := func(s string, n int) {
		id, ok := approxIndex[strings.TrimPrefix(s, " ")]
		if !ok || n != 1 {
			h := fnv.New32a()
			h.Write([]byte(s))
			id = int(h.Sum32() % uint32(len(approxVocab)))
		}
		for range n {
			ids = append(ids, id)
		}
	}
	for i := 0; i < len(text); {
		start := i
		if text[i] == ' ' && i+1 < len(text) {
			if c, _ := classAt(text, i+1); c == clsLetter {
				i++ // a space before a word belongs to the word
			}
		}
		switch c, _ := classAt(text, i); c {
		case clsLetter:
			j := skipClass(text, i, clsLetter, 0)
			k := j - i
			switch {
			case !isASCII(text[i:j]):
				piece(text[start:j], ceilDiv(k, approxWideBytes))
			case k <= approxWordBytes:
				piece(text[start:j], 1)
			default:
				piece(text[start:j], ceilDiv(k, approxPieceBytes))
			}
			i = j
		case clsNumber:
			j := skipClass(text, i, clsNumber, 0)
			piece(text[i:j], ceilDiv(utf8.RuneCountInString(text[i:j]), approxDigits))
			i = j
		case clsOther:
			j := skipClass(text, i, clsOther, 0)
			piece(text[i:j], ceilDiv(utf8.RuneCountInString(text[i:j]), approxOtherRunes))
			i = j
		default:
			j := skipClass(text, i, clsSpace, 0)
			if strings.ContainsAny(text[i:j], "\r\n") {
				piece(text[i:j], 1)
			} else {
				piece(text[i:j], ceilDiv(utf8.RuneCountInString(text[i:j]), approxSpaceRunes))
			}
			i = j
		}
	}
	return ids
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Decode writes " word" for each id of the fixed list (ids outside it are
// skipped).
func (approx) Decode(ids []int) string {
	var sb strings.Builder
	for _, id := range ids {
		if id >= 0 && id < len(approxVocab) {
			sb.WriteByte(' ')
			sb.WriteString(approxVocab[id])
		}
	}
	return sb.String()
}

// VocabSize is the size of the fixed word list.
func (approx) VocabSize() int { return len(approxVocab) }

// Name is "approximate".
func (approx) Name() string { return "approximate" }

// Exact reports false: counts are estimates.
func (approx) Exact() bool { return false }
