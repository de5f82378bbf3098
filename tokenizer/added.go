package tokenizer

import (
	"strings"
	"unicode"
)

// An addedToken is an entry of tokenizer.json's "added_tokens".
type addedToken struct {
	content    string
	id         int
	special    bool
	lstrip     bool
	rstrip     bool
	singleWord bool
	normalized bool
}

// addedMatcher finds added tokens in text, leftmost first and longest first
// at the same position, as Hugging Face's aho-corasick (LeftmostLongest) does.
type addedMatcher struct {
	byFirst [256][]addedToken // longest content first
}

func newAddedMatcher(tokens []addedToken) *addedMatcher {
	m := &addedMatcher{}
	n := 0
	for _, t := range tokens {
		if t.content == "" {
			continue
		}
		b := t.content[0]
		m.byFirst[b] = append(m.byFirst[b], t)
		n++
	}
	if n == 0 {
		return nil
	}
	for b := range m.byFirst {
		l := m.byFirst[b]
		// Stable insertion sort by length, longest first.
		for i := 1; i < len(l); i++ {
			for j := i; j > 0 && len(l[j].content) > len(l[j-1].content); j-- {
				l[j], l[j-1] = l[j-1], l[j]
			}
		}
	}
	return m
}

// split calls text for each stretch of s without added tokens and token for
// each added token, in order. A nil matcher passes s through whole.
func (m *addedMatcher) split(s string, text func(string), token func(id int)) {
	if m == nil {
		if s != "" {
			text(s)
		}
		return
	}
	last, stopPrev := 0, 0
	for i := 0; i < len(s); {
		var tok *addedToken
		for k := range m.byFirst[s[i]] {
			if strings.HasPrefix(s[i:], m.byFirst[s[i]][k].content) {
				tok = &m.byFirst[s[i]][k]
				break
			}
		}
		if tok == nil {
			i++
			continue
		}
		start, stop := i, i+len(tok.content)
		if tok.singleWord && (endsWithWordChar(s[:start]) || startsWithWordChar(s[stop:])) {
			i = stop
			continue
		}
		if tok.lstrip {
			start = max(len(strings.TrimRightFunc(s[:start], isWhitespace)), stopPrev)
		}
		if tok.rstrip {
			stop = len(s) - len(strings.TrimLeftFunc(s[stop:], isWhitespace))
		}
		if start > last {
			text(s[last:start])
		}
		token(tok.id)
		last, stopPrev, i = stop, stop, stop
	}
	if last < len(s) {
		text(s[last:])
	}
}

func isWhitespace(r rune) bool { return unicode.IsSpace(r) }

// isWordChar is Rust's regex \w, which single_word checks next to a match.
func isWordChar(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r) || unicode.Is(unicode.Pc, r)
}

func endsWithWordChar(s string) bool {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] < 0x80 || s[i] >= 0xC0 {
			r := []rune(s[i:])
			return len(r) > 0 && isWordChar(r[0])
		}
	}
	return false
}

func startsWithWordChar(s string) bool {
	for _, r := range s {
		return isWordChar(r)
	}
	return false
}
