package gguf

import (
	"encoding/binary"
	"math"
	"os"
)

// F16Bits converts a float32 to IEEE 754 half precision, rounding to the
// nearest value and ties to even (as ggml's own conversion does); values
// too large become infinity, NaN stays NaN.
func F16Bits(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	mant := b & 0x7fffff
	if exp == 0xff {
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		// A half subnormal (or zero): its unit is 2^-24, so the value in
		// units is (1.mant) × 2^(exp-127+24) = (mant|1<<23) >> (14-e).
		shift := uint(14 - e)
		if shift > 24 {
			return sign
		}
		m := mant | 0x800000
		h := m >> shift
		rem, half := m&(1<<shift-1), uint32(1)<<(shift-1)
		if rem > half || rem == half && h&1 == 1 {
			h++ // may carry into the smallest normal, which is right
		}
		return sign | uint16(h)
	}
	h := uint32(e)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && h&1 == 1 {
		h++ // may carry into the exponent, up to infinity, which is right
	}
	return sign | uint16(h)
}

// F16Float converts half-precision bits to a float32 (exactly).
func F16Float(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
	case mant == 0:
		return math.Float32frombits(sign)
	}
	v := float32(mant) / (1 << 24)
	if sign != 0 {
		v = -v
	}
	return v
}

// EncodeF32 returns vs as F32 tensor data.
func EncodeF32(vs []float32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

// EncodeF16 returns vs as F16 tensor data, each value rounded by F16Bits.
func EncodeF16(vs []float32) []byte {
	b := make([]byte, 2*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint16(b[2*i:], F16Bits(v))
	}
	return b
}

// Floats decodes a tensor's data (F32 or F16) into float32 values.
func (t *Tensor) Floats() ([]float32, error) {
	size, err := t.Type.Size()
	if err != nil {
		return nil, err
	}
	out := make([]float32, len(t.Data)/size)
	for i := range out {
		if t.Type == F16 {
			out[i] = F16Float(binary.LittleEndian.Uint16(t.Data[2*i:]))
		} else {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.Data[4*i:]))
		}
	}
	return out, nil
}

// ReadFile reads and parses the GGUF file at path.
func ReadFile(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	return Read(fh, st.Size())
}
