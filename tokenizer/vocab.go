package tokenizer

import (
	"fmt"
	"hash/maphash"
)

// vocabulary maps model-space tokens to ids by a 64-bit hash of the token,
// which makes the 400,000 lookups of loading a large tokenizer cheaper than
// a map keyed by strings. add refuses two tokens with the same hash, so a
// token of the vocabulary is always found with its own id; lookup also
// checks the token, so a string outside the vocabulary is never found.
type vocabulary struct {
	seed maphash.Seed
	ids  *table   // hash -> id
	toks []string // id -> token
}

func newVocabulary(size int) *vocabulary {
	return &vocabulary{seed: maphash.MakeSeed(), ids: newTable(size)}
}

func (v *vocabulary) add(tok string, id int32) error {
	h := maphash.String(v.seed, tok)
	if old, ok := v.ids.get(h); ok && v.toks[old] != tok {
		return fmt.Errorf("tokens %q and %q have the same hash; load again", v.toks[old], tok)
	}
	v.ids.put(h, uint64(id))
	for len(v.toks) <= int(id) {
		v.toks = append(v.toks, "")
	}
	v.toks[id] = tok
	return nil
}

// lookup finds tok, checking it is the very token.
func (v *vocabulary) lookup(tok string) (int32, bool) {
	id, ok := v.ids.get(maphash.String(v.seed, tok))
	if !ok || v.toks[id] != tok {
		return -1, false
	}
	return int32(id), true
}

// lookupKnown finds a token the file says is in the vocabulary (a part or
// result of a merge) without reading the token back: for a token of the
// vocabulary the hash alone is exact (see add).
func (v *vocabulary) lookupKnown(tok []byte) (int32, bool) {
	id, ok := v.ids.get(maphash.Bytes(v.seed, tok))
	return int32(id), ok
}
