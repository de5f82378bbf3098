package report

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/html"
)

// sweepRun is a users sweep of four steps made from the open-loop fixture's
// summary: throughput flattens after 4 users and P99 TTFT passes its bound
// at 8.
func sweepRun(mode string) *results.Run {
	base := openLoopRun()
	r := *base
	r.Scenario = "sweep"
	sw := &results.Sweep{Mode: mode, Vary: results.VaryUsers, KneeShare: 0.1}
	for i, row := range []struct{ users, tput, ttft float64 }{{1, 100, 50}, {2, 200, 60}, {4, 390, 90}, {8, 400, 900}} {
		s := *base.Overall
		s.Series = nil
		s.OutputThroughput, s.TTFT.P99 = row.tput, row.ttft
		st := results.Step{Step: i + 1, Value: row.users, Duration: 2, Summary: &s, SLAChecked: true,
			Checks: []results.Check{{Name: "ttft_p99", Kind: "sla", Metric: "ttft", Stat: "p99", Op: "<=", Threshold: num(500), Unit: "ms", Value: num(row.ttft)}}}
		if row.ttft > 500 {
			st.SLAFailed = []string{"ttft_p99"}
		}
		sw.Steps = append(sw.Steps, st)
	}
	if mode == results.ModeCapacity {
		w, rel := 4.0, 1.0
		sw.Search = &results.Search{Min: 1, Max: 16, Precision: 0.05, LastPass: 3, FirstFail: 4, Low: 4, High: 8, Width: &w, RelWidth: &rel, Outcome: results.SearchMaxProbes}
	}
	r.Sweep = sw
	return &r
}

