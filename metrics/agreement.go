package metrics

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Agreement is how a run's answers agree with a baseline's, prompt by
// prompt: with deterministic sampling (temperature 0, or a seed) the same
// prompts must give the same answers across an engine or model upgrade,
// up to numerical noise. Answers are paired by prompt (dataset index and,
// in a session, turn); each side's first answer to a prompt counts.
// Counts and sums, so that merged parts add up.
type Agreement struct {
	// Against names what was compared with: "the baseline arm" of an A/B
	// run, or a stored baseline result's path.
	Against string `json:"against"`
	// Pairs is how many prompts both sides answered (completed).
	Pairs int `json:"pairs"`
	// Exact is how many of the pairs were answered byte for byte alike
	// (by the hash of the generated text).
	Exact int `json:"exact"`
	// Scored is how many pairs have a prefix and similarity score: those
	// whose texts both sides kept (the first requests: outputs keep, or
	// the A/B arms' first answers).
	Scored int `json:"scored"`
	// PrefixSum adds up, over Scored, the share of the longer answer's
	// characters before the first divergence; SimilaritySum the answers'
	// similarity (AnswerSimilarity).
	PrefixSum     float64 `json:"prefix_sum"`
	SimilaritySum float64 `json:"similarity_sum"`
	// Sampled says the requests sampled (temperature above 0 and no
	// seed): answers are not expected to agree and no figure is given.
	Sampled bool `json:"sampled,omitempty"`
	// Divergences are the first scored pairs that differ (by prompt, at
	// most MaxDivergences), each cut around its first divergence, for
	// the reports to show what changed.
	Divergences []Divergence `json:"divergences,omitempty"`
}

// MaxDivergences is how many differing answers an agreement keeps to show.
const MaxDivergences = 20

// divergenceContext is how many characters a Divergence keeps on each side
// of the first difference.
const divergenceContext = 80

// Divergence is one prompt answered differently: where the answers first
// differ and a little of each around it.
type Divergence struct {
	Index int `json:"dataset_index"`
	Turn  int `json:"turn,omitempty"`
	// At is the first differing character (from 0), in the scrubbed texts.
	At int `json:"at"`
	// Before is up to divergenceContext characters both answers share
	// just before At; Base and Candidate are up to divergenceContext
	// characters of each from At on. Cut says Before does not reach the
	// answers' start.
	Before    string `json:"before"`
	Base      string `json:"base"`
	Candidate string `json:"candidate"`
	Cut       bool   `json:"cut,omitempty"`
}

// NewDivergence cuts two differing answers around their first difference.
func NewDivergence(key AnswerKey, base, cand string) Divergence {
	b, c := []rune(base), []rune(cand)
	at := 0
	for at < len(b) && at < len(c) && b[at] == c[at] {
		at++
	}
	from := max(0, at-divergenceContext)
	return Divergence{Index: key.Index, Turn: key.Turn, At: at, Before: string(b[from:at]), Cut: from > 0,
		Base: string(b[at:min(len(b), at+divergenceContext)]), Candidate: string(c[at:min(len(c), at+divergenceContext)])}
}

// addDivergences keeps the first MaxDivergences by prompt.
func (a *Agreement) addDivergences(ds ...Divergence) {
	a.Divergences = append(a.Divergences, ds...)
	slices.SortFunc(a.Divergences, func(x, y Divergence) int {
		return cmp.Or(cmp.Compare(x.Index, y.Index), cmp.Compare(x.Turn, y.Turn))
	})
	if len(a.Divergences) > MaxDivergences {
		a.Divergences = slices.Clip(a.Divergences[:MaxDivergences])
	}
}

// ExactMatch is the share of paired prompts answered alike (NaN with no
// pair, or when the requests sampled).
func (a *Agreement) ExactMatch() float64 {
	if a == nil || a.Pairs == 0 || a.Sampled {
		return math.NaN()
	}
	return float64(a.Exact) / float64(a.Pairs)
}

// ExactMatchInterval is ExactMatch's Wilson score interval at
// DefaultConfidence: the share of prompts a repeat over other prompts of
// the same kind would answer alike.
func (a *Agreement) ExactMatchInterval() (lo, hi float64) {
	if math.IsNaN(a.ExactMatch()) {
		return math.NaN(), math.NaN()
	}
	return Wilson(a.Exact, a.Pairs, DefaultConfidence)
}

// AgreementFigures are the agreement figures of the catalogue.
var AgreementFigures = []string{"exact_match", "prefix_agreement", "answer_similarity"}

