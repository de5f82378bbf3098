package report

import (
	"fmt"
	"html/template"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/results/resultstest"
)

// TestPlotLayout checks every figure of each kind of report for what a
// reader sees at once: the legend's entries lie inside the figure, clear
// of the plot (its data, axes and labels) and of one another, and each is
// written in full in the SVG.
func TestPlotLayout(t *testing.T) {
	overlay := func(n int) []Labelled {
		var out []Labelled
		for i := range n {
			out = append(out, Labelled{fmt.Sprintf("engine-build-%d", i+1), result(t, sweepRun(results.ModeSweep))})
		}
		return out
	}
	for _, tt := range []struct {
		name string
		runs []Labelled
	}{
		{"open loop", []Labelled{{"smoke", result(t, openLoopRun())}}},
		{"closed loop stages", []Labelled{{"knee", result(t, closedLoopRun())}}},
		{"sweep", []Labelled{{"sweep", result(t, sweepRun(results.ModeSweep))}}},
		{"capacity search", []Labelled{{"search", result(t, sweepRun(results.ModeCapacity))}}},
		{"server metrics", []Labelled{{"scraped", result(t, withServer(openLoopRun()))}}},
		{"baseline vs candidate", []Labelled{{"baseline", result(t, openLoopRun())}, {"candidate", result(t, closedLoopRun())}}},
		// Six overlaid sweeps: 6 lines, 6 knees, 6 capacities and the sla
		// line need several columns and rows.
		{"six sweeps", overlay(6)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cdfs, series, load, err := plots(tt.runs)
			if err != nil {
				t.Fatal(err)
			}
			figs := append(append(cdfs, series...), load...)
			if len(figs) == 0 {
				t.Fatal("no figure")
			}
			legends := 0
			for _, f := range figs {
				b := f.boxes
				if !inside(b.data, b.plot) || !inside(b.plot, b.canvas) {
					t.Errorf("%s: data area %v, plot %v, canvas %v do not nest", f.Title, b.data, b.plot, b.canvas)
				}
				for i, e := range b.entries {
					if !inside(e, b.canvas) {
						t.Errorf("%s: legend entry %q at %v leaves the figure %v", f.Title, b.texts[i], e, b.canvas)
					}
					if overlaps(e, b.plot) {
						t.Errorf("%s: legend entry %q at %v covers the plot %v", f.Title, b.texts[i], e, b.plot)
					}
					for j := range i {
						if overlaps(e, b.entries[j]) {
							t.Errorf("%s: legend entries %q and %q overlap", f.Title, b.texts[j], b.texts[i])
						}
					}
					if strings.HasSuffix(b.texts[i], "…") {
						t.Errorf("%s: legend entry cut to %q", f.Title, b.texts[i])
					}
					if !strings.Contains(string(f.SVG), ">"+template.HTMLEscapeString(b.texts[i])+"<") {
						t.Errorf("%s: the SVG does not write legend entry %q", f.Title, b.texts[i])
					}
				}
				legends += len(b.entries)
			}
			if legends == 0 {
				t.Error("no figure has a legend")
			}
		})
	}
}

// inside says whether a lies within b.
func inside(a, b vg.Rectangle) bool {
	return a.Min.X >= b.Min.X && a.Max.X <= b.Max.X && a.Min.Y >= b.Min.Y && a.Max.Y <= b.Max.Y
}

// TestTimeline checks the time plots' lines break where no load ran (a
// sweep's cooldown between steps) and nowhere else, and that the steps'
// starts are marked.
func TestTimeline(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	var ws []metrics.Window
	for i := range 10 {
		w := metrics.Window{Start: at(float64(i)), OutputTokens: 10 * (i + 1)}
		if i == 2 {
			w.OutputTokens = -1 // no value: bridged
		}
		ws = append(ws, w)
	}
	step := func(n int, from, to float64) results.Step {
		return results.Step{Step: n, Value: float64(n), Summary: &metrics.Summary{SpanStart: at(from), SpanEnd: at(to)}}
	}
	r := &results.Result{}
	r.Summary = &metrics.Summary{Series: &metrics.Series{Interval: 1, Windows: ws}}
	r.Sweep = &results.Sweep{Steps: []results.Step{step(1, 0, 3.5), step(2, 6.2, 10)}}
	tl := timelineOf(r)
	got := tl.lines(func(w metrics.Window) (float64, bool) { return float64(w.OutputTokens), w.OutputTokens >= 0 })
	// Windows 4 and 5 lie wholly in the cooldown from 3.5 s to 6.2 s; 3
	// and 6 hold some load.
	want := []plotter.XYs{{{X: 0.5, Y: 10}, {X: 1.5, Y: 20}, {X: 3.5, Y: 40}}, {{X: 6.5, Y: 70}, {X: 7.5, Y: 80}, {X: 8.5, Y: 90}, {X: 9.5, Y: 100}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{6.2}, tl.starts, cmpApprox); diff != "" {
		t.Errorf("starts (-want +got):\n%s", diff)
	}
	if tl.what != "step" {
		t.Errorf("what = %q, want step", tl.what)
	}
	// Without steps or stages nothing breaks and nothing is marked.
	r.Sweep = nil
	tl = timelineOf(r)
	if got := tl.lines(func(w metrics.Window) (float64, bool) { return 1, true }); len(got) != 1 || len(got[0]) != 10 || len(tl.starts) != 0 {
		t.Errorf("a plain run: %d pieces, starts %v; want one line of 10 and none", len(got), tl.starts)
	}
	// One or two windows in a row without a value are bridged; three
	// break the line.
	for _, tt := range []struct{ from, to, pieces int }{{40, 50, 1}, {40, 60, 2}} {
		got := tl.lines(func(w metrics.Window) (float64, bool) {
			return 1, w.OutputTokens < tt.from || w.OutputTokens > tt.to
		})
		if len(got) != tt.pieces {
			t.Errorf("windows with %d to %d tokens without a value: %d pieces, want %d", tt.from, tt.to, len(got), tt.pieces)
		}
	}
}

var cmpApprox = cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })

