package tokenizer

import "math/bits"

// table is an open-addressing hash table from uint64 to uint64 with linear
// probing in one flat array: one cache miss per lookup where Go's map takes
// two, which matters for the 400,000 lookups of loading a large vocabulary
// and for the merge lookups of encoding. It is not safe for concurrent
// writes; once built it is only read.
type table struct {
	slots []slot
	shift uint // 64 - log2(len(slots))
	n     int
}

type slot struct {
	key uint64
	val uint64 // value + 1; 0 marks an empty slot
}

// newTable returns a table sized for about n entries.
func newTable(n int) *table {
	size := 16
	for size < n+n/2 {
		size *= 2
	}
	return &table{slots: make([]slot, size), shift: uint(64 - bits.TrailingZeros(uint(size)))}
}

func (t *table) index(key uint64) uint64 { return (key * 0x9E3779B97F4A7C15) >> t.shift }

// get returns the value stored for key.
func (t *table) get(key uint64) (uint64, bool) {
	mask := uint64(len(t.slots) - 1)
	for i := t.index(key); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.val == 0 {
			return 0, false
		}
		if s.key == key {
			return s.val - 1, true
		}
	}
}

// put stores val (which must not be the largest uint64) for key.
func (t *table) put(key, val uint64) {
	if 4*(t.n+1) > 3*len(t.slots) {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	for i := t.index(key); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.val == 0 {
			*s = slot{key, val + 1}
			t.n++
			return
		}
		if s.key == key {
			s.val = val + 1
			return
		}
	}
}

func (t *table) grow() {
	old := t.slots
	*t = *newTable(len(old))
	for _, s := range old {
		if s.val != 0 {
			t.put(s.key, s.val-1)
		}
	}
}
