package gguf

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func roundTrip(t *testing.T, f *File) (*File, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, f); err != nil {
		t.Fatalf("Write: %v", err)
	}
	got, err := Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return got, buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		file File
	}{
		{"empty", File{}},
		{"every scalar type", File{KV: []KV{
			{"a.u8", uint8(200)}, {"a.i8", int8(-100)}, {"a.u16", uint16(60000)}, {"a.i16", int16(-30000)},
			{"a.u32", uint32(4000000000)}, {"a.i32", int32(-2000000000)}, {"a.f32", float32(1e-6)},
			{"a.yes", true}, {"a.no", false}, {"a.s", "héllo\x00world"}, {"a.empty", ""},
			{"a.u64", uint64(math.MaxUint64)}, {"a.i64", int64(math.MinInt64)}, {"a.f64", math.Pi},
		}}},
		{"every array type", File{KV: []KV{
			{"b.u8", []uint8{1, 2}}, {"b.i8", []int8{-1}}, {"b.u16", []uint16{7}}, {"b.i16", []int16{-7}},
			{"b.u32", []uint32{1, 2, 3}}, {"b.i32", []int32{1, 3, 4}}, {"b.f32", []float32{0.5, -2}},
			{"b.bool", []bool{true, false}}, {"b.str", []string{"Ġhello", "", "<|im_end|>"}},
			{"b.u64", []uint64{1 << 40}}, {"b.i64", []int64{-1 << 40}}, {"b.f64", []float64{1e300}},
			{"b.none", []string{}},
		}}},
		{"tensors of both types, aligned to 64", File{
			KV: []KV{{"general.architecture", "llama"}, {AlignmentKey, uint32(64)}},
			Tensors: []Tensor{
				{Name: "x.weight", Dims: []uint64{3}, Type: F32, Data: EncodeF32([]float32{1, 2, 3})},
				{Name: "y.weight", Dims: []uint64{2, 3}, Type: F16, Data: EncodeF16([]float32{1, 2, 3, 4, 5, 6})},
				{Name: "z", Dims: []uint64{1, 1, 1, 5}, Type: F32, Data: EncodeF32([]float32{9, 8, 7, 6, 5})},
			},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, raw := roundTrip(t, &tt.file)
			if diff := cmp.Diff(&tt.file, got, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(Tensor{}, "Offset")); diff != "" {
				t.Errorf("read back differs (-want +got):\n%s", diff)
			}
			align, _ := got.Alignment()
			if len(raw)%int(align) != 0 {
				t.Errorf("file length %d is not padded to the alignment %d", len(raw), align)
			}
			dataStart := uint64(len(raw))
			for _, tn := range got.Tensors {
				dataStart -= alignUp(uint64(len(tn.Data)), align)
			}
			for _, tn := range got.Tensors {
				if tn.Offset%align != 0 {
					t.Errorf("tensor %s at offset %d, not a multiple of %d", tn.Name, tn.Offset, align)
				}
				if at := dataStart + tn.Offset; !bytes.Equal(raw[at:at+uint64(len(tn.Data))], tn.Data) {
					t.Errorf("tensor %s: data is not at data section + offset (%d)", tn.Name, at)
				}
			}
		})
	}
}

// TestLayout checks one small file byte by byte against the specification:
// header, a key-value pair, a tensor info, padding to 32, data, padding.
func TestLayout(t *testing.T) {
	f := &File{
		KV:      []KV{{AlignmentKey, uint32(32)}},
		Tensors: []Tensor{{Name: "a", Dims: []uint64{2}, Type: F32, Data: EncodeF32([]float32{1, -1})}},
	}
	var buf bytes.Buffer
	if err := Write(&buf, f); err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	var want []byte
	want = append(want, "GGUF"...)
	want = le.AppendUint32(want, 3)
	want = le.AppendUint64(want, 1) // tensors
	want = le.AppendUint64(want, 1) // metadata pairs
	want = le.AppendUint64(want, uint64(len("general.alignment")))
	want = append(want, "general.alignment"...)
	want = le.AppendUint32(want, 4) // uint32
	want = le.AppendUint32(want, 32)
	want = le.AppendUint64(want, 1)
	want = append(want, 'a')
	want = le.AppendUint32(want, 1) // dimensions
	want = le.AppendUint64(want, 2)
	want = le.AppendUint32(want, 0) // F32
	want = le.AppendUint64(want, 0) // offset
	if len(want) != 90 {
		t.Fatalf("test arithmetic: header, pair and info are %d bytes, want 90", len(want))
	}
	want = append(want, make([]byte, 6)...) // to 96
	want = le.AppendUint32(want, math.Float32bits(1))
	want = le.AppendUint32(want, math.Float32bits(-1))
	want = append(want, make([]byte, 24)...) // to 128
	if diff := cmp.Diff(want, buf.Bytes()); diff != "" {
		t.Errorf("bytes differ (-want +got):\n%s", diff)
	}
}