// TestWriteHTML renders each kind of result and checks the page: every
// plot is an inline <svg> with its axes labelled, and nothing points
// outside the file.
func TestWriteHTML(t *testing.T) {
	cdfs := []string{"TTFT distribution", "ITL distribution", "TPOT distribution", "E2EL distribution"}
	series := []string{"Output throughput over time", "Requests in flight over time", "TTFT P50 (dashed) and P99 over time", "ITL P50 (dashed) and P99 over time"}
	load := []string{"Output throughput vs load", "P99 TTFT vs load", "P99 ITL vs load"}
	cat := func(l ...[]string) []string {
		var out []string
		for _, x := range l {
			out = append(out, x...)
		}
		return out
	}
	tests := []struct {
		name    string
		results []Labelled
		plots   []string
		texts   []string // must appear in the page's text
	}{
		{"open loop", []Labelled{{"smoke", result(t, openLoopRun())}}, cat(cdfs, series), []string{"Checks: smoke", "itl_p99"}},
		// A stage run (the saturation run) is plotted against its users as
		// a sweep is.
		{"closed loop stages", []Labelled{{"knee", result(t, closedLoopRun())}}, cat(load, cdfs, series), []string{"Stages: knee", "mean users"}},
		{"sweep", []Labelled{{"sweep", result(t, sweepRun(results.ModeSweep))}}, cat(load, cdfs, series), []string{"Steps: sweep", "Knee: 4 users", "Capacity: 4 users"}},
		{"capacity search", []Labelled{{"search", result(t, sweepRun(results.ModeCapacity))}}, cat(load, cdfs, series), []string{"Search: stopped at max_probes"}},
		{"baseline vs candidate", []Labelled{{"baseline", result(t, openLoopRun())}, {"candidate", result(t, closedLoopRun())}}, cat(load, cdfs, series), []string{"baseline vs candidate"}},
		{"server metrics", []Labelled{{"scraped", result(t, withServer(openLoopRun()))}}, cat(cdfs, series, []string{"Server KV-cache usage over time"}), []string{"Checks: scraped"}},
		// What the answers said, and the ones that differ from the
		// baseline's, their server text escaped (a <script> in it would
		// fail the walk below).
		{"answers", []Labelled{{"answers", result(t, withAnswers(openLoopRun()))}}, cat(cdfs, series), []string{"Outputs: answers",
			"Agreement with the baseline arm: 2 of 4 prompts answered alike", "Expected answers: 3 of 4", "Answers that differ from the baseline arm",
			"…" + strings.Repeat("x", 80), "<script>alert(1)</script>", "(ends here)", "7 (turn 2)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteHTML(&buf, tt.results); err != nil {
				t.Fatal(err)
			}
			doc, err := html.Parse(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			var plots []string
			var text strings.Builder
			var walk func(n *html.Node)
			walk = func(n *html.Node) {
				if n.Type == html.TextNode {
					text.WriteString(n.Data)
				}
				if n.Type == html.ElementNode {
					switch n.Data {
					case "script", "link", "iframe", "img", "object", "embed":
						t.Errorf("the page has a <%s> element: it must stand alone", n.Data)
					case "svg":
						title := attr(n, "aria-label")
						plots = append(plots, title)
						checkAxes(t, n, title)
					}
					for _, a := range n.Attr {
						k := strings.ToLower(a.Key)
						if (k == "src" || k == "href" || strings.HasSuffix(k, ":href") || k == "action") && !strings.HasPrefix(a.Val, "#") {
							t.Errorf("<%s %s=%q> points outside the page", n.Data, a.Key, a.Val)
						}
						if k == "style" && strings.Contains(a.Val, "url(") {
							t.Errorf("<%s style=%q> loads a URL", n.Data, a.Val)
						}
					}
				}
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					walk(c)
				}
			}
			walk(doc)
			if diff := cmp.Diff(tt.plots, plots); diff != "" {
				t.Errorf("plots (-want +got):\n%s", diff)
			}
			for _, want := range tt.texts {
				if !strings.Contains(text.String(), want) {
					t.Errorf("the page does not say %q", want)
				}
			}
			if strings.Contains(buf.String(), "@import") {
				t.Error("the CSS imports a URL")
			}
		})
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// checkAxes checks that an SVG plot writes its title and both axis labels
// as text.
func checkAxes(t *testing.T, svg *html.Node, title string) {
	t.Helper()
	var texts []string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "text" && n.FirstChild != nil {
			texts = append(texts, n.FirstChild.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(svg)
	// Readable axes: at least two numbers labelled on each, so never an
	// axis with its two ends alone ("0.00 / 2500.00") or none at all.
	numbers := 0
	for _, s := range texts {
		if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			numbers++
		}
	}
	if numbers < 5 {
		t.Errorf("plot %q: %d numeric tick labels (%q), want at least 5 over both axes", title, numbers, texts)
	}
	x, y := axisLabels(title)
	for _, want := range []string{title, x, y} {
		found := false
		for _, s := range texts {
			found = found || s == want
		}
		if !found {
			t.Errorf("plot %q: no text %q among %q", title, want, texts)
		}
	}
}

// axisLabels are the axis labels each plot must carry.
func axisLabels(title string) (x, y string) {
	switch {
	case strings.HasSuffix(title, " distribution"):
		m := strings.TrimSuffix(title, " distribution")
		return m + " (ms, log scale)", "fraction of samples <= x"
	case title == "Output throughput over time":
		return "time since the first window (s)", "output tok/s"
	case title == "Requests in flight over time":
		return "time since the first window (s)", "requests in flight (most in window)"
	case strings.HasSuffix(title, " P50 (dashed) and P99 over time"):
		return "time since the first window (s)", strings.TrimSuffix(title, " P50 (dashed) and P99 over time") + " (ms)"
	case title == "Server KV-cache usage over time":
		return "time since the first window (s)", "fraction of the KV cache in use"
	case title == "Output throughput vs load":
		return "users", "output tok/s"
	case strings.HasPrefix(title, "P99 ") && strings.HasSuffix(title, " vs load"):
		return "users", strings.TrimSuffix(title, " vs load") + " (ms)"
	}
	return "?", "?"
}

// TestWriteTextFormats checks that Markdown and CSV carry the figures of
// the HTML page: the summary for every result and a sweep's knee and
// capacity.
func TestWriteTextFormats(t *testing.T) {
	results := []Labelled{{"base", result(t, openLoopRun())}, {"sweep", result(t, sweepRun(results.ModeSweep))}}
	var md, csv bytes.Buffer
	if err := WriteMarkdownTables(&md, results); err != nil {
		t.Fatal(err)
	}
	if err := WriteCSV(&csv, results); err != nil {
		t.Fatal(err)
	}
	out := results[0].Result.Summary.OutputThroughput
	for _, want := range []string{"| figure | base | sweep |", "## Steps: sweep", "Knee: 4 users", f2(out)} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	for _, want := range []string{"result,table,row,column,value", "base,summary,output throughput (tok/s),value," + f2(out), "sweep,sweep,knee,users,4", "sweep,sweep,capacity,users,4", "sweep,steps,3,TTFT p99,90.00"} {
		if !strings.Contains(csv.String(), want) {
			t.Errorf("csv lacks %q:\n%s", want, csv.String())
		}
	}
}

// withAnswers adds what the answers said: defects, expected answers and
// agreement with two differing answers, one with markup in its text.
func withAnswers(r *results.Run) *results.Run {
	s := *r.Overall
	s.OutputDefects, s.DefectiveOutputs = map[string]int{"blank": 1}, 1
	s.ExpectedJudged, s.ExpectedPassed = 4, 3
	s.Agreement = &metrics.Agreement{Against: "the baseline arm", Pairs: 4, Exact: 2, Scored: 4, PrefixSum: 2.5, SimilaritySum: 2.6,
		Divergences: []metrics.Divergence{
			metrics.NewDivergence(metrics.AnswerKey{Index: 3}, strings.Repeat("x", 90)+"a fine answer", strings.Repeat("x", 90)+"<script>alert(1)</script>"),
			metrics.NewDivergence(metrics.AnswerKey{Index: 7, Turn: 2}, "short", "short and long"),
		}}
	out := *r
	out.Overall = &s
	return &out
}

// TestMarkdownAnswers: report -format markdown lists what the answers
// said and the differing answers, the server's text in code spans so that
// its markup does nothing, one cell per column.
func TestMarkdownAnswers(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteMarkdownTables(&buf, []Labelled{{"answers", result(t, withAnswers(openLoopRun()))}}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"## Outputs: answers", "- Agreement with the baseline arm: 2 of 4", "Answers that differ from the baseline arm:",
		"| 3 | 90 | `` …" + strings.Repeat("x", 80) + " `` | `` a fine answer `` | `` <script>alert(1)</script> `` |",
		"| 7 (turn 2) | 5 | `` short `` | (ends here) | ``  and long `` |"} {
		if !strings.Contains(out, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, out)
		}
	}
}

// withServer gives a run a scraped KV-cache usage series over its windows.
func withServer(r *results.Run) *results.Run {
	s := *r.Overall
	srv := &metrics.ServerMetrics{URL: "http://127.0.0.1:8000/metrics", Interval: 1, Scrapes: len(s.Series.Windows), Series: &metrics.ServerSeries{Interval: 1}}
	for i, w := range s.Series.Windows {
		srv.Series.Windows = append(srv.Series.Windows, metrics.ServerWindow{Start: w.Start,
			Points: map[string]metrics.ServerPoint{"kv_cache_usage": {N: 1, Sum: 0.2 * float64(i+1), Value: 0.2 * float64(i+1)}}})
	}
	s.Server = srv
	r.Overall = &s
	return r
}

// TestTicks: a linear axis gets about five labelled ticks at a 1-2-2.5-5
// step, and a log axis labels its decades, and 2 and 5 within a narrow
// span, so that data inside one decade still has labels.
func TestTicks(t *testing.T) {
	labels := func(ts []plot.Tick) []string {
		var out []string
		for _, tk := range ts {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	for _, tt := range []struct {
		lo, hi float64
		want   []string
	}{
		{0, 2500, []string{"0", "500", "1000", "1500", "2000", "2500"}},
		{0, 1, []string{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}},
		{0, 13, []string{"0.0", "2.5", "5.0", "7.5", "10.0", "12.5"}},
	} {
		if got := labels(niceTicks{}.Ticks(tt.lo, tt.hi)); !slices.Equal(got, tt.want) {
			t.Errorf("niceTicks(%v, %v) = %v, want %v", tt.lo, tt.hi, got, tt.want)
		}
	}
	for _, tt := range []struct {
		lo, hi float64
		want   []string
	}{
		{0.5, 30, []string{"0.5", "1", "2", "5", "10", "20"}},
		// A TTFT from 12 ms to 2.5 s: 1-2-5 steps, not two decades alone.
		{12, 2500, []string{"20", "50", "100", "200", "500", "1000", "2000"}},
		{0.001, 1000, []string{"0.001", "0.01", "0.1", "1", "10", "100", "1000"}},
		// Under a decade: every integer multiple.
		{5, 47, []string{"5", "6", "7", "8", "9", "10", "20", "30", "40"}},
		{12, 18, []string{"12", "18"}},
	} {
		if got := labels(logTicks{}.Ticks(tt.lo, tt.hi)); !slices.Equal(got, tt.want) {
			t.Errorf("logTicks(%v, %v) = %v, want %v", tt.lo, tt.hi, got, tt.want)
		}
	}
}
