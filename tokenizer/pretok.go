package tokenizer

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
	"github.com/tidwall/gjson"
)

// A splitter appends the pieces of s to dst. first is true for the first
// piece of the input (Metaspace's prepend_scheme "first" needs it).
type splitter func(dst []string, s string, first bool) []string

// The split patterns with a hand-written scanner: GPT-4's cl100k pattern
// (also Llama-3's), Qwen2/Qwen3's variant with single digits, and GPT-2's
// (ByteLevel's use_regex). Anything else runs on regexp2.
const (
	patternGPT4 = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	patternQwen = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	patternGPT2 = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
)

// splitBehavior is what a Split pre-tokenizer does with the matches of its
// pattern (tokenizers' SplitDelimiterBehavior).
type splitBehavior int

const (
	splitIsolated           splitBehavior = iota // matches and the text between them are pieces
	splitRemoved                                 // matches are dropped
	splitMergedWithPrevious                      // a match joins the piece before it
	splitMergedWithNext                          // a match joins the piece after it
	splitContiguous                              // consecutive matches form one piece
)

var splitBehaviors = map[string]splitBehavior{
	"Isolated": splitIsolated, "Removed": splitRemoved, "MergedWithPrevious": splitMergedWithPrevious,
	"MergedWithNext": splitMergedWithNext, "Contiguous": splitContiguous,
}

// span is a stretch of the text, a match of the pattern or not.
type span struct {
	start, end int
	match      bool
}

// regexSplitter returns a splitter for a Split pre-tokenizer's regex.
func regexSplitter(pattern string, behavior splitBehavior, invert bool) (splitter, error) {
	if behavior == splitIsolated && !invert {
		switch pattern {
		case patternGPT4:
			return scanSplitter(func(s string, i int) int { return matchGPT4(s, i, 3) }), nil
		case patternQwen:
			return scanSplitter(func(s string, i int) int { return matchGPT4(s, i, 1) }), nil
		case patternGPT2:
			return scanSplitter(matchGPT2), nil
		}
	}
	re, err := regexp2.Compile(pattern, regexp2.Unicode)
	if err != nil {
		return nil, fmt.Errorf("split regex %q: %v", pattern, err)
	}
	return func(dst []string, s string, _ bool) []string {
		return splitSpans(dst, s, regexpSpans(re, s), behavior, invert)
	}, nil
}

// scanSplitter turns a matcher (which returns the end of the match starting
// at i; the patterns it serves match at every position) into a splitter.
func scanSplitter(match func(s string, i int) int) splitter {
	return func(dst []string, s string, _ bool) []string {
		for i := 0; i < len(s); {
			j := match(s, i)
			dst = append(dst, s[i:j])
			i = j
		}
		return dst
	}
}

// regexpSpans cuts s into matches of re (found with regexp2, which counts in
// runes) and the stretches between them.
func regexpSpans(re *regexp2.Regexp, s string) []span {
	if s == "" {
		return nil
	}
	runes := make([]rune, 0, len(s))
	offs := make([]int, 0, len(s)+1)
	for i, r := range s {
		runes = append(runes, r)
		offs = append(offs, i)
	}
	offs = append(offs, len(s))
	var spans []span
	last := 0
	m, err := re.FindRunesMatch(runes)
	for ; m != nil && err == nil; m, err = re.FindNextMatch(m) {
		start, end := offs[m.Index], offs[m.Index+m.Length]
		if start == end {
			continue
		}
		if start > last {
			spans = append(spans, span{last, start, false})
		}
		spans = append(spans, span{start, end, true})
		last = end
	}
	if last < len(s) {
		spans = append(spans, span{last, len(s), false})
	}
	return spans
}

// splitSpans appends the pieces of s that behavior makes of spans, as
// tokenizers' NormalizedString.split does.
func splitSpans(dst []string, s string, spans []span, behavior splitBehavior, invert bool) []string {
	if invert {
		for i := range spans {
			spans[i].match = !spans[i].match
		}
	}
	var out []span
	prevMatch := false
	switch behavior {
	case splitIsolated:
		out = spans
	case splitRemoved:
		for _, sp := range spans {
			if !sp.match {
				out = append(out, sp)
			}
		}
	case splitMergedWithPrevious:
		for _, sp := range spans {
			if sp.match && !prevMatch && len(out) > 0 {
				out[len(out)-1].end = sp.end
			} else {
				out = append(out, sp)
			}
			prevMatch = sp.match
		}
	case splitMergedWithNext:
		for i := len(spans) - 1; i >= 0; i-- {
			sp := spans[i]
			if sp.match && !prevMatch && len(out) > 0 {
				out[len(out)-1].start = sp.start
			} else {
				out = append(out, sp)
			}
			prevMatch = sp.match
		}
		slices.Reverse(out)
	case splitContiguous:
		for _, sp := range spans {
			if sp.match == prevMatch && len(out) > 0 {
				out[len(out)-1].end = sp.end
			} else {
				out = append(out, sp)
			}
			prevMatch = sp.match
		}
	}
	for _, sp := range out {
		if sp.end > sp.start {
			dst = append(dst, s[sp.start:sp.end])
		}
	}
	return dst
}