func TestValidate(t *testing.T) {
	f32 := func(n int) []byte { return EncodeF32(make([]float32, n)) }
	tests := []struct {
		name string
		file File
		want string // part of the error; "" for none
	}{
		{"fine", File{KV: []KV{{"llama.block_count", uint32(2)}}, Tensors: []Tensor{{Name: "t", Dims: []uint64{2, 2}, Type: F32, Data: f32(4)}}}, ""},
		{"upper case key", File{KV: []KV{{"General.name", "x"}}}, "lower_snake_case"},
		{"empty segment", File{KV: []KV{{"general..name", "x"}}}, "empty segment"},
		{"duplicate key", File{KV: []KV{{"a", "x"}, {"a", "y"}}}, "twice"},
		{"int has no size", File{KV: []KV{{"a", 3}}}, "no fixed size"},
		{"nested array", File{KV: []KV{{"a", [][]string{{"x"}}}}}, "cannot be stored"},
		{"alignment not uint32", File{KV: []KV{{AlignmentKey, uint64(32)}}}, "uint32"},
		{"alignment not a multiple of 8", File{KV: []KV{{AlignmentKey, uint32(12)}}}, "multiple of 8"},
		{"long tensor name", File{Tensors: []Tensor{{Name: strings.Repeat("x", 65), Dims: []uint64{1}, Type: F32, Data: f32(1)}}}, "1 to 64 bytes"},
		{"duplicate tensor", File{Tensors: []Tensor{{Name: "t", Dims: []uint64{1}, Type: F32, Data: f32(1)}, {Name: "t", Dims: []uint64{1}, Type: F32, Data: f32(1)}}}, "twice"},
		{"five dimensions", File{Tensors: []Tensor{{Name: "t", Dims: []uint64{1, 1, 1, 1, 1}, Type: F32, Data: f32(1)}}}, "dimensions"},
		{"zero dimension", File{Tensors: []Tensor{{Name: "t", Dims: []uint64{0}, Type: F32}}}, "zero dimension"},
		{"quantized type", File{Tensors: []Tensor{{Name: "t", Dims: []uint64{32}, Type: 2, Data: make([]byte, 18)}}}, "not supported"},
		{"short data", File{Tensors: []Tensor{{Name: "t", Dims: []uint64{2, 3}, Type: F16, Data: make([]byte, 11)}}}, "needs 12 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.file.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate = %v, want an error containing %q", err, tt.want)
			}
			if err := Write(&bytes.Buffer{}, &tt.file); err == nil {
				t.Errorf("Write accepted what Validate refuses")
			}
		})
	}
}

func TestReadRefuses(t *testing.T) {
	var good bytes.Buffer
	if err := Write(&good, &File{
		KV:      []KV{{"a", []string{"x", "y"}}},
		Tensors: []Tensor{{Name: "t", Dims: []uint64{4}, Type: F32, Data: EncodeF32([]float32{1, 2, 3, 4})}},
	}); err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	patch := func(off int, v uint64) []byte {
		b := bytes.Clone(good.Bytes())
		le.PutUint64(b[off:], v)
		return b
	}
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"not gguf", []byte("GGML\x03\x00\x00\x00"), "magic"},
		{"version 2", append([]byte("GGUF"), 2, 0, 0, 0), "version 2"},
		{"truncated header", []byte("GGUF\x03\x00"), "bytes wanted"},
		{"huge tensor count", patch(8, 1<<40), "cannot fit"},
		{"huge array", patch(24+8+1+4+4, 1<<50), "array of"},
		{"truncated data", good.Bytes()[:good.Len()-32], "needs 16 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(tt.in), int64(len(tt.in)))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Read = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestF16(t *testing.T) {
	tests := []struct {
		in   float32
		want uint16
	}{
		{0, 0x0000},
		{float32(math.Copysign(0, -1)), 0x8000},
		{1, 0x3c00},
		{-2, 0xc000},
		{0.1, 0x2e66},
		{65504, 0x7bff},
		{65519, 0x7bff},                            // below the halfway point to 65536
		{65520, 0x7c00},                            // halfway, ties to even: infinity
		{1e10, 0x7c00},                             // overflow
		{float32(math.Inf(-1)), 0xfc00},            // infinity
		{1.0 / (1 << 24), 0x0001},                  // smallest subnormal
		{1.0 / (1 << 25), 0x0000},                  // half of it: ties to even, zero
		{1.5 / (1 << 25), 0x0001},                  // above half: rounds up
		{3.0 / (1 << 25), 0x0002},                  // 1.5 units: ties to even, 2
		{float32(1023.5) / (1 << 24), 0x0400},      // rounds up into the smallest normal
		{1 + 1.0/2048, 0x3c00},                     // halfway between 1 and the next: even
		{1 + 3.0/2048, 0x3c02},                     // halfway, odd below: up
		{float32(6.103515625e-05), 0x0400},         // smallest normal
		{float32(math.NaN()), 0x7e00},              // NaN stays NaN
		{-float32(1.0) / (1 << 24) * 0.75, 0x8001}, // negative subnormal, rounded up in magnitude
	}
	for _, tt := range tests {
		if got := F16Bits(tt.in); got != tt.want {
			t.Errorf("F16Bits(%g) = %#04x, want %#04x", tt.in, got, tt.want)
		}
	}
	// Every half value survives half -> float32 -> half (NaNs aside).
	for h := 0; h <= 0xffff; h++ {
		f := F16Float(uint16(h))
		if f != f {
			continue
		}
		if got := F16Bits(f); got != uint16(h) {
			t.Fatalf("F16Bits(F16Float(%#04x) = %g) = %#04x", h, f, got)
		}
	}
}
