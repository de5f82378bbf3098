package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// Magic is the file's first four bytes; Version the format version written.
const (
	Magic   = "GGUF"
	Version = 3
	// DefaultAlignment applies when general.alignment is absent.
	DefaultAlignment = 32
	// AlignmentKey is the metadata key that sets the data alignment.
	AlignmentKey = "general.alignment"
	// MaxTensorName is the longest tensor name the format allows, in bytes.
	MaxTensorName = 64
	// MaxDims is the most dimensions a tensor has (ggml's GGML_MAX_DIMS).
	MaxDims = 4
)

// ValueType is a metadata value's type (gguf_metadata_value_type).
type ValueType uint32

// The metadata value types, numbered as the specification numbers them.
const (
	TypeUint8   ValueType = 0
	TypeInt8    ValueType = 1
	TypeUint16  ValueType = 2
	TypeInt16   ValueType = 3
	TypeUint32  ValueType = 4
	TypeInt32   ValueType = 5
	TypeFloat32 ValueType = 6
	TypeBool    ValueType = 7
	TypeString  ValueType = 8
	TypeArray   ValueType = 9
	TypeUint64  ValueType = 10
	TypeInt64   ValueType = 11
	TypeFloat64 ValueType = 12
)

// TensorType is a tensor's ggml_type. Only the unquantized float types are
// supported.
type TensorType uint32

// The ggml types this package writes.
const (
	F32 TensorType = 0
	F16 TensorType = 1
)

// Size is the number of bytes of one element.
func (t TensorType) Size() (int, error) {
	switch t {
	case F32:
		return 4, nil
	case F16:
		return 2, nil
	}
	return 0, fmt.Errorf("ggml type %d is not supported (only F32 and F16)", uint32(t))
}

func (t TensorType) String() string {
	switch t {
	case F32:
		return "F32"
	case F16:
		return "F16"
	}
	return fmt.Sprintf("ggml_type(%d)", uint32(t))
}

// KV is one metadata pair. Value is one of uint8, int8, uint16, int16,
// uint32, int32, float32, bool, string, uint64, int64, float64, or a slice
// of one of those (an array; nested arrays are not supported). The Go type
// is the GGUF type: a count written as uint32 is read back as uint32.
type KV struct {
	Key   string
	Value any
}

// Tensor is one tensor: its name, its dimensions innermost first (ggml's
// ne[0] is the length of a row), its type, and its data in little-endian
// order, len(Data) = product(Dims) × the type's size.
type Tensor struct {
	Name string
	Dims []uint64
	Type TensorType
	Data []byte
	// Offset is where the data starts, relative to the data section; set
	// by Read (Write computes its own).
	Offset uint64
}

// File is a whole GGUF file: metadata in order, tensors in order.
type File struct {
	KV      []KV
	Tensors []Tensor
}

