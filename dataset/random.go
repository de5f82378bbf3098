package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/llmload/llmload/tokenizer"
)

// Random generates synthetic prompts of chosen token lengths, following
// vLLM's RandomDataset.
type Random struct {
	// InputLen is the mean prompt length in tokens, special tokens included
	// (vLLM subtracts the tokenizer's special tokens before sampling).
	InputLen int
	// OutputLen is the mean output length in tokens.
	OutputLen int
	// RangeRatio r in [0, 1) spreads lengths uniformly over the integers in
	// [floor(L*(1-r)), ceil(L*(1+r))].
	RangeRatio float64
	// PrefixLen is the length of a random prefix shared by every prompt,
	// added to the sampled input length.
	PrefixLen int
	// NumPrompts is how many requests to generate.
	NumPrompts int
	// Seed seeds the generator (a PCG from math/rand/v2, not numpy's).
	Seed int64
	// Prefix, when set, puts the prompts in groups that share a prefix
	// (after PrefixLen's, before the sampled input), as vLLM's
	// prefix-repetition dataset does.
	Prefix *Prefix
}

// Prefix gives groups of prompts a shared random prefix, to test prefix
// caching, as vLLM's PrefixRepetitionRandomDataset does: Groups distinct
// prefixes of Len tokens (vLLM's num_prefixes and prefix_len), each shared
// by an equal share of the prompts, in a seeded random order.
type Prefix struct {
	Len    int
	Groups int
}

func (p *Prefix) validate(n int) error {
	switch {
	case p.Len < 1:
		return fmt.Errorf("prefix: shared_prefix_len must be at least 1, got %d", p.Len)
	case p.Groups < 1:
		return fmt.Errorf("prefix: num_prefixes must be at least 1, got %d", p.Groups)
	case n < p.Groups:
		// vLLM: num_requests must be greater than or equal to num_prefixes.
		return fmt.Errorf("prefix: %d prompts cannot fill %d prefix groups: num_prefixes must not exceed the number of prompts", n, p.Groups)
	}
	return nil
}

// assign returns the group of each of n prompts: the groups have equal
// sizes (the first n mod Groups one larger; vLLM drops that remainder
// instead) and come in a random order drawn from rng (vLLM shuffles its
// requests).
func (p *Prefix) assign(n int, rng *rand.Rand) []int {
	g := make([]int, n)
	for i := range g {
		g[i] = i % p.Groups
	}
	rng.Shuffle(n, func(i, j int) { g[i], g[j] = g[j], g[i] })
	return g
}

// prefixes draws the groups' prefixes.
func (p *Prefix) prefixes(m *promptMaker) [][]int {
	out := make([][]int, p.Groups)
	for g := range out {
		out[g] = m.randomIDs(p.Len)
	}
	return out
}

// DefaultRandom returns vLLM's defaults: 1024 input tokens, 128 output
// tokens, no spread, no prefix, 1000 prompts, seed 0.
func DefaultRandom() Random {
	return Random{InputLen: 1024, OutputLen: 128, NumPrompts: 1000}
}

// pcgStream is the PCG stream (its second seed word) for random prompts.
const pcgStream = 0x6c6c6d6c6f6164 // "llmload"

// maxAdjust bounds the decode/re-encode rounds spent on one prompt.
const maxAdjust = 50

func loadRandom(cfg Random, tok tokenizer.Tokenizer) ([]Request, Stats, error) {
	stats := Stats{Source: "random"}
	switch {
	case cfg.NumPrompts < 1:
		return nil, stats, fmt.Errorf("random: num_prompts must be at least 1, got %d", cfg.NumPrompts)
	case cfg.InputLen < 0 || cfg.PrefixLen < 0:
		return nil, stats, fmt.Errorf("random: input_len and prefix_len must not be negative")
	case cfg.OutputLen < 1:
		return nil, stats, fmt.Errorf("random: output_len must be at least 1, got %d", cfg.OutputLen)
	case !(cfg.RangeRatio >= 0 && cfg.RangeRatio < 1):
		return nil, stats, fmt.Errorf("random: range_ratio must be in [0, 1), got %v", cfg.RangeRatio)
	}
	if cfg.Prefix != nil {
		if err := cfg.Prefix.validate(cfg.NumPrompts); err != nil {
			return nil, stats, fmt.Errorf("random: %w", err)
		}
	}
	m, err := newPromptMaker(tok, cfg.Seed)
	if err != nil {
		return nil, stats, err
	}
	ids, numSpecial, rng, randomID := m.ids, m.numSpecial, m.rng, m.randomID

	r := cfg.RangeRatio
	realInput := max(0, cfg.InputLen-numSpecial)
	inLow := int(math.Floor(float64(realInput) * (1 - r)))
	inHigh := int(math.Ceil(float64(realInput) * (1 + r)))
	outLow := max(1, int(math.Floor(float64(cfg.OutputLen)*(1-r))))
	outHigh := max(1, int(math.Ceil(float64(cfg.OutputLen)*(1+r))))
	if cfg.PrefixLen+inLow < 1 {
		return nil, stats, fmt.Errorf("random: input_len %d is too small: with %d special tokens and range_ratio %v the shortest prompt would have no token besides them", cfg.InputLen, numSpecial, r)
	}

	prefix := m.randomIDs(cfg.PrefixLen)
	var groups []int
	var shared [][]int
	sharedLen := 0
	if p := cfg.Prefix; p != nil {
		shared = p.prefixes(m)
		groups = p.assign(cfg.NumPrompts, rng)
		sharedLen = p.Len
	}
	reqs := make([]Request, 0, cfg.NumPrompts)
	for i := range cfg.NumPrompts {
		inLen := inLow + rng.IntN(inHigh-inLow+1)
		outLen := outLow + rng.IntN(outHigh-outLow+1)
		offset := rng.IntN(ids.size())
		seq := make([]int, 0, cfg.PrefixLen+sharedLen+inLen)
		seq = append(seq, prefix...)
		if groups != nil {
			seq = append(seq, shared[groups[i]]...)
		}
		for k := range inLen {
			seq = append(seq, ids.at((offset+i+k)%ids.size()))
		}
		target := cfg.PrefixLen + sharedLen + inLen
		prompt, err := decodeToLength(tok, seq, target, randomID)
		if err != nil {
			return nil, stats, err
		}
		reqs = append(reqs, Request{
			Index: i, Prompt: prompt,
			PromptLen: target + numSpecial, OutputLen: outLen,
		})
		stats.Examined++
	}
	return reqs, stats, nil
}