// TestGatedPercentile checks the latency plots draw the percentile the sla
// gates, with its bound, and P99 without an sla.
func TestGatedPercentile(t *testing.T) {
	p90 := func(r *results.Run) *results.Run {
		for i := range r.Sweep.Steps {
			for j := range r.Sweep.Steps[i].Checks {
				r.Sweep.Steps[i].Checks[j].Stat = "p90"
			}
		}
		for j := range r.Checks {
			r.Checks[j].Stat = "p90"
		}
		return r
	}
	ungated := func(r *results.Run) *results.Run {
		r.Checks = nil
		return r
	}
	overall := func(stat string) *results.Run {
		r := openLoopRun()
		r.Checks = []results.Check{{Name: "ttft_" + stat, Kind: "sla", Metric: "ttft", Stat: stat, Op: "<=", Threshold: num(300), Unit: "ms"}}
		return r
	}
	for _, tt := range []struct {
		name  string
		run   *results.Run
		plot  func([]Labelled) (figure, error)
		title string
		entry string // a legend entry it must have ("" for none with "sla")
	}{
		{"sweep p99", sweepRun(results.ModeSweep), loadPlot("ttft"), "P99 TTFT vs load", "sla P99 <= 500 ms"},
		{"sweep p90", p90(sweepRun(results.ModeSweep)), loadPlot("ttft"), "P90 TTFT vs load", "sla P90 <= 500 ms"},
		{"sweep itl ungated", ungated(sweepRun(results.ModeSweep)), loadPlot("itl"), "P99 ITL vs load", ""},
		{"time p95", overall("p95"), percentilePlot("ttft"), "TTFT P50 (dashed) and P95 over time", "sla P95 <= 300 ms"},
		{"time ungated", ungated(openLoopRun()), percentilePlot("ttft"), "TTFT P50 (dashed) and P99 over time", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, err := tt.plot([]Labelled{{"run", result(t, tt.run)}})
			if err != nil {
				t.Fatal(err)
			}
			if f.Title != tt.title {
				t.Errorf("title %q, want %q", f.Title, tt.title)
			}
			var sla []string
			for _, e := range f.boxes.texts {
				if strings.HasPrefix(e, "sla ") {
					sla = append(sla, e)
				}
			}
			want := []string{tt.entry}
			if tt.entry == "" {
				want = nil
			}
			if diff := cmp.Diff(want, sla); diff != "" {
				t.Errorf("sla legend entries (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCDFOneValue: a latency whose positive samples all share one value
// (a stream read in one go but for one gap, as a busy client or a
// buffering proxy makes it; requests with the same TTFT) is drawn on a log
// axis around that value. The axis had no width, which the plotting
// library widens by 1 on either side, below zero, where a log scale
// panics: `run -html` crashed on a busy machine.
func TestCDFOneValue(t *testing.T) {
	var reqs []*metrics.Request
	for i := range 5 {
		gaps := make([]time.Duration, 15)
		if i == 0 {
			gaps[7] = 528 * time.Microsecond
		}
		reqs = append(reqs, resultstest.Request(int64(i), time.Duration(i)*10*msec, 0, 0, 1500*time.Microsecond, gaps...))
	}
	rec, _ := resultstest.Record(metrics.Options{Scheduled: true}, reqs, func(int) int { return 1 })
	r := openLoopRun()
	r.Overall = rec.SummaryOver(100 * msec)
	res := result(t, r)
	for _, tt := range []struct {
		metric, label string // label: in the legend
	}{
		{"itl", "(p99 0.0 ms; 98.7% at 0 ms)"}, // one gap of 528 us in 75
		{"ttft", "(p99 1.5 ms)"},
	} {
		t.Run(tt.metric, func(t *testing.T) {
			f, err := cdfPlot([]Labelled{{"burst", res}}, tt.metric)
			if err != nil {
				t.Fatal(err)
			}
			if f.SVG == "" || !strings.Contains(string(f.SVG), tt.label) {
				t.Fatalf("no CDF of %s drawn, or without its legend %q:\n%s", tt.metric, tt.label, f.SVG)
			}
			if !inside(f.boxes.data, f.boxes.plot) {
				t.Errorf("data area %v outside the plot %v", f.boxes.data, f.boxes.plot)
			}
		})
	}
}
