package main

import (
	"io"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// writeUnifiedDiff writes the change from a to b as a unified diff with
// three lines of context, as diff -u does (both sides named after path).
func writeUnifiedDiff(w io.Writer, path string, a, b []byte) error {
	return difflib.WriteUnifiedDiff(w, difflib.UnifiedDiff{
		A: lines(string(a)), B: lines(string(b)),
		FromFile: path, ToFile: path + " (formatted)", Context: 3,
	})
}

// lines splits s after each newline; a last line without one gets one
// (difflib.SplitLines would add an empty last line instead).
func lines(s string) []string {
	out := strings.SplitAfter(s, "\n")
	if out[len(out)-1] == "" {
		return out[:len(out)-1]
	}
	out[len(out)-1] += "\n"
	return out
}