// promptMaker builds prompts of exact token lengths out of random ids, for
// the random and trace sources.
type promptMaker struct {
	tok        tokenizer.Tokenizer
	ids        idSet
	numSpecial int // tokens the tokenizer adds with special tokens on
	rng        *rand.Rand
}

func newPromptMaker(tok tokenizer.Tokenizer, seed int64) (*promptMaker, error) {
	ids, err := vocabulary(tok)
	if err != nil {
		return nil, err
	}
	withSpecial, err := encode(tok, "", true)
	if err != nil {
		return nil, err
	}
	without, err := encode(tok, "", false)
	if err != nil {
		return nil, err
	}
	return &promptMaker{
		tok: tok, ids: ids, numSpecial: len(withSpecial) - len(without),
		rng: rand.New(rand.NewPCG(uint64(seed), pcgStream)),
	}, nil
}

func (m *promptMaker) randomID() int { return m.ids.at(m.rng.IntN(m.ids.size())) }

func (m *promptMaker) randomIDs(n int) []int {
	out := make([]int, n)
	for k := range out {
		out[k] = m.randomID()
	}
	return out
}

// build decodes seq into a prompt that re-encodes (without special
// tokens) to exactly target tokens.
func (m *promptMaker) build(seq []int, target int) (string, error) {
	return decodeToLength(m.tok, seq, target, m.randomID)
}

// idSet is the ids random prompts are made of: [0, n) or a list.
type idSet struct {
	n    int
	list []int
}

func (s idSet) size() int {
	if s.list != nil {
		return len(s.list)
	}
	return s.n
}

func (s idSet) at(k int) int {
	if s.list != nil {
		return s.list[k]
	}
	return k
}

// vocabulary returns the ids to draw from: the whole vocabulary or, for a
// tokenizer that does not know its size (the server's), the distinct ids of
// the approximation's word list as the tokenizer encodes it.
func vocabulary(tok tokenizer.Tokenizer) (idSet, error) {
	if n := tok.VocabSize(); n > 0 {
		return idSet{n: n}, nil
	}
	approx := tokenizer.Approximate()
	words := make([]int, approx.VocabSize())
	for i := range words {
		words[i] = i
	}
	enc, err := encode(tok, approx.Decode(words), false)
	if err != nil {
		return idSet{}, err
	}
	slices.Sort(enc)
	enc = slices.Compact(enc)
	if len(enc) == 0 {
		return idSet{}, fmt.Errorf("random: tokenizer %s has no vocabulary to draw from", tok.Name())
	}
	return idSet{list: enc}, nil
}

// decodeToLength decodes ids and re-encodes the text (without special
// tokens), trimming or extending with randomID until the text re-encodes to
// exactly target tokens, as vLLM's gen_prompt_decode_to_target_len does
// (vLLM gives up after 10 rounds and keeps a mismatch; this does not).
func decodeToLength(tok tokenizer.Tokenizer, ids []int, target int, randomID func() int) (string, error) {
	got := -1
	for range maxAdjust {
		text := tok.Decode(ids)
		enc, err := encode(tok, text, false)
		if err != nil {
			return "", err
		}
		got = len(enc)
		switch {
		case got == target:
			return text, nil
		case got > target:
			ids = enc[:target]
		default:
			ids = enc
			for len(ids) < target {
				ids = append(ids, randomID())
			}
		}
	}
	return "", fmt.Errorf("random: tokenizer %s: could not build a prompt that re-encodes to exactly %d tokens in %d rounds (last: %d)", tok.Name(), target, maxAdjust, got)
}