// Get returns the value of a metadata key, and whether it is there.
func (f *File) Get(key string) (any, bool) {
	for _, kv := range f.KV {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return nil, false
}

// Tensor returns the named tensor, or nil.
func (f *File) Tensor(name string) *Tensor {
	for i := range f.Tensors {
		if f.Tensors[i].Name == name {
			return &f.Tensors[i]
		}
	}
	return nil
}

// Alignment is the file's data alignment: general.alignment, or 32.
func (f *File) Alignment() (uint64, error) {
	v, ok := f.Get(AlignmentKey)
	if !ok {
		return DefaultAlignment, nil
	}
	a, ok := v.(uint32)
	if !ok {
		return 0, fmt.Errorf("%s is %T; the specification makes it a uint32", AlignmentKey, v)
	}
	if a == 0 || a%8 != 0 {
		return 0, fmt.Errorf("%s is %d; it must be a positive multiple of 8", AlignmentKey, a)
	}
	return uint64(a), nil
}

// Elements is the number of elements of a tensor of these dimensions.
func Elements(dims []uint64) uint64 {
	n := uint64(1)
	for _, d := range dims {
		n *= d
	}
	return n
}

func alignUp(off, align uint64) uint64 {
	return off + (align-off%align)%align
}

// Validate checks what Write would refuse: key syntax (ASCII, dot-separated
// lower_snake_case segments, at most 65535 bytes), duplicate keys or
// tensor names, value types, tensor names of at most 64 bytes, 1 to 4
// dimensions none of them zero, supported tensor types and data lengths.
func (f *File) Validate() error {
	if _, err := f.Alignment(); err != nil {
		return err
	}
	keys := make(map[string]bool, len(f.KV))
	for _, kv := range f.KV {
		if err := checkKey(kv.Key); err != nil {
			return err
		}
		if keys[kv.Key] {
			return fmt.Errorf("metadata key %q appears twice", kv.Key)
		}
		keys[kv.Key] = true
		if _, err := typeOf(kv.Value); err != nil {
			return fmt.Errorf("metadata %s: %w", kv.Key, err)
		}
	}
	names := make(map[string]bool, len(f.Tensors))
	for _, t := range f.Tensors {
		if t.Name == "" || len(t.Name) > MaxTensorName {
			return fmt.Errorf("tensor name %q: must be 1 to %d bytes", t.Name, MaxTensorName)
		}
		if names[t.Name] {
			return fmt.Errorf("tensor %q appears twice", t.Name)
		}
		names[t.Name] = true
		if len(t.Dims) == 0 || len(t.Dims) > MaxDims {
			return fmt.Errorf("tensor %s has %d dimensions; 1 to %d are allowed", t.Name, len(t.Dims), MaxDims)
		}
		for _, d := range t.Dims {
			if d == 0 {
				return fmt.Errorf("tensor %s has a zero dimension %v", t.Name, t.Dims)
			}
		}
		size, err := t.Type.Size()
		if err != nil {
			return fmt.Errorf("tensor %s: %w", t.Name, err)
		}
		if want := Elements(t.Dims) * uint64(size); uint64(len(t.Data)) != want {
			return fmt.Errorf("tensor %s %v %s needs %d bytes of data, has %d", t.Name, t.Dims, t.Type, want, len(t.Data))
		}
	}
	return nil
}

func checkKey(key string) error {
	if key == "" || len(key) > math.MaxUint16 {
		return fmt.Errorf("metadata key %q: must be 1 to 65535 bytes", key)
	}
	for _, seg := range strings.Split(key, ".") {
		if seg == "" {
			return fmt.Errorf("metadata key %q has an empty segment", key)
		}
		for _, c := range seg {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
				return fmt.Errorf("metadata key %q: segments are lower_snake_case ASCII ([a-z0-9_])", key)
			}
		}
	}
	return nil
}

// typeOf maps a Go value to its GGUF type (for arrays, TypeArray).
func typeOf(v any) (ValueType, error) {
	switch v.(type) {
	case uint8:
		return TypeUint8, nil
	case int8:
		return TypeInt8, nil
	case uint16:
		return TypeUint16, nil
	case int16:
		return TypeInt16, nil
	case uint32:
		return TypeUint32, nil
	case int32:
		return TypeInt32, nil
	case float32:
		return TypeFloat32, nil
	case bool:
		return TypeBool, nil
	case string:
		return TypeString, nil
	case uint64:
		return TypeUint64, nil
	case int64:
		return TypeInt64, nil
	case float64:
		return TypeFloat64, nil
	case []uint8, []int8, []uint16, []int16, []uint32, []int32, []float32, []bool, []string, []uint64, []int64, []float64:
		return TypeArray, nil
	}
	return 0, fmt.Errorf("a value of type %T cannot be stored (int and uint have no fixed size: say uint32, int32, ...)", v)
}