// IsAgreement reports whether metric is an agreement figure: a figure of
// the candidate against its baseline, whose baseline value is 1 (a run
// agrees with itself).
func IsAgreement(metric string) bool {
	for _, f := range AgreementFigures {
		if f == metric {
			return true
		}
	}
	return false
}

// Figure returns an agreement figure (exact_match, prefix_agreement or
// answer_similarity), its interval at confidence conf and the pairs it
// rests on; ok is false when the figure is null (no pair scored, or the
// requests sampled).
//
// exact_match's interval is the Wilson score interval of a proportion.
// The other two are means of scores between 0 and 1; their interval is
// the Wilson interval at the mean over the scored pairs, which is
// conservative: a score between 0 and 1 with mean p has a variance of at
// most p(1-p), the variance of a proportion.
func (a *Agreement) Figure(metric string, conf float64) (v, lo, hi float64, n int, ok bool) {
	switch metric {
	case "exact_match":
		v, n = a.ExactMatch(), 0
		if a != nil {
			n = a.Pairs
		}
	case "prefix_agreement":
		v = a.PrefixAgreement()
	case "answer_similarity":
		v = a.Similarity()
	default:
		return math.NaN(), math.NaN(), math.NaN(), 0, false
	}
	if math.IsNaN(v) {
		return v, math.NaN(), math.NaN(), 0, false
	}
	if metric != "exact_match" {
		n = a.Scored
	}
	lo, hi = wilsonAt(v, n, conf)
	return v, lo, hi, n, true
}

// PrefixAgreement is the mean share of an answer that agrees with the
// baseline's before they first differ, over the scored pairs: it
// tolerates the late divergence of an engine that is not batch-invariant
// (NaN with none scored, or when the requests sampled).
func (a *Agreement) PrefixAgreement() float64 {
	if a == nil || a.Scored == 0 || a.Sampled {
		return math.NaN()
	}
	return a.PrefixSum / float64(a.Scored)
}

// Similarity is the mean AnswerSimilarity over the scored pairs (NaN with
// none scored, or when the requests sampled).
func (a *Agreement) Similarity() float64 {
	if a == nil || a.Scored == 0 || a.Sampled {
		return math.NaN()
	}
	return a.SimilaritySum / float64(a.Scored)
}

// Add adds another part's agreement (a merge).
func (a *Agreement) Add(b *Agreement) {
	if a.Against != b.Against {
		a.Against = "several baselines"
	}
	a.Pairs += b.Pairs
	a.Exact += b.Exact
	a.Scored += b.Scored
	a.PrefixSum += b.PrefixSum
	a.SimilaritySum += b.SimilaritySum
	a.Sampled = a.Sampled || b.Sampled
	a.addDivergences(b.Divergences...)
}

// Wilson is the Wilson score interval of a proportion, k of n, at
// confidence conf (0 < conf < 1); [0, 1] for n = 0.
func Wilson(k, n int, conf float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	return wilsonAt(float64(k)/float64(n), n, conf)
}

// wilsonAt is the Wilson score interval at the observed share p of n.
func wilsonAt(p float64, n int, conf float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	z := normalQuantile(1 - (1-conf)/2)
	nf := float64(n)
	defer func() {
		// All alike (or none) bounds the interval at 1 (or 0) exactly,
		// not a rounding error away, which would read as a change.
		if p >= 1 {
			hi = 1
		}
		if p <= 0 {
			lo = 0
		}
	}()
	den := 1 + z*z/nf
	mid := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return max(0, mid-half), min(1, mid+half)
}

// normalQuantile is the standard normal quantile of p (0 < p < 1).
func normalQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }

// AnswerKey pairs answers across runs and arms: the prompt's dataset
// index and, in a session, the turn.
type AnswerKey struct{ Index, Turn int }

// answer is one side's answer to a prompt: its text's hash and, when it
// was kept, its text.
type answer struct {
	hash    uint64
	text    string
	hasText bool
}

// maxBookTexts is how many answers' texts a book keeps at most (the rest
// are paired by hash alone): memory stays bounded, at about 1,000 answers
// of a few KiB each.
const maxBookTexts = 1000

// maxBookAnswers bounds a book's answers (16 bytes and a key each): a
// dataset larger than this is paired on its first prompts.
const maxBookAnswers = 1 << 20

// AnswerBook holds one side's answers by prompt, the first answer to each.
// Safe for concurrent use.
type AnswerBook struct {
	mu      sync.Mutex
	answers map[AnswerKey]answer
	texts   int
}

// NewAnswerBook returns an empty book.
func NewAnswerBook() *AnswerBook { return &AnswerBook{answers: map[AnswerKey]answer{}} }