// Character classes of the split patterns.
const (
	clsOther = iota // [^\s\p{L}\p{N}]
	clsLetter
	clsNumber
	clsSpace
)

var asciiClass [utf8.RuneSelf]uint8

func init() {
	for c := 0; c < utf8.RuneSelf; c++ {
		asciiClass[c] = classOf(rune(c))
	}
}

func classOf(r rune) uint8 {
	switch {
	case unicode.IsLetter(r):
		return clsLetter
	case unicode.IsNumber(r):
		return clsNumber
	case unicode.IsSpace(r):
		return clsSpace
	}
	return clsOther
}

// runeAt decodes the rune at s[i] with its class and width.
func runeAt(s string, i int) (rune, uint8, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), asciiClass[c], 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return r, classOf(r), n
}

// classAt is the class of the rune at s[i] (i < len(s)) and its width.
func classAt(s string, i int) (uint8, int) {
	_, c, n := runeAt(s, i)
	return c, n
}

// skipClass returns the end of the run of class c starting at i, taking at
// most max runes (max <= 0: no limit).
func skipClass(s string, i int, c uint8, max int) int {
	for k := 0; i < len(s) && (max <= 0 || k < max); k++ {
		cc, n := classAt(s, i)
		if cc != c {
			break
		}
		i += n
	}
	return i
}

// contraction returns the length of 's 't 're 've 'm 'll 'd after the
// apostrophe at the start of s (0 if none); fold makes it ASCII
// case-insensitive.
func contraction(s string, fold bool) int {
	lower := func(i int) byte {
		if i >= len(s) {
			return 0
		}
		c := s[i]
		if fold && c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		return c
	}
	switch lower(1) {
	case 's', 't', 'm', 'd':
		return 2
	case 'r', 'v':
		if lower(2) == 'e' {
			return 3
		}
	case 'l':
		if lower(2) == 'l' {
			return 3
		}
	}
	return 0
}

