package gguf

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// Read parses a whole GGUF version 3 file, tensor data included. It exists
// to check what Write wrote (tests, and the generator's own checks), so it
// reads only what Write writes: little-endian, version 3, no nested arrays,
// F32 and F16 tensors. Counts and lengths are checked against what is left
// of the input before anything is allocated for them.
func Read(r io.Reader, size int64) (*File, error) {
	d := &decoder{r: bufio.NewReaderSize(r, 1<<20), left: size}
	magic := d.raw(4)
	if d.err == nil && string(magic) != Magic {
		return nil, fmt.Errorf("not a GGUF file: magic %q", magic)
	}
	if v := d.u32(); d.err == nil && v != Version {
		return nil, fmt.Errorf("GGUF version %d; only version %d is read", v, Version)
	}
	nTensors, nKV := d.u64(), d.u64()
	if d.err != nil {
		return nil, d.err
	}
	// Each pair takes at least 12 bytes and each tensor info at least 28.
	if nKV > uint64(d.left)/12 || nTensors > uint64(d.left)/28 {
		return nil, fmt.Errorf("%d metadata pairs and %d tensors cannot fit in %d bytes", nKV, nTensors, d.left)
	}
	f := &File{KV: make([]KV, 0, nKV), Tensors: make([]Tensor, 0, nTensors)}
	for range nKV {
		key := d.str()
		v := d.value(ValueType(d.u32()), true)
		if d.err != nil {
			return nil, fmt.Errorf("metadata pair %d (%q): %w", len(f.KV), key, d.err)
		}
		f.KV = append(f.KV, KV{Key: key, Value: v})
	}
	align, err := f.Alignment()
	if err != nil {
		return nil, err
	}
	for range nTensors {
		t := Tensor{Name: d.str()}
		n := d.u32()
		if d.err == nil && (n == 0 || n > MaxDims) {
			return nil, fmt.Errorf("tensor %q has %d dimensions", t.Name, n)
		}
		for range n {
			t.Dims = append(t.Dims, d.u64())
		}
		t.Type = TensorType(d.u32())
		t.Offset = d.u64()
		if d.err != nil {
			return nil, fmt.Errorf("tensor info %d: %w", len(f.Tensors), d.err)
		}
		if t.Offset%align != 0 {
			return nil, fmt.Errorf("tensor %s: offset %d is not a multiple of the alignment %d", t.Name, t.Offset, align)
		}
		f.Tensors = append(f.Tensors, t)
	}
	d.skip(alignUp(d.n, align) - d.n)
	dataStart := d.n
	for i := range f.Tensors {
		t := &f.Tensors[i]
		es, err := t.Type.Size()
		if err != nil {
			return nil, fmt.Errorf("tensor %s: %w", t.Name, err)
		}
		if d.n-dataStart > t.Offset {
			return nil, fmt.Errorf("tensor %s: offset %d overlaps the tensor before it", t.Name, t.Offset)
		}
		d.skip(t.Offset - (d.n - dataStart))
		nbytes := Elements(t.Dims) * uint64(es)
		if d.err == nil && nbytes > uint64(d.left) {
			return nil, fmt.Errorf("tensor %s %v %s needs %d bytes; %d are left", t.Name, t.Dims, t.Type, nbytes, d.left)
		}
		t.Data = d.raw(nbytes)
		if d.err != nil {
			return nil, fmt.Errorf("tensor %s data: %w", t.Name, d.err)
		}
	}
	return f, d.err
}

type decoder struct {
	r    *bufio.Reader
	n    uint64 // bytes read so far
	left int64  // bytes left in the input
	err  error
	buf  [8]byte
}

func (d *decoder) raw(n uint64) []byte {
	if d.err != nil {
		return nil
	}
	if n > uint64(d.left) {
		d.err = fmt.Errorf("%d bytes wanted at offset %d, %d left", n, d.n, d.left)
		return nil
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(d.r, b); err != nil {
		d.err = fmt.Errorf("at offset %d: %w", d.n, err)
		return nil
	}
	d.n += n
	d.left -= int64(n)
	return b
}

func (d *decoder) skip(n uint64) { d.raw(n) }

func (d *decoder) fixed(n int) []byte {
	if d.err != nil {
		return d.buf[:n]
	}
	b := d.raw(uint64(n))
	if b == nil {
		return d.buf[:n]
	}
	return b
}

func (d *decoder) u8() uint8   { return d.fixed(1)[0] }
func (d *decoder) u16() uint16 { return binary.LittleEndian.Uint16(d.fixed(2)) }
func (d *decoder) u32() uint32 { return binary.LittleEndian.Uint32(d.fixed(4)) }
func (d *decoder) u64() uint64 { return binary.LittleEndian.Uint64(d.fixed(8)) }
func (d *decoder) str() string { return string(d.raw(d.u64())) }

// value reads one value of type t; arrays only at the top (nested arrays
// are refused).
func (d *decoder) value(t ValueType, top bool) any {
	switch t {
	case TypeUint8:
		return d.u8()
	case TypeInt8:
		return int8(d.u8())
	case TypeUint16:
		return d.u16()
	case TypeInt16:
		return int16(d.u16())
	case TypeUint32:
		return d.u32()
	case TypeInt32:
		return int32(d.u32())
	case TypeFloat32:
		return math.Float32frombits(d.u32())
	case TypeBool:
		b := d.u8()
		if d.err == nil && b > 1 {
			d.err = fmt.Errorf("bool byte %d (only 0 and 1 are valid)", b)
		}
		return b == 1
	case TypeString:
		return d.str()
	case TypeUint64:
		return d.u64()
	case TypeInt64:
		return int64(d.u64())
	case TypeFloat64:
		return math.Float64frombits(d.u64())
	case TypeArray:
		if !top {
			d.err = fmt.Errorf("nested arrays are not read")
			return nil
		}
		elem := ValueType(d.u32())
		n := d.u64()
		if d.err == nil && n > uint64(d.left) { // every element takes a byte at least
			d.err = fmt.Errorf("array of %d elements in %d bytes", n, d.left)
		}
		if d.err != nil {
			return nil
		}
		switch elem {
		case TypeUint8:
			return readArray[uint8](d, elem, n)
		case TypeInt8:
			return readArray[int8](d, elem, n)
		case TypeUint16:
			return readArray[uint16](d, elem, n)
		case TypeInt16:
			return readArray[int16](d, elem, n)
		case TypeUint32:
			return readArray[uint32](d, elem, n)
		case TypeInt32:
			return readArray[int32](d, elem, n)
		case TypeFloat32:
			return readArray[float32](d, elem, n)
		case TypeBool:
			return readArray[bool](d, elem, n)
		case TypeString:
			return readArray[string](d, elem, n)
		case TypeUint64:
			return readArray[uint64](d, elem, n)
		case TypeInt64:
			return readArray[int64](d, elem, n)
		case TypeFloat64:
			return readArray[float64](d, elem, n)
		}
		d.err = fmt.Errorf("array of value type %d", elem)
		return nil
	}
	if d.err == nil {
		d.err = fmt.Errorf("unknown value type %d", t)
	}
	return nil
}

func readArray[T any](d *decoder, elem ValueType, n uint64) []T {
	out := make([]T, 0, n)
	for range n {
		v := d.value(elem, false)
		if d.err != nil {
			return nil
		}
		out = append(out, v.(T))
	}
	return out
}
