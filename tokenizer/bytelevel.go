package tokenizer

import "unicode/utf8"

// byteToChar and charToByte are GPT-2's bytes_to_unicode table: every byte is
// shown as a printable character in byte-level vocabularies ("Ġ" for a space).
var (
	byteToChar [256]rune
	charToByte [256 + 68]int16 // -1: not in the alphabet
)

func init() {
	for i := range charToByte {
		charToByte[i] = -1
	}
	n := 0
	for b := 0; b < 256; b++ {
		printable := (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)
		r := rune(b)
		if !printable {
			r = rune(256 + n)
			n++
		}
		byteToChar[b] = r
		charToByte[r] = int16(b)
	}
}

// unByteLevel turns a byte-level vocabulary string ("Ġthe") into the raw
// bytes it stands for (" the"), appending to dst. ok is false when s holds a
// character outside the 256-character alphabet.
func unByteLevel(dst []byte, s string) (out []byte, ok bool) {
	for _, r := range s {
		if r >= rune(len(charToByte)) || charToByte[r] < 0 {
			return dst, false
		}
		dst = append(dst, byte(charToByte[r]))
	}
	return dst, true
}

// lossyUTF8 converts b to a string the way Rust's String::from_utf8_lossy
// does: each maximal ill-formed subsequence becomes one U+FFFD.
func lossyUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	out := make([]byte, 0, len(b)+8)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || size > 1 {
			out = append(out, b[i:i+size]...)
			i += size
			continue
		}
		out = utf8.AppendRune(out, utf8.RuneError)
		i += maximalSubpart(b[i:])
	}
	return string(out)
}

// maximalSubpart is the length of the ill-formed sequence at the start of b
// that Unicode's "substitution of maximal subparts" replaces by one U+FFFD.
func maximalSubpart(b []byte) int {
	lo, hi := byte(0x80), byte(0xBF)
	var need int
	switch c := b[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c == 0xED:
		need, hi = 2, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		need = 2
	case c == 0xF0:
		need, lo = 3, 0x90
	case c == 0xF4:
		need, hi = 3, 0x8F
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	default:
		return 1
	}
	n := 1
	for ; n <= need && n < len(b); n++ {
		if b[n] < lo || b[n] > hi {
			break
		}
		lo, hi = 0x80, 0xBF
	}
	return n
}
