package executor

import (
	crand "crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"sync"
)

// traceparentPreview stands for the header's random ids in plan's preview.
const traceparentPreview = "00-<trace-id>-<parent-id>-01"

// traceIDs makes the W3C trace-context header of each load request
// (https://www.w3.org/TR/trace-context/): version 00, a random 16-byte
// trace id, a random 8-byte parent id, flags 01 (sampled). The ids come
// from a ChaCha8 stream seeded once per client from crypto/rand, so that
// runs never repeat each other's ids: three 64-bit draws and a hex encode
// per request, under a lock held for tens of nanoseconds, all before the
// request's clock starts.
type traceIDs struct {
	mu  sync.Mutex
	rng *rand.ChaCha8
}

func newTraceIDs() *traceIDs {
	var seed [32]byte
	_, _ = crand.Read(seed[:]) // never fails (crypto/rand)
	return &traceIDs{rng: rand.NewChaCha8(seed)}
}

// next returns a new traceparent header value.
func (g *traceIDs) next() string {
	g.mu.Lock()
	var hi, lo, parent uint64
	// An all-zero id is invalid; a draw gives one once in 2^64.
	for hi|lo == 0 {
		hi, lo = g.rng.Uint64(), g.rng.Uint64()
	}
	for parent == 0 {
		parent = g.rng.Uint64()
	}
	g.mu.Unlock()
	var ids [24]byte
	binary.BigEndian.PutUint64(ids[0:8], hi)
	binary.BigEndian.PutUint64(ids[8:16], lo)
	binary.BigEndian.PutUint64(ids[16:24], parent)
	var b [55]byte // 00-<32 hex>-<16 hex>-01
	copy(b[0:3], "00-")
	hex.Encode(b[3:35], ids[0:16])
	b[35] = '-'
	hex.Encode(b[36:52], ids[16:24])
	copy(b[52:], "-01")
	return string(b[:])
}
