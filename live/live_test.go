package live

import (
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"

	"github.com/llmload/llmload/metrics"
)

var update = flag.Bool("update", false, "rewrite the live metrics table in docs/metrics.md")

const (
	docPath   = "../docs/metrics.md"
	startMark = "<!-- live:start (generated from live.Families; go test ./live -update) -->\n"
	endMark   = "<!-- live:end -->\n"
)

// familiesMarkdown renders Families as docs/metrics.md's table.
func familiesMarkdown() string {
	var b strings.Builder
	b.WriteString("| metric | type | what it is |\n| --- | --- | --- |\n")
	for _, f := range Families() {
		typ := f.Type
		if f.Label != "" {
			typ += " (by `" + f.Label + "`)"
		}
		b.WriteString("| `" + f.Name + "` | " + typ + " | " + f.Help + " |\n")
	}
	return b.String()
}

// TestFamiliesDoc keeps docs/metrics.md's table of live metrics equal to
// what the exporter serves; -update rewrites it.
func TestFamiliesDoc(t *testing.T) {
	data, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, startMark), strings.Index(doc, endMark)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the markers %q ... %q", docPath, startMark, endMark)
	}
	want, got := familiesMarkdown(), doc[i+len(startMark):j]
	if *update {
		if err := os.WriteFile(docPath, []byte(doc[:i+len(startMark)]+want+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s is out of date with live.Families (go test ./live -update) (-want +got):\n%s", docPath, diff)
	}
}

// TestExporterServesFamilies: the registry holds every family, by its
// type and help, and each catalogue distribution exported live is a
// histogram described as the catalogue describes it.
func TestExporterServesFamilies(t *testing.T) {
	e := New(Options{Scenario: "s"})
	ms := time.Millisecond
	r := &metrics.Request{Intended: 0, Sent: ms, TTFT: 20 * ms, E2E: 30 * ms, ITL: []time.Duration{10 * ms}, OutputTokens: 2, OutputEvents: 2, OutputTokensSource: metrics.SourceUsage}
	e.Result(r)
	e.Snapshot(metrics.Snapshot{})
	e.Snapshot(metrics.Snapshot{Elapsed: time.Second, Sent: 1, Final: true})
	fams, err := e.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		got[f.GetName()] = f
	}
	types := map[string]dto.MetricType{"histogram": dto.MetricType_HISTOGRAM, "counter": dto.MetricType_COUNTER, "gauge": dto.MetricType_GAUGE}
	for _, f := range Families() {
		mf, ok := got[f.Name]
		if !ok {
			t.Errorf("%s is not served", f.Name)
			continue
		}
		if mf.GetType() != types[f.Type] || mf.GetHelp() != f.Help {
			t.Errorf("%s: served as %v %q, want %s %q", f.Name, mf.GetType(), mf.GetHelp(), f.Type, f.Help)
		}
	}
	for _, m := range metrics.Catalogue {
		if m.Live == "" {
			continue
		}
		mf := got[m.Live]
		if mf == nil || mf.GetHelp() != m.Description || len(mf.GetMetric()) != 1 || mf.GetMetric()[0].GetHistogram().GetSampleCount() != uint64(len(m.Samples(r))) {
			t.Errorf("%s (%s): %v; want the catalogue's description and the request's %d samples", m.Live, m.Name, mf, len(m.Samples(r)))
		}
	}
}
