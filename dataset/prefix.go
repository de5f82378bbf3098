package dataset

import (
	"encoding/binary"
	"hash/maphash"
	"strings"

	"github.com/llmload/llmload/tokenizer"
)

// PrefixBlock is the block size, in tokens, of the ideal prefix cache
// that PrefixTokens assumes: vLLM's default block_size, whose prefix cache
// keeps whole blocks.
const PrefixBlock = 16

// markPrefixes sets each request's PrefixTokens: the prompt tokens an
// ideal prefix cache (unbounded, never evicting, of PrefixBlock-token
// blocks) would serve it from the requests before it, in the dataset's
// order. It is what a server's reported cached tokens are compared with
// (prefix_reuse). Sessions are left out: their later turns carry the
// replies of the run itself, and the run counts what each turn shares with
// the one before it (executor's sessionPrefix). A tokenizer that asks the server (/tokenize)
// is replaced by the approximation here, so that this adds no request.
func markPrefixes(reqs []Request, tok tokenizer.Tokenizer) {
	if _, remote := tok.(*tokenizer.Server); remote || tok == nil {
		tok = tokenizer.Approximate()
	}
	seed := maphash.MakeSeed()
	seen := map[uint64]bool{}
	for i := range reqs {
		r := &reqs[i]
		if len(r.Turns) > 0 {
			continue
		}
		ids := tok.Encode(promptText(r), true)
		var h maphash.Hash
		h.SetSeed(seed)
		cached, chain := 0, true
		for b := 0; b+PrefixBlock <= len(ids); b += PrefixBlock {
			// A block's identity is its tokens and everything before it,
			// as vLLM's block hashes chain the parent's.
			var buf [4]byte
			for _, id := range ids[b : b+PrefixBlock] {
				binary.LittleEndian.PutUint32(buf[:], uint32(id))
				h.Write(buf[:])
			}
			sum := h.Sum64()
			if chain && seen[sum] {
				cached += PrefixBlock
			} else {
				chain = false
			}
			seen[sum] = true
		}
		r.PrefixTokens = cached
	}
}

// promptText is the text a request's prompt is made of: the prompt, or
// its messages' roles and contents in order (the server's chat template
// wraps them alike for every request, so shared leading messages are a
// shared prefix).
func promptText(r *Request) string {
	if len(r.Messages) == 0 {
		return r.Prompt
	}
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Role)
		b.WriteByte('\n')
		b.WriteString(m.Content)
		b.WriteByte('\n')
	}
	return b.String()
}
