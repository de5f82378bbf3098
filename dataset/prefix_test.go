package dataset

import (
	"fmt"
	"strings"
	"testing"
)

// words returns the prompt "wfrom ... wto-1".
func words(from, to int) string {
	var w []string
	for i := from; i < to; i++ {
		w = append(w, fmt.Sprintf("w%d", i))
	}
	return strings.Join(w, " ")
}

// TestMarkPrefixes: each request's ideal cached tokens are the whole
// 16-token blocks (BOS first) it shares, from its start, with any request
// before it; sessions are left out; messages count by role and content.
func TestMarkPrefixes(t *testing.T) {
	a := words(1, 41)                         // 41 ids with BOS: 2 whole blocks and 9 more
	b := words(1, 33) + " " + words(500, 520) // the first 32 words of a, then others
	reqs := []Request{
		{Prompt: a},
		{Prompt: b},
		{Prompt: words(600, 700)}, // nothing shared
		{Prompt: a},               // a again: its whole blocks
		{Prompt: words(1, 10)},    // shorter than a block
		{Turns: []Turn{{}}, Prompt: a},
		{Messages: []Message{{Role: "system", Content: words(1, 40)}, {Role: "user", Content: "w900"}}},
		{Messages: []Message{{Role: "system", Content: words(1, 40)}, {Role: "user", Content: "w901"}}},
	}
	markPrefixes(reqs, wordTokenizer{bos: true})
	want := []int{0, 32, 0, 32, 0, 0, 0, 32}
	for i, r := range reqs {
		if r.PrefixTokens != want[i] {
			t.Errorf("request %d: PrefixTokens %d, want %d", i, r.PrefixTokens, want[i])
		}
	}
}
