package metrics

import (
	"flag"
	"math"
	"os"
	"strings"
	"testing"
	"time"

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
		DraftTokens: 10, AcceptedDraftTokens: 7, ReferencedAnswers: 2, ReferenceTokens: 100, ReferencedOutputTokens: 60, Agreement: &Agreement{Pairs: 4, Exact: 3, Scored: 4, PrefixSum: 3.5, SimilaritySum: 3.5},
		SessionDuration: Latency{Sum: 10}, SessionWaiting: Latency{Sum: 8}}
	if v, ok := s.Value("session_wait_share", ""); !ok || v != 0.8 {
		t.Errorf("session_wait_share = %v, %v; want 0.8", v, ok)
	}
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

// TestLiveSamplesAsRecorded: the samples a request gives a live histogram
// are the ones the Recorder counts in the same distribution, for every
// kind of request (so that the live view and the result agree, and the
// catalogue's description is true of both).
func TestLiveSamplesAsRecorded(t *testing.T) {
	reqs := []*Request{
		ok(0, ms, 20*ms, 5*ms, 6*ms, 7*ms),
		ok(10*ms, 0, 30*ms), // one token: no TPOT
		with(ok(20*ms, ms, 25*ms, 4*ms), func(r *Request) { r.Warmup = true }),
		with(ok(30*ms, ms, 40*ms, 5*ms, 5*ms), func(r *Request) { r.Error, r.OutputTokens = ErrAbandoned, 3 }),                            // abandoned after tokens
		with(&Request{Intended: 40 * ms, Sent: 41 * ms, Dispatched: 40 * ms}, func(r *Request) { r.Error = ErrAbandoned }),                // abandoned before any
		with(&Request{Intended: 50 * ms, Sent: 52 * ms, Dispatched: 50 * ms}, func(r *Request) { r.Error = ErrHTTPStatus }),               // failed
		with(&Request{Intended: 60 * ms, Sent: 60 * ms, Dispatched: 60 * ms, End: 60 * ms}, func(r *Request) { r.Error = ErrCanceled }),   // canceled
		with(ok(70*ms, ms, 0), func(r *Request) { r.OutputTokensSource, r.OutputTokens, r.OutputEvents, r.E2E = SourceNone, 0, 0, 9*ms }), // embeddings
	}
	rec := NewRecorder(Options{})
	for _, r := range reqs {
		rec.Add(r)
	}
	s := rec.Summary()
	live := 0
	for _, m := range Catalogue {
		if m.Live == "" {
			if m.Samples(reqs[0]) != nil {
				t.Errorf("%s gives live samples without a live name", m.Name)
			}
			continue
		}
		live++
		if m.Kind != Distribution || !strings.HasPrefix(m.Live, "llmload_") || !strings.HasSuffix(m.Live, "_seconds") || m.Unit != "ms" {
			t.Errorf("%s: live as %q: want a latency in ms, exported as llmload_<name>_seconds", m.Name, m.Live)
		}
		n, sum := 0, time.Duration(0)
		for _, r := range reqs {
			for _, v := range m.Samples(r) {
				n++
				sum += v
			}
		}
		l := m.Dist(s)
		if int64(n) != l.Count || (n > 0 && math.Abs(float64(sum)/float64(n)/float64(ms)-l.Mean) > 1e-6) {
			t.Errorf("%s: live samples %d (mean %v), the recorder's %d (mean %v ms)", m.Name, n, sum/time.Duration(max(n, 1)), l.Count, l.Mean)
		}
	}
	if live != 5 {
		t.Errorf("%d distributions exported live, want ttft, itl, tpot, e2el and queue", live)
	}
}
