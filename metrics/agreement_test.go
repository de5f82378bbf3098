package metrics

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPrefixShare(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"", "", 1},
		{"the cat sat", "the cat sat", 1},
		{"the cat sat", "the dog sat", 4.0 / 11},
		{"abcd", "ab", 0.5},
		{"xyz", "abc", 0},
		{"héllo", "hélp", 3.0 / 5}, // characters, not bytes
	}
	for _, tt := range tests {
		if got := PrefixShare(tt.a, tt.b); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("PrefixShare(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := PrefixShare(tt.b, tt.a); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("PrefixShare is not symmetric for %q, %q", tt.a, tt.b)
		}
	}
}

func TestAnswerSimilarity(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"", "", 1},
		{"one", "one", 1},
		{"one", "two", 0},
		{"a b c d", "a b c d", 1},
		// One word changed in the middle: bigrams a-b, b-c, c-d against
		// a-b, b-x, x-d: one in common of six.
		{"a b c d", "a b x d", 2.0 / 6},
		{"a b c d e f", "a b c d e g", 8.0 / 10},
		{"p q", "", 0},
	}
	for _, tt := range tests {
		if got := AnswerSimilarity(tt.a, tt.b); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("AnswerSimilarity(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestWilson against textbook values: 8 of 10 at 95% is [0.490, 0.943]
// (Agresti and Coull 1998), 0 of 10 is [0, 0.278], 10 of 10 is
// [0.722, 1].
func TestWilson(t *testing.T) {
	tests := []struct {
		k, n   int
		lo, hi float64
	}{
		{8, 10, 0.4902, 0.9433},
		{0, 10, 0, 0.2775},
		{10, 10, 0.7225, 1},
		{0, 0, 0, 1},
	}
	for _, tt := range tests {
		lo, hi := Wilson(tt.k, tt.n, 0.95)
		if math.Abs(lo-tt.lo) > 5e-4 || math.Abs(hi-tt.hi) > 5e-4 {
			t.Errorf("Wilson(%d, %d) = [%.4f, %.4f], want [%.4f, %.4f]", tt.k, tt.n, lo, hi, tt.lo, tt.hi)
		}
	}
}

// TestAgree pairs two books by prompt: pairs with both texts are scored
// (1 when alike, their prefix and similarity when not), pairs without
// text count only in the exact match, alike or not; unpaired prompts, failed
// requests, warmups and second answers to a prompt do not count.
func TestAgree(t *testing.T) {
	base, cand := NewAnswerBook(), NewAnswerBook()
	add := func(b *AnswerBook, index, turn int, hash uint64, text string, mod func(*Request)) {
		r := &Request{DatasetIndex: index, Turn: turn, OutputHash: hash, GeneratedText: text, OutputEvents: 3}
		if mod != nil {
			mod(r)
		}
		b.Add(r)
	}
	add(base, 0, 0, 1, "a b c d", nil)
	add(cand, 0, 0, 1, "a b c d", nil) // alike
	add(base, 1, 0, 2, "a b c d", nil)
	add(cand, 1, 0, 3, "a b x d", nil) // differ, both texts
	add(base, 2, 0, 4, "", nil)
	add(cand, 2, 0, 5, "", nil) // differ, no texts: exact match only
	add(base, 7, 0, 10, "", nil)
	add(cand, 7, 0, 10, "", nil) // alike, no texts: exact match only, not scored
	add(base, 3, 1, 6, "x", nil)
	add(cand, 3, 2, 6, "x", nil) // another turn: unpaired
	add(cand, 4, 0, 7, "q", nil) // the baseline never answered it
	add(base, 5, 0, 8, "q", nil)
	add(cand, 5, 0, 9, "r", func(r *Request) { r.Error = ErrorKinds[0] }) // failed
	add(cand, 6, 0, 9, "r", func(r *Request) { r.Warmup = true })
	add(cand, 0, 0, 99, "other", nil) // a second answer to prompt 0: the first counts
	a := Agree(base, cand, "the baseline arm", nil)
	want := Agreement{Against: "the baseline arm", Pairs: 4, Exact: 2, Scored: 2, PrefixSum: 1 + 4.0/7, SimilaritySum: 1 + 2.0/6,
		// the one scored pair that differs, cut at its first difference
		Divergences: []Divergence{{Index: 1, At: 4, Before: "a b ", Base: "c d", Candidate: "x d"}}}
	if diff := cmp.Diff(want, *a); diff != "" {
		t.Fatalf("Agree (-want +got):\n%s", diff)
	}
	if got := a.ExactMatch(); got != 0.5 {
		t.Errorf("ExactMatch = %v, want 1/2", got)
	}
	if got := a.PrefixAgreement(); math.Abs(got-(1+4.0/7)/2) > 1e-12 {
		t.Errorf("PrefixAgreement = %v", got)
	}
	if lo, hi := a.ExactMatchInterval(); !(lo < 0.5 && 0.5 < hi) {
		t.Errorf("interval [%v, %v] does not hold the estimate", lo, hi)
	}
	a.Sampled = true
	if !math.IsNaN(a.ExactMatch()) || !math.IsNaN(a.PrefixAgreement()) || !math.IsNaN(a.Similarity()) {
		t.Errorf("sampled requests have agreement figures")
	}
	var none *Agreement
	if !math.IsNaN(none.ExactMatch()) {
		t.Errorf("no agreement has an exact match")
	}
	// Merged parts add up.
	b := Agreement{Against: "the baseline arm", Pairs: 1, Exact: 1, Scored: 1, PrefixSum: 1, SimilaritySum: 1,
		Divergences: []Divergence{{Index: 0, Base: "y", Candidate: "z"}}}
	b.Add(&want)
	if b.Pairs != 5 || b.Exact != 3 || b.Scored != 3 || b.Against != "the baseline arm" || len(b.Divergences) != 2 || b.Divergences[1].Index != 1 {
		t.Errorf("merged %+v", b)
	}
}

// TestDivergences: a differing answer is cut around its first difference
// (by characters, not bytes), the first MaxDivergences prompts in order
// are kept, and scrub runs on the whole texts before they are cut.
func TestDivergences(t *testing.T) {
	long := strings.Repeat("é", 100)
	d := NewDivergence(AnswerKey{Index: 3, Turn: 1}, long+"abc", long+"abd")
	if d.At != 102 || d.Before != strings.Repeat("é", 78)+"ab" || d.Base != "c" || d.Candidate != "d" || !d.Cut || d.Index != 3 || d.Turn != 1 {
		t.Errorf("NewDivergence = %+v", d)
	}
	if d := NewDivergence(AnswerKey{}, "same start", "same start and more"); d.At != 10 || d.Base != "" || d.Candidate != " and more" || d.Cut {
		t.Errorf("a prefix: %+v", d)
	}
	base, cand := NewAnswerBook(), NewAnswerBook()
	for i := range 3 * MaxDivergences {
		k := AnswerKey{Index: 3*MaxDivergences - i}
		base.Put(k, 1, "the key sk-SECRET is here", true)
		cand.Put(k, 2, "the key sk-SECRET was here", true)
	}
	a := Agree(base, cand, "b", func(s string) string { return strings.ReplaceAll(s, "sk-SECRET", "[redacted]") })
	if len(a.Divergences) != MaxDivergences || a.Divergences[0].Index != 1 || a.Divergences[MaxDivergences-1].Index != MaxDivergences {
		t.Fatalf("kept %d divergences from %d, want the first %d prompts", len(a.Divergences), a.Divergences[0].Index, MaxDivergences)
	}
	if d := a.Divergences[0]; d.Before != "the key [redacted] " || d.Base != "is here" || d.Candidate != "was here" {
		t.Errorf("scrubbed divergence %+v", d)
	}
	// Answers that differ only in a secret show nothing: no row.
	base, cand = NewAnswerBook(), NewAnswerBook()
	base.Put(AnswerKey{}, 1, "key sk-OLD", true)
	cand.Put(AnswerKey{}, 2, "key sk-NEW", true)
	if a := Agree(base, cand, "b", func(s string) string { return strings.NewReplacer("sk-OLD", "[r]", "sk-NEW", "[r]").Replace(s) }); a.Exact != 0 || len(a.Divergences) != 0 {
		t.Errorf("differing only in secrets: %+v, want not alike and no divergence shown", a)
	}
}

// TestAgreementAllAlike: every answer alike bounds each figure's interval
// at 1 exactly, at any number of pairs (a rounding error below 1 would
// read as a change of a result compared with itself).
func TestAgreementAllAlike(t *testing.T) {
	for n := 1; n <= 2000; n++ {
		a := &Agreement{Pairs: n, Exact: n, Scored: n, PrefixSum: float64(n), SimilaritySum: float64(n)}
		for _, f := range AgreementFigures {
			if v, _, hi, _, _ := a.Figure(f, DefaultConfidence); v != 1 || hi != 1 {
				t.Fatalf("%d pairs all alike: %s = %v, upper %v; want 1 and 1", n, f, v, hi)
			}
		}
		b := &Agreement{Pairs: n, Scored: n}
		if _, lo, _, _, _ := b.Figure("exact_match", DefaultConfidence); lo != 0 {
			t.Fatalf("%d pairs none alike: lower %v, want 0", n, lo)
		}
	}
}

// TestAgreementFigure: each figure with its interval and the pairs it
// rests on; the scores' interval (a mean of values between 0 and 1) is at
// least as wide as a proportion's of the same mean, and null figures say
// so.
func TestAgreementFigure(t *testing.T) {
	a := &Agreement{Pairs: 50, Exact: 40, Scored: 20, PrefixSum: 18, SimilaritySum: 19}
	for _, tt := range []struct {
		metric string
		v      float64
		n      int
	}{
		{"exact_match", 0.8, 50},
		{"prefix_agreement", 0.9, 20},
		{"answer_similarity", 0.95, 20},
	} {
		v, lo, hi, n, ok := a.Figure(tt.metric, DefaultConfidence)
		if !ok || math.Abs(v-tt.v) > 1e-12 || n != tt.n || !(0 <= lo && lo < v && v < hi && hi <= 1) {
			t.Errorf("%s: %v [%v, %v] over %d (ok %v), want %v inside its interval over %d", tt.metric, v, lo, hi, n, ok, tt.v, tt.n)
		}
	}
	if lo, hi := Wilson(40, 50, DefaultConfidence); func() bool { _, l, h, _, _ := a.Figure("exact_match", DefaultConfidence); return l != lo || h != hi }() {
		t.Errorf("exact_match's interval is not Wilson's")
	}
	for _, b := range []*Agreement{nil, {Pairs: 5, Exact: 5, Sampled: true}, {Pairs: 5, Exact: 5}} {
		if _, _, _, _, ok := b.Figure("prefix_agreement", DefaultConfidence); ok {
			t.Errorf("%+v: prefix_agreement given, want null (none scored or sampled)", b)
		}
	}
	if _, _, _, _, ok := a.Figure("ttft", DefaultConfidence); ok {
		t.Error("Figure of a latency metric succeeded")
	}
}
