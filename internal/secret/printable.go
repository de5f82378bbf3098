package secret

import (
	"fmt"
	"strings"
	"unicode"
)

// Printable is text from a server made safe to print to a terminal or a
// log: control characters (a newline that would start a forged
// "llmload: all checks passed" line, ANSI escapes that clear the screen
// or recolour it, carriage returns that overwrite a line), C1 controls,
// line and paragraph separators and bidirectional overrides are written
// as Go escapes (\n, \x1b, \u202e), the rest as it is. Text without any
// comes back unchanged.
func Printable(s string) string {
	if strings.IndexFunc(s, unsafeRune) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == unicode.ReplacementChar:
			b.WriteRune(r)
		case unsafeRune(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// unsafeRune reports a rune Printable escapes.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r == 0x2028, r == 0x2029, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
