package sim

import (
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/llmload/llmload/tokenizer"
)

// vocabulary holds the words the simulator generates. Each is sent with a
// leading space, and " "+word is a single token in the Llama-3 tokenizer,
// so a real tokenizer counts the generated text as the usage block does.
var vocabulary = strings.Fields(`the of and to in is that for it as was with be by on not he this are or
his from at which but have an they you were her she there been one all we their has would when if so no
will more can who out said what up its about into than them only some could time these two may first then
do any like my now over such our man me even most made after also did many before must through back years
where much your way well down should because each just those people how too little state good very make
world still own see men work long get here between both life being under never day same another know while
last might us great old year off come since against go came right used take three`)

// vocabTokens are the vocabulary words as JSON-safe token texts (" word").
var vocabTokens = func() []string {
	t := make([]string, len(vocabulary))
	for i, w := range vocabulary {
		t[i] = " " + w
	}
	return t
}()

// promptTokenizer counts and maps prompt tokens: llmload's approximate
// tokenizer, whose ids decode to text that encodes back to the same number
// of ids, so a client that builds prompts of an exact length through
// /tokenize and /detokenize (the random dataset with tokenizer = "server")
// gets what it asked for.
var promptTokenizer = tokenizer.Approximate()

// specialTokens are the chat template markers /tokenize frames each message
// with (Llama-3's): special token k has id promptTokenizer.VocabSize() + k,
// /detokenize writes it as its text, and a prompt that contains that text
// counts it as one token, as a real tokenizer counts its special tokens.
var specialTokens = []string{"<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"}

// The special token ids, right after the approximate tokenizer's words.
var (
	startHeaderID = promptTokenizer.VocabSize()
	endHeaderID   = startHeaderID + 1
	eotID         = startHeaderID + 2
)

// chatMessageOverhead is the tokens the chat template adds per message:
// start header, role, end header and end of turn.
const chatMessageOverhead = 4

// countTokens is the prompt token count of text.
func countTokens(text string) int {
	return len(tokenIDs(text))
}

// tokenIDs returns the prompt token ids of text (never nil): the
// approximate tokenizer's, special tokens aside.
func tokenIDs(text string) []int {
	ids := []int{}
	for {
		at, k := nextSpecial(text)
		if at < 0 {
			return append(ids, promptTokenizer.Encode(text, false)...)
		}
		ids = append(ids, promptTokenizer.Encode(text[:at], false)...)
		ids = append(ids, startHeaderID+k)
		text = text[at+len(specialTokens[k]):]
	}
}

// nextSpecial returns where the first special token in text starts and
// which it is, or -1.
func nextSpecial(text string) (at, k int) {
	for off := 0; ; {
		i := strings.Index(text[off:], "<|")
		if i < 0 {
			return -1, 0
		}
		off += i
		for j, s := range specialTokens {
			if strings.HasPrefix(text[off:], s) {
				return off, j
			}
		}
		off += len("<|")
	}
}

// wordID is a stable id for a chat role, inside the prompt tokenizer's
// vocabulary.
func wordID(word string) int {
	h := fnv.New32a()
	h.Write([]byte(word))
	return int(h.Sum32() % uint32(promptTokenizer.VocabSize()))
}

// detokenize is the text of prompt token ids, special tokens included;
// tokenIDs of it gives the same ids back. An id outside the vocabulary and the
// special tokens is an error.
func detokenize(ids []int) (string, error) {
	var b strings.Builder
	run := 0 // start of the current run of word ids
	for i, id := range ids {
		if id >= 0 && id < startHeaderID {
			continue
		}
		k := id - startHeaderID
		if k < 0 || k >= len(specialTokens) {
			return "", fmt.Errorf("token id %d at index %d is out of the vocabulary [0, %d)", id, i, startHeaderID+len(specialTokens))
		}
		b.WriteString(promptTokenizer.Decode(ids[run:i]))
		b.WriteString(specialTokens[k])
		run = i + 1
	}
	b.WriteString(promptTokenizer.Decode(ids[run:]))
	return b.String(), nil
}

// wordStream yields the generated words of one request: a small seeded
// generator (a 64-bit LCG) picking vocabulary tokens, without allocating.
// An output fault (FaultKindRepeatToken, FaultKindGarbage) changes what
// it yields, not how many.
type wordStream struct {
	state uint64
	fault string
	first string // the repeated word
}

// garbageTokens are what a broken engine streams: byte fragments that are
// not UTF-8, and replacement characters. Each is safe inside a JSON string
// as written.
var garbageTokens = []string{" \xff\xfe", "\xc3", " \ufffd\ufffd", "\xe2\x80", " \ufffd"}

func (w *wordStream) next() string {
	w.state = w.state*6364136223846793005 + 1442695040888963407
	i := int(w.state >> 33)
	switch w.fault {
	case FaultKindRepeatToken:
		if w.first == "" {
			w.first = vocabTokens[i%len(vocabTokens)]
		}
		return w.first
	case FaultKindGarbage:
		// A fragment and a word: broken text, but not a loop of a few
		// strings (which the output checks would call degenerate too).
		return garbageTokens[i%len(garbageTokens)] + vocabTokens[(i/len(garbageTokens))%len(vocabTokens)]
	}
	return vocabTokens[i%len(vocabTokens)]
}

// splitMix is SplitMix64 as a math/rand source: a cheap generator seeded
// per request for deterministic answers.
type splitMix struct{ state uint64 }

func (s *splitMix) Uint64() uint64 {
	s.state += 0x9e3779b97f4a7c15
	z := s.state
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (s *splitMix) Int63() int64 { return int64(s.Uint64() >> 1) }

func (s *splitMix) Seed(seed int64) { s.state = uint64(seed) }
