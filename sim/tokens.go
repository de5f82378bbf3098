package sim

import (
	"hash/fnv"
	"math"
	"strings"
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

// tokenIDSpace is the size of the id space /tokenize draws from (Llama-3's vocabulary size).
const tokenIDSpace = 128256

// tokensPerWord is the approximation of prompt tokens per whitespace-separated word.
const tokensPerWord = 1.3

// chatMessageOverhead is the tokens a chat template adds per message (role
// header and end-of-turn markers).
const chatMessageOverhead = 4

// countTokens approximates the token count of text: ceil(1.3 × words),
// words being whitespace-separated runs.
func countTokens(text string) int {
	return int(math.Ceil(tokensPerWord * float64(countWords(text))))
}

func countWords(text string) int {
	n, in := 0, false
	for i := 0; i < len(text); i++ {
		space := text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r' || text[i] == '\v' || text[i] == '\f'
		if !space && !in {
			n++
		}
		in = !space
	}
	return n
}

// tokenIDs returns countTokens(text) deterministic ids: piece k of the
// text belongs to word k × words / count and its id is a hash of that word
// plus k. They are stable, not a real tokenizer's.
func tokenIDs(text string) []int {
	words := strings.Fields(text)
	n := countTokens(text)
	ids := make([]int, n)
	for k := range ids {
		ids[k] = (wordID(words[k*len(words)/n]) + k) % tokenIDSpace
	}
	return ids
}

// wordID is a stable id for a word.
func wordID(word string) int {
	h := fnv.New32a()
	h.Write([]byte(word))
	return int(h.Sum32() % tokenIDSpace)
}

// detokenize maps ids to vocabulary tokens: id i is vocabulary word
// i mod len(vocabulary). It inverts nothing; it gives /detokenize a stable answer.
func detokenize(ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(vocabTokens[((id%len(vocabTokens))+len(vocabTokens))%len(vocabTokens)])
	}
	return b.String()
}

// wordStream yields the generated words of one request: a small seeded
// generator (a 64-bit LCG) picking vocabulary tokens, without allocating.
type wordStream uint64

func (w *wordStream) next() string {
	*w = *w*6364136223846793005 + 1442695040888963407
	return vocabTokens[int(uint64(*w)>>33)%len(vocabTokens)]
}
