package sim

import (
	"container/list"
	"encoding/binary"
	"hash/fnv"
)

// prefixBlock is the prefix cache's block size in tokens: vLLM's default
// block_size. Only whole blocks are cached and found.
const prefixBlock = 16

// prefixCache is vLLM's automatic prefix caching in small: a block is
// known by a hash of its tokens chained to the block before it, so a hit
// is a run of leading blocks that some earlier prompt computed. Blocks are
// kept in least-recently-used order up to a capacity (the KV cache's size
// in blocks: vLLM keeps a freed block's contents until its memory is
// reused, evicting the least recently used first).
type prefixCache struct {
	capacity int
	order    *list.List // of uint64, most recently used at the front
	at       map[uint64]*list.Element
}

func newPrefixCache(capacityTokens int) *prefixCache {
	return &prefixCache{capacity: max(capacityTokens/prefixBlock, 1), order: list.New(), at: map[uint64]*list.Element{}}
}

// blockHashes chains the hashes of ids' whole blocks. A salt goes into
// the first block's hash, as vLLM puts a request's cache_salt among its
// first block's keys: prompts with different salts share no block.
func blockHashes(salt string, ids []int) []uint64 {
	out := make([]uint64, 0, len(ids)/prefixBlock)
	var parent uint64
	if salt != "" {
		h := fnv.New64a()
		h.Write([]byte(salt))
		parent = h.Sum64()
	}
	var buf [8]byte
	for b := 0; b+prefixBlock <= len(ids); b += prefixBlock {
		h := fnv.New64a()
		binary.LittleEndian.PutUint64(buf[:], parent)
		h.Write(buf[:])
		for _, id := range ids[b : b+prefixBlock] {
			binary.LittleEndian.PutUint32(buf[:4], uint32(id))
			h.Write(buf[:4])
		}
		parent = h.Sum64()
		out = append(out, parent)
	}
	return out
}

// match returns how many of blocks' leading blocks are cached, and marks
// them used.
func (c *prefixCache) match(blocks []uint64) int {
	n := 0
	for _, b := range blocks {
		e, ok := c.at[b]
		if !ok {
			break
		}
		c.order.MoveToFront(e)
		n++
	}
	return n
}

// insert caches blocks (a prompt whose prefill is done), evicting the
// least recently used beyond the capacity.
func (c *prefixCache) insert(blocks []uint64) {
	for _, b := range blocks {
		if e, ok := c.at[b]; ok {
			c.order.MoveToFront(e)
			continue
		}
		c.at[b] = c.order.PushFront(b)
		for c.order.Len() > c.capacity {
			old := c.order.Back()
			c.order.Remove(old)
			delete(c.at, old.Value.(uint64))
		}
	}
}
