package tokenizer

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// bpe is a byte-pair-encoding model: vocabulary, ranked merges and the
// options of Hugging Face's BPE model.
type bpe struct {
	vocab        *vocabulary    // model-space tokens (raw bytes when byte-level)
	runeIDs      map[rune]int32 // single-character tokens (not byte-level)
	asciiIDs     [utf8.RuneSelf]int32
	byteIDs      [256]int32 // byte-level: the byte's token; byte_fallback: <0xXX>
	merges       *table     // left<<32|right -> rank<<32|merged
	byteLevel    bool
	byteFallback bool
	ignoreMerges bool
	fuseUnk      bool
	unk          int32 // -1: none
	// splitMeta is set when no token of a SentencePiece-style vocabulary
	// holds another character followed by "▁": then no merge crosses such a
	// place, and words can be encoded in parts split before each "▁" that
	// follows another character, with the same result.
	splitMeta bool

	mu    sync.Mutex
	cache map[string][]int32
}

const metaspace = "▁"

const (
	cacheMaxEntries = 1 << 17
	cacheMaxWordLen = 256
)

// symbol is one piece of a word during merging, in a linked list.
type symbol struct {
	id         int32
	prev, next int32
}

// candidate is a possible merge of the symbol at pos with its next one.
type candidate struct {
	key         uint64 // rank<<32 | pos: smallest rank first, then leftmost
	left, right int32
	merged      int32
}

// workspace holds the buffers one Encode call reuses.
type workspace struct {
	syms  []symbol
	heap  []candidate
	out   []int32
	words [2][]string
}

var workspaces = sync.Pool{New: func() any { return new(workspace) }}

// encodeWord appends the ids of one pre-tokenized word.
func (m *bpe) encodeWord(ws *workspace, ids []int, w string) []int {
	if m.ignoreMerges {
		if id, ok := m.vocab.lookup(w); ok {
			return append(ids, int(id))
		}
	}
	if len(w) < cacheMaxWordLen {
		m.mu.Lock()
		cached, ok := m.cache[w]
		m.mu.Unlock()
		if ok {
			for _, id := range cached {
				ids = append(ids, int(id))
			}
			return ids
		}
	}
	out := m.merge(ws, w)
	if len(w) < cacheMaxWordLen {
		m.mu.Lock()
		if len(m.cache) >= cacheMaxEntries {
			clear(m.cache)
		}
		m.cache[strings.Clone(w)] = append([]int32(nil), out...)
		m.mu.Unlock()
	}
	for _, id := range out {
		ids = append(ids, int(id))
	}
	return ids
}

// initial splits w into its first symbols: bytes (byte-level) or characters,
// with byte fallback and unknown-token fusing.
func (m *bpe) initial(ws *workspace, w string) {
	syms := ws.syms[:0]
	add := func(id int32) {
		n := int32(len(syms))
		syms = append(syms, symbol{id: id, prev: n - 1, next: n + 1})
	}
	if m.byteLevel {
		for i := 0; i < len(w); i++ {
			add(m.byteIDs[w[i]])
		}
	} else {
		lastUnk := false
		for i, r := range w {
			id, ok := int32(-1), false
			if r < utf8.RuneSelf {
				id = m.asciiIDs[r]
				ok = id >= 0
			} else if r != utf8.RuneError {
				id, ok = m.runeIDs[r]
			} else {
				_, n := utf8.DecodeRuneInString(w[i:])
				id, ok = m.vocab.lookup(w[i : i+n])
			}
			if ok {
				add(id)
				lastUnk = false
				continue
			}
			if m.byteFallback && m.addBytes(w[i:], add) {
				lastUnk = false
				continue
			}
			if m.unk < 0 {
				continue
			}
			if !(m.fuseUnk && lastUnk) {
				add(m.unk)
			}
			lastUnk = true
		}
	}
	if len(syms) > 0 {
		syms[len(syms)-1].next = -1
	}
	ws.syms = syms
}

// addBytes adds the <0xXX> tokens of the character at the start of s, if
// the vocabulary has all of them.
func (m *bpe) addBytes(s string, add func(int32)) bool {
	_, n := utf8.DecodeRuneInString(s)
	for i := 0; i < n; i++ {
		if m.byteIDs[s[i]] < 0 {
			return false
		}
	}
	for i := 0; i < n; i++ {
		add(m.byteIDs[s[i]])
	}
	return true
}

// merge runs the BPE merges on w, lowest rank first and leftmost among
// equals, and returns the resulting ids (valid until the next call).
func (m *bpe) merge(ws *workspace, w string) []int32 {
	m.initial(ws, w)
	syms := ws.syms
	h := ws.heap[:0]
	push := func(pos int32) {
		next := syms[pos].next
		if next < 0 {
			return
		}
		v, ok := m.merges.get(uint64(uint32(syms[pos].id))<<32 | uint64(uint32(syms[next].id)))
		if !ok {
			return
		}
		h = append(h, candidate{key: v&^0xFFFFFFFF | uint64(pos), left: syms[pos].id, right: syms[next].id, merged: int32(uint32(v))})
		// Sift up.
		for i := len(h) - 1; i > 0; {
			p := (i - 1) / 2
			if h[p].key <= h[i].key {
				break
			}
			h[p], h[i] = h[i], h[p]
			i = p
		}
	}
	for i := range syms {
		push(int32(i))
	}
	for len(h) > 0 {
		top := h[0]
		last := len(h) - 1
		h[0] = h[last]
		h = h[:last]
		// Sift down.
		for i := 0; ; {
			l := 2*i + 1
			if l >= len(h) {
				break
			}
			if r := l + 1; r < len(h) && h[r].key < h[l].key {
				l = r
			}
			if h[i].key <= h[l].key {
				break
			}
			h[i], h[l] = h[l], h[i]
			i = l
		}
		pos := int32(uint32(top.key))
		next := syms[pos].next
		if syms[pos].id != top.left || next < 0 || syms[next].id != top.right {
			continue // stale: one side was merged meanwhile
		}
		syms[pos].id = top.merged
		after := syms[next].next
		syms[pos].next = after
		if after >= 0 {
			syms[after].prev = pos
		}
		syms[next].id = -1
		if prev := syms[pos].prev; prev >= 0 {
			push(prev)
		}
		push(pos)
	}
	ws.heap = h
	out := ws.out[:0]
	for i := int32(0); len(syms) > 0 && i >= 0; i = syms[i].next {
		out = append(out, syms[i].id)
	}
	ws.out = out
	return out
}