// Write writes f to w in GGUF version 3 layout. Offsets are computed here:
// each tensor's data starts at the next multiple of the alignment, and the
// section ends padded to it too.
func Write(w io.Writer, f *File) error {
	if err := f.Validate(); err != nil {
		return err
	}
	align, _ := f.Alignment()
	bw := bufio.NewWriterSize(w, 1<<20)
	e := &encoder{w: bw}
	e.raw([]byte(Magic))
	e.u32(Version)
	e.u64(uint64(len(f.Tensors)))
	e.u64(uint64(len(f.KV)))
	for _, kv := range f.KV {
		e.str(kv.Key)
		e.value(kv.Value, true)
	}
	offsets := make([]uint64, len(f.Tensors))
	var off uint64
	for i, t := range f.Tensors {
		off = alignUp(off, align)
		offsets[i] = off
		off += uint64(len(t.Data))
		e.str(t.Name)
		e.u32(uint32(len(t.Dims)))
		for _, d := range t.Dims {
			e.u64(d)
		}
		e.u32(uint32(t.Type))
		e.u64(offsets[i])
	}
	e.pad(align)
	for _, t := range f.Tensors {
		e.pad(align)
		e.raw(t.Data)
	}
	e.pad(align)
	if e.err != nil {
		return e.err
	}
	return bw.Flush()
}

// encoder writes little-endian values and counts the bytes, for padding.
type encoder struct {
	w   io.Writer
	n   uint64
	err error
	buf [8]byte
}

func (e *encoder) raw(b []byte) {
	if e.err != nil {
		return
	}
	n, err := e.w.Write(b)
	e.n += uint64(n)
	e.err = err
}

func (e *encoder) u8(v uint8)   { e.buf[0] = v; e.raw(e.buf[:1]) }
func (e *encoder) u16(v uint16) { binary.LittleEndian.PutUint16(e.buf[:], v); e.raw(e.buf[:2]) }
func (e *encoder) u32(v uint32) { binary.LittleEndian.PutUint32(e.buf[:], v); e.raw(e.buf[:4]) }
func (e *encoder) u64(v uint64) { binary.LittleEndian.PutUint64(e.buf[:], v); e.raw(e.buf[:8]) }

func (e *encoder) str(s string) {
	e.u64(uint64(len(s)))
	e.raw([]byte(s))
}

func (e *encoder) pad(align uint64) {
	if n := alignUp(e.n, align) - e.n; n > 0 {
		e.raw(make([]byte, n))
	}
}

// value writes v, preceded by its type when typed (a metadata value; array
// elements carry no type of their own).
func (e *encoder) value(v any, typed bool) {
	t, _ := typeOf(v)
	if typed {
		e.u32(uint32(t))
	}
	switch v := v.(type) {
	case uint8:
		e.u8(v)
	case int8:
		e.u8(uint8(v))
	case uint16:
		e.u16(v)
	case int16:
		e.u16(uint16(v))
	case uint32:
		e.u32(v)
	case int32:
		e.u32(uint32(v))
	case float32:
		e.u32(math.Float32bits(v))
	case bool:
		if v {
			e.u8(1)
		} else {
			e.u8(0)
		}
	case string:
		e.str(v)
	case uint64:
		e.u64(v)
	case int64:
		e.u64(uint64(v))
	case float64:
		e.u64(math.Float64bits(v))
	case []uint8:
		array(e, TypeUint8, v)
	case []int8:
		array(e, TypeInt8, v)
	case []uint16:
		array(e, TypeUint16, v)
	case []int16:
		array(e, TypeInt16, v)
	case []uint32:
		array(e, TypeUint32, v)
	case []int32:
		array(e, TypeInt32, v)
	case []float32:
		array(e, TypeFloat32, v)
	case []bool:
		array(e, TypeBool, v)
	case []string:
		array(e, TypeString, v)
	case []uint64:
		array(e, TypeUint64, v)
	case []int64:
		array(e, TypeInt64, v)
	case []float64:
		array(e, TypeFloat64, v)
	default:
		e.err = errors.Join(e.err, fmt.Errorf("gguf: cannot encode %T", v))
	}
}

func array[T any](e *encoder, elem ValueType, vs []T) {
	e.u32(uint32(elem))
	e.u64(uint64(len(vs)))
	for _, v := range vs {
		e.value(v, false)
	}
}
