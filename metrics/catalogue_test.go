package metrics

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var updateDocs = flag.Bool("update", false, "rewrite golden files and the catalogue in docs/metrics.md")

const (
	docPath   = "../docs/metrics.md"
	startMark = "<!-- catalogue:start (generated from metrics.Catalogue; go test ./metrics -update) -->\n"
	endMark   = "<!-- catalogue:end -->\n"
)

// TestCatalogueDoc keeps docs/metrics.md's catalogue section equal to
// the table in code.
func TestCatalogueDoc(t *testing.T) {
	data, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, startMark), strings.Index(doc, endMark)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the catalogue markers %q ... %q", docPath, startMark, endMark)
	}
	want := CatalogueMarkdown()
	got := doc[i+len(startMark) : j]
	if *updateDocs {
		doc = doc[:i+len(startMark)] + want + doc[j:]
		if err := os.WriteFile(docPath, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s is out of date with metrics.Catalogue (go test ./metrics -update) (-want +got):\n%s", docPath, diff)
	}
}

// TestCatalogueReadsEveryFigure checks that every catalogue entry reads
// its own field of a summary.
func TestCatalogueReadsEveryFigure(t *testing.T) {
	capacity := 12.0
	// A run whose engine reported cached tokens, of prompts that share
	// prefixes, and speculative decoding drafts: prefix_reuse and
	// spec_acceptance have a value.
	s := &Summary{Completed: 3, DefectiveOutputs: 1, ExpectedJudged: 2, ExpectedPassed: 1, Errors: map[ErrorKind]int{ErrorKinds[0]: 3}, Finish: map[string]int{"stop": 3}, OutputDefects: map[string]int{"blank": 3}, Capacity: &capacity, CacheReports: 1, CachedTokens: 32, IdealCachedTokens: 64,
		DraftTokens: 10, AcceptedDraftTokens: 7, ReferencedAnswers: 2, ReferenceTokens: 100, ReferencedOutputTokens: 60, Agreement: &Agreement{Pairs: 4, Exact: 3, Scored: 4, PrefixSum: 3.5, SimilaritySum: 3.5}}
	if v, ok := s.Value("capacity", ""); !ok || v != 12 {
		t.Errorf("capacity = %v, %v; want 12", v, ok)
	}
	if _, ok := (&Summary{}).Value("capacity", ""); ok {
		t.Error("capacity has a value in a run that did not measure it")
	}
	seen := map[*Latency]string{}
	for _, m := range Catalogue {
		switch m.Kind {
		case Distribution:
			l := m.Dist(s)
			if other, dup := seen[l]; dup {
				t.Errorf("%s and %s read the same distribution", m.Name, other)
			}
			seen[l] = m.Name
			l.Count, l.P99 = 1, 42
			if v, ok := s.Value(m.Name, "p99"); !ok || v != 42 {
				t.Errorf("%s.p99 = %v, %v; want 42", m.Name, v, ok)
			}
		case Scalar:
			if _, ok := s.Value(m.Name, ""); !ok {
				t.Errorf("%s: no value", m.Name)
			}
			if m.Unit == "" || m.Title == "" || m.Description == "" {
				t.Errorf("%s lacks a unit, title or description", m.Name)
			}
		case Counts:
			key := m.CountKeys()[0]
			if v, ok := s.Value(m.Name, key); !ok || v != 3 {
				t.Errorf("%s.%s = %v, %v; want 3", m.Name, key, v, ok)
			}
		}
	}
	if _, ok := s.Value("nope", ""); ok {
		t.Error("an unknown metric has a value")
	}
	if _, ok := s.Value("ttft", "p42"); ok {
		t.Error("an unknown stat has a value")
	}
}