// Add records r's answer when it completed with output, under its prompt,
// unless the prompt has an answer already. Its generated text is kept
// when the request carries it (GeneratedText), for the first
// maxBookTexts answers.
func (b *AnswerBook) Add(r *Request) {
	if !r.OK() || r.OutputEvents == 0 || r.Warmup || r.DatasetIndex < 0 || r.ToolRound > 0 || r.SubAgent > 0 {
		return
	}
	b.Put(AnswerKey{r.DatasetIndex, r.Turn}, r.OutputHash, r.GeneratedText, r.GeneratedText != "")
}

// Put records an answer to key (the first one counts).
func (b *AnswerBook) Put(key AnswerKey, hash uint64, text string, hasText bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.answers[key]; ok || len(b.answers) >= maxBookAnswers {
		return
	}
	a := answer{hash: hash}
	if hasText && b.texts < maxBookTexts {
		a.text, a.hasText = text, true
		b.texts++
	}
	b.answers[key] = a
}

// Len is how many prompts the book has an answer to.
func (b *AnswerBook) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.answers)
}

// Agree pairs the candidate's answers with the baseline's by prompt and
// scores them. against names the baseline. scrub, when not nil, is applied
// to both texts of a differing pair before it is kept as a Divergence
// (the secrets rules: a secret cut in two would escape a scrub of the
// pieces).
func Agree(base, cand *AnswerBook, against string, scrub func(string) string) *Agreement {
	base.mu.Lock()
	defer base.mu.Unlock()
	cand.mu.Lock()
	defer cand.mu.Unlock()
	a := &Agreement{Against: against}
	var diverged []AnswerKey
	for k, c := range cand.answers {
		b, ok := base.answers[k]
		if !ok {
			continue
		}
		a.Pairs++
		if b.hash == c.hash {
			a.Exact++
		}
		// Scored only where both texts were kept, alike or not: scoring
		// the alike pairs without text would lift the mean above what
		// the pairs with text show.
		if b.hasText && c.hasText {
			a.Scored++
			if b.hash == c.hash {
				a.PrefixSum++
				a.SimilaritySum++
			} else {
				a.PrefixSum += PrefixShare(b.text, c.text)
				a.SimilaritySum += AnswerSimilarity(b.text, c.text)
				diverged = append(diverged, k)
			}
		}
	}
	// The first differing prompts, in order, so that a run shows the same
	// ones each time.
	slices.SortFunc(diverged, func(x, y AnswerKey) int { return cmp.Or(cmp.Compare(x.Index, y.Index), cmp.Compare(x.Turn, y.Turn)) })
	for _, k := range diverged {
		if len(a.Divergences) == MaxDivergences {
			break
		}
		bt, ct := base.answers[k].text, cand.answers[k].text
		if scrub != nil {
			bt, ct = scrub(bt), scrub(ct)
		}
		if bt == ct {
			// They differ only in a secret: nothing to show.
			continue
		}
		a.Divergences = append(a.Divergences, NewDivergence(k, bt, ct))
	}
	return a
}

// PrefixShare is the share of the longer of two texts' characters that
// come before they first differ: 1 for equal texts (two empty ones
// included), 0 when they differ from the first character.
func PrefixShare(a, b string) float64 {
	n := max(utf8.RuneCountInString(a), utf8.RuneCountInString(b))
	if n == 0 {
		return 1
	}
	common := 0
	for a != "" && b != "" {
		ra, sa := utf8.DecodeRuneInString(a)
		rb, sb := utf8.DecodeRuneInString(b)
		if ra != rb || sa != sb {
			break
		}
		common++
		a, b = a[sa:], b[sb:]
	}
	return float64(common) / float64(n)
}

// AnswerSimilarity is the Dice coefficient of two texts' word bigrams
// (words split at white space; a text of one word counts that word): 1
// for the same words in the same order, 0 for no bigram in common. It
// tolerates a divergence that rejoins (a changed word) where PrefixShare
// does not, and costs time linear in the texts.
func AnswerSimilarity(a, b string) float64 {
	ga, gb := bigrams(a), bigrams(b)
	total := 0
	for _, n := range ga {
		total += n
	}
	for _, n := range gb {
		total += n
	}
	if total == 0 {
		return 1
	}
	common := 0
	for g, n := range ga {
		common += min(n, gb[g])
	}
	return 2 * float64(common) / float64(total)
}

func bigrams(s string) map[string]int {
	words := strings.Fields(s)
	out := map[string]int{}
	if len(words) == 1 {
		out[words[0]]++
	}
	for i := 1; i < len(words); i++ {
		out[words[i-1]+" "+words[i]]++
	}
	return out
}