// matchGPT4 returns the end of patternGPT4's match at i (maxDigits 3) or
// patternQwen's (maxDigits 1):
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//	 ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
func matchGPT4(s string, i, maxDigits int) int {
	r, c, n := runeAt(s, i)
	if r == '\'' {
		if l := contraction(s[i:], true); l > 0 {
			return i + l
		}
	}
	switch c {
	case clsLetter:
		return skipClass(s, i, clsLetter, 0)
	case clsNumber:
		return skipClass(s, i, clsNumber, maxDigits)
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+ with the optional character present.
	if r != '\r' && r != '\n' && i+n < len(s) {
		if c2, _ := classAt(s, i+n); c2 == clsLetter {
			return skipClass(s, i+n, clsLetter, 0)
		}
	}
	// ` ?[^\s\p{L}\p{N}]+[\r\n]*`
	start := -1
	if c == clsOther {
		start = i
	} else if r == ' ' && i+1 < len(s) {
		if c2, _ := classAt(s, i+1); c2 == clsOther {
			start = i + 1
		}
	}
	if start >= 0 {
		j := skipClass(s, start, clsOther, 0)
		for j < len(s) && (s[j] == '\r' || s[j] == '\n') {
			j++
		}
		return j
	}
	return matchSpaces(s, i, true)
}

// matchSpaces ends the whitespace alternatives at i: `\s*[\r\n]+` (when
// newlines is set), `\s+(?!\S)` and `\s+`.
func matchSpaces(s string, i int, newlines bool) int {
	j := skipClass(s, i, clsSpace, 0)
	if newlines {
		// \r and \n are single bytes and never continuation bytes.
		for k := j - 1; k >= i; k-- {
			if s[k] == '\r' || s[k] == '\n' {
				return k + 1
			}
		}
	}
	if j == len(s) {
		return j
	}
	_, last := utf8.DecodeLastRuneInString(s[i:j])
	if j-last > i {
		return j - last
	}
	return j
}

// matchGPT2 returns the end of patternGPT2's match at i:
//
//	's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
func matchGPT2(s string, i int) int {
	r, c, _ := runeAt(s, i)
	if r == '\'' {
		if l := contraction(s[i:], false); l > 0 {
			return i + l
		}
	}
	if c != clsSpace {
		return skipClass(s, i, c, 0)
	}
	if r == ' ' && i+1 < len(s) {
		if c2, _ := classAt(s, i+1); c2 != clsSpace {
			return skipClass(s, i+1, c2, 0)
		}
	}
	return matchSpaces(s, i, false)
}

// stringSplitter splits on every occurrence of the literal sep.
func stringSplitter(sep string, behavior splitBehavior, invert bool) splitter {
	return func(dst []string, s string, _ bool) []string {
		var spans []span
		last := 0
		for sep != "" {
			k := strings.Index(s[last:], sep)
			if k < 0 {
				break
			}
			if k > 0 {
				spans = append(spans, span{last, last + k, false})
			}
			spans = append(spans, span{last + k, last + k + len(sep), true})
			last += k + len(sep)
		}
		if last < len(s) {
			spans = append(spans, span{last, len(s), false})
		}
		return splitSpans(dst, s, spans, behavior, invert)
	}
}

// byteLevelSplitter is the ByteLevel pre-tokenizer; the byte-to-character
// mapping itself happens in the vocabulary (see unByteLevel).
func byteLevelSplitter(addPrefixSpace, useRegex bool) splitter {
	return func(dst []string, s string, _ bool) []string {
		if addPrefixSpace && !strings.HasPrefix(s, " ") {
			s = " " + s
		}
		if !useRegex {
			return append(dst, s)
		}
		for i := 0; i < len(s); {
			j := matchGPT2(s, i)
			dst = append(dst, s[i:j])
			i = j
		}
		return dst
	}
}

// metaspaceSplitter replaces spaces by the replacement character, prepends
// one per scheme ("always", "first", "never") and optionally splits before
// each replacement character.
func metaspaceSplitter(replacement rune, scheme string, split bool) splitter {
	rep := string(replacement)
	return func(dst []string, s string, first bool) []string {
		s = strings.ReplaceAll(s, " ", rep)
		if (scheme == "always" || scheme == "first" && first) && !strings.HasPrefix(s, rep) {
			s = rep + s
		}
		if !split {
			return append(dst, s)
		}
		for s != "" {
			k := strings.Index(s[1:], rep)
			if k < 0 {
				break
			}
			dst = append(dst, s[:k+1])
			s = s[k+1:]
		}
		if s != "" {
			dst = append(dst, s)
		}
		return dst
	}
}

// digitsSplitter isolates digits, one by one or in runs.
func digitsSplitter(individual bool) splitter {
	return func(dst []string, s string, _ bool) []string {
		start := 0
		for i := 0; i < len(s); {
			_, c, n := runeAt(s, i)
			if c != clsNumber {
				i += n
				continue
			}
			if i > start {
				dst = append(dst, s[start:i])
			}
			j := i + n
			if !individual {
				j = skipClass(s, i, clsNumber, 0)
			}
			dst = append(dst, s[i:j])
			i, start = j, j
		}
		if start < len(s) {
			dst = append(dst, s[start:])
		}
		return dst
	}
}

// parsePreTokenizer builds the splitters of a tokenizer.json
// "pre_tokenizer" and sets byteLevel when it has a ByteLevel step.
func parsePreTokenizer(j gjson.Result, byteLevel *bool) ([]splitter, error) {
	if !j.Exists() || j.Type == gjson.Null {
		return nil, nil
	}
	switch typ := j.Get("type").String(); typ {
	case "Sequence":
		var out []splitter
		for _, sub := range j.Get("pretokenizers").Array() {
			s, err := parsePreTokenizer(sub, byteLevel)
			if err != nil {
				return nil, err
			}
			out = append(out, s...)
		}
		return out, nil
	case "Split":
		invert := j.Get("invert").Bool()
		behavior, ok := splitBehaviors[j.Get("behavior").String()]
		if !ok {
			return nil, fmt.Errorf("unsupported pre_tokenizer Split behavior %q", j.Get("behavior").String())
		}
		if p := j.Get("pattern.String"); p.Exists() {
			return []splitter{stringSplitter(p.String(), behavior, invert)}, nil
		}
		p := j.Get("pattern.Regex")
		if !p.Exists() {
			return nil, errors.New("pre_tokenizer Split has no String or Regex pattern")
		}
		s, err := regexSplitter(p.String(), behavior, invert)
		if err != nil {
			return nil, fmt.Errorf("pre_tokenizer %w", err)
		}
		return []splitter{s}, nil
	case "ByteLevel":
		*byteLevel = true
		useRegex := true
		if u := j.Get("use_regex"); u.Exists() {
			useRegex = u.Bool()
		}
		return []splitter{byteLevelSplitter(j.Get("add_prefix_space").Bool(), useRegex)}, nil
	case "Metaspace":
		rep, scheme := metaspaceOptions(j)
		split := true
		if s := j.Get("split"); s.Exists() {
			split = s.Bool()
		}
		return []splitter{metaspaceSplitter(rep, scheme, split)}, nil
	case "Digits":
		return []splitter{digitsSplitter(j.Get("individual_digits").Bool())}, nil
	default:
		return nil, fmt.Errorf("unsupported pre_tokenizer type %q", typ)
	}
}
