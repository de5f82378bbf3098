package main

import (
	"fmt"
	"io"
	"strings"
)

// writeUnifiedDiff writes the change from a to b as a unified diff with
// three lines of context, as diff -u does (both sides named after path).
func writeUnifiedDiff(w io.Writer, path string, a, b []byte) {
	x, y := splitLines(string(a)), splitLines(string(b))
	ops := lineDiff(x, y)
	fmt.Fprintf(w, "--- %s\n+++ %s (formatted)\n", path, path)
	const ctx = 3
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// A hunk: from ctx lines before this change to ctx lines after the
		// last change that is at most 2*ctx lines from the previous one.
		start := max(i-ctx, 0)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j + 1
			} else if j-end >= 2*ctx {
				break
			}
		}
		end = min(end+ctx, len(ops))
		h := ops[start:end]
		aStart, bStart := ops[start].a, ops[start].b
		aLen, bLen := 0, 0
		for _, op := range h {
			if op.kind != '+' {
				aLen++
			}
			if op.kind != '-' {
				bLen++
			}
		}
		fmt.Fprintf(w, "@@ -%s +%s @@\n", hunkRange(aStart, aLen), hunkRange(bStart, bLen))
		for _, op := range h {
			fmt.Fprintf(w, "%c%s\n", op.kind, op.text)
		}
		i = end
	}
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprint(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// diffOp is one line of a diff: kept (' '), removed ('-') or added ('+'),
// with the 0-based index it stands at in a and in b.
type diffOp struct {
	kind rune
	text string
	a, b int
}

// lineDiff is a longest-common-subsequence line diff. Scenario files are
// small; past a few million line pairs it falls back to replacing every
// line, which is still a correct diff.
func lineDiff(x, y []string) []diffOp {
	var ops []diffOp
	if len(x)*len(y) > 4_000_000 {
		for i, l := range x {
			ops = append(ops, diffOp{'-', l, i, 0})
		}
		for j, l := range y {
			ops = append(ops, diffOp{'+', l, len(x), j})
		}
		return ops
	}
	// lcs[i][j] is the LCS length of x[i:] and y[j:].
	lcs := make([][]int32, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			ops = append(ops, diffOp{' ', x[i], i, j})
			i, j = i+1, j+1
		case j < len(y) && (i == len(x) || lcs[i][j+1] > lcs[i+1][j]):
			ops = append(ops, diffOp{'+', y[j], i, j})
			j++
		default:
			ops = append(ops, diffOp{'-', x[i], i, j})
			i++
		}
	}
	return ops
}
