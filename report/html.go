package report

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/llmload/llmload/metrics"
)

// Labelled is one result of an HTML report, with the name it goes by in
// legends and headings (the file name, say "baseline").
type Labelled struct {
	Label  string
	Result *Result
}

// palette is the colour of each result in overlaid plots: the first is
// the baseline, the second the candidate.
var palette = []color.RGBA{
	{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
}

var (
	slaColour  = color.RGBA{R: 0xe0, G: 0x40, B: 0x40, A: 0xff}
	kneeColour = color.RGBA{R: 0x60, G: 0x60, B: 0x60, A: 0xff}
	capColour  = color.RGBA{R: 0x20, G: 0x90, B: 0x40, A: 0xff}
	plotWidth  = 7.5 * vg.Inch
	plotHeight = 3.2 * vg.Inch
	sansSerif  = font.Font{Typeface: "Liberation", Variant: "Sans"}
)

func colourOf(i int) color.RGBA { return palette[i%len(palette)] }

// figure is one rendered plot.
type figure struct {
	Title string
	SVG   template.HTML
}

// WriteHTML writes one self-contained HTML page (inline CSS and SVG, no
// script, no external URL) for one result, or several overlaid (the first
// as the baseline): the summary and checks, latency CDFs from the stored
// histograms, the time series, stage tables, and for sweeps and capacity
// searches throughput and P99 latencies against load with the SLA bounds,
// the knee and the capacity marked. It reads only the results.
func WriteHTML(w io.Writer, results []Labelled) error {
	if len(results) == 0 {
		return fmt.Errorf("no result to report")
	}
	page := htmlPage{Title: "llmload report: " + results[0].Result.Scenario}
	if len(results) > 1 {
		var names []string
		for _, r := range results {
			names = append(names, r.Label)
		}
		page.Title = "llmload report: " + strings.Join(names, " vs ")
	}
	for i, r := range results {
		page.Runs = append(page.Runs, runInfo(i, r))
	}
	page.Summary = summaryTable(results)
	var figs []figure
	add := func(f figure, err error) error {
		if err != nil {
			return err
		}
		if f.SVG != "" {
			figs = append(figs, f)
		}
		return nil
	}
	for _, name := range []string{"ttft", "itl", "tpot", "e2el"} {
		if err := add(cdfPlot(results, name)); err != nil {
			return err
		}
	}
	page.CDFs, figs = figs, nil
	for _, f := range []func([]Labelled) (figure, error){throughputPlot, inFlightPlot, percentilePlot("ttft"), percentilePlot("itl"),
		serverPlot("kv_cache_usage", "Server KV-cache usage over time", "fraction of the KV cache in use"),
		serverPlot("requests_running", "Server running requests over time", "requests in the batch"),
		serverPlot("queue", "Server waiting requests over time", "requests waiting"),
		serverPlot("preemptions", "Server preemptions over time", "preemptions per second")} {
		if err := add(f(results)); err != nil {
			return err
		}
	}
	page.Series, figs = figs, nil
	if hasSweep(results) {
		for _, f := range []func([]Labelled) (figure, error){loadPlot("output"), loadPlot("ttft"), loadPlot("itl")} {
			if err := add(f(results)); err != nil {
				return err
			}
		}
		page.Load = figs
	}
	return htmlTemplate.Execute(w, page)
}

type htmlPage struct {
	Title   string
	Runs    []htmlRun
	Summary htmlTable
	CDFs    []figure
	Series  []figure
	Load    []figure
}

type htmlRun struct {
	Label, Colour string
	Facts         []string
	Warnings      []string
	Checks        []htmlCheck
	Stages        *htmlTable
	Steps         *htmlTable
	Findings      []string
}

type htmlCheck struct {
	Passed                                 bool
	Name, Kind, Threshold, Measured, Notes string
}

type htmlTable struct {
	Head []string
	Rows [][]string
}

func cssColour(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

func runInfo(i int, l Labelled) htmlRun {
	r := l.Result
	run := htmlRun{Label: l.Label, Colour: cssColour(colourOf(i))}
	run.Facts = append(run.Facts,
		"scenario "+r.Scenario,
		"run "+r.RunID,
		"started "+r.StartedAt.Format("2006-01-02 15:04:05 MST"),
		"target "+r.TargetURL+" ("+r.API+")",
		"model "+r.ModelID,
		"llmload "+r.ToolVersion)
	if r.Interrupted {
		run.Warnings = append(run.Warnings, "Interrupted: these are partial results.")
	}
	if r.Schedule.Warning != "" {
		run.Warnings = append(run.Warnings, r.Schedule.Warning)
	}
	if r.TokenizerApproximate {
		run.Warnings = append(run.Warnings, "The tokenizer is approximate for this model: token counts are estimates.")
	}
	for _, c := range r.Checks {
		hc := htmlCheck{Passed: c.Passed, Name: c.Name, Kind: c.Kind, Threshold: c.ThresholdText(), Measured: c.MeasuredText()}
		if c.Kind == "assert" {
			hc.Threshold = c.Description
		}
		if !c.Passed {
			hc.Notes = c.Message
		}
		run.Checks = append(run.Checks, hc)
	}
	if len(r.Stages) > 0 {
		t := &htmlTable{Head: []string{"stage", "users", "mean users", "time (s)", "req/s", "out tok/s", "tok/s/user", "TTFT p50", "TTFT p99", "ITL p50", "ITL p99", "errors", "sla"}}
		for _, st := range r.Stages {
			s := st.Summary
			if s == nil || s.Completed+s.Failed == 0 {
				t.Rows = append(t.Rows, []string{fmt.Sprint(st.Stage), fmt.Sprint(st.Users), "not run"})
				continue
			}
			mean := cmpOr(st.MeanUsers, float64(st.Users))
			verdict := cmpOrStr(slaVerdict(st.SLAChecked, st.SLAFailed, st.SLAInconclusive), "-")
			t.Rows = append(t.Rows, []string{fmt.Sprint(st.Stage), fmt.Sprint(st.Users), f1(mean), f1(st.Duration), f2(s.RequestThroughput),
				f2(s.OutputThroughput), f2(perUnit(s.OutputThroughput, mean)), f2(s.TTFT.P50), f2(s.TTFT.P99), f2(s.ITL.P50), f2(s.ITL.P99), fmt.Sprint(s.Failed), verdict})
		}
		run.Stages = t
	}
	if sw := r.Sweep; sw != nil && len(sw.Steps) > 0 {
		t := &htmlTable{Head: []string{"step", LoadTitle(sw.Vary), "time (s)", "req/s", "out tok/s", perUnitTitle(sw.Vary), "TTFT p50", "TTFT p99", "ITL p50", "ITL p99", "err %", "sla"}}
		for _, row := range StepRows(sw) {
			if !row.Ran {
				t.Rows = append(t.Rows, []string{fmt.Sprint(row.Step), formatLoad(row.Value), "not run"})
				continue
			}
			t.Rows = append(t.Rows, []string{fmt.Sprint(row.Step), formatLoad(row.Value), f1(row.Duration), f2(row.ReqPerS), f2(row.OutTokPerS), f2(row.PerUnit),
				f2(row.TTFTP50), f2(row.TTFTP99), f2(row.ITLP50), f2(row.ITLP99), f2(100 * row.ErrorRate), cmpOrStr(row.Verdict, "-")})
		}
		run.Steps = t
		run.Findings = SweepFindings(sw)
	}
	return run
}

func f1(v float64) string { return fmt.Sprintf("%.1f", v) }
func f2(v float64) string { return fmt.Sprintf("%.2f", v) }

// summaryTable has one row per figure and one column per result.
func summaryTable(results []Labelled) htmlTable {
	t := htmlTable{Head: []string{"figure"}}
	for _, r := range results {
		t.Head = append(t.Head, r.Label)
	}
	type fig struct {
		name string
		get  func(s *metrics.Summary) string
	}
	figs := []fig{
		{"completed requests", func(s *metrics.Summary) string { return fmt.Sprint(s.Completed) }},
		{"failed requests", func(s *metrics.Summary) string { return fmt.Sprint(s.Failed) }},
		{"error rate", func(s *metrics.Summary) string { return fmt.Sprintf("%.2f%%", 100*s.ErrorRate()) }},
		{"duration (s)", func(s *metrics.Summary) string { return f2(s.Duration) }},
		{"request throughput (req/s)", func(s *metrics.Summary) string { return f2(s.RequestThroughput) }},
		{"output throughput (tok/s)", func(s *metrics.Summary) string { return f2(s.OutputThroughput) }},
		{"peak output throughput (tok/s)", func(s *metrics.Summary) string { return f2(s.PeakOutputThroughput) }},
		{"peak concurrent requests", func(s *metrics.Summary) string { return fmt.Sprint(s.PeakConcurrency) }},
		{"capacity", func(s *metrics.Summary) string {
			if s.Capacity == nil {
				return "-"
			}
			return formatLoad(*s.Capacity)
		}},
	}
	for _, name := range []string{"ttft", "itl", "tpot", "e2el"} {
		for _, stat := range []string{"p50", "p90", "p99"} {
			figs = append(figs, fig{metrics.Title(name, stat) + " (ms)", func(s *metrics.Summary) string {
				v, ok := s.Value(name, stat)
				if !ok {
					return "-"
				}
				return f2(v)
			}})
		}
	}
	for _, f := range figs {
		row := []string{f.name}
		for _, r := range results {
			s := r.Result.Summary
			if s == nil {
				s = &metrics.Summary{}
			}
			row = append(row, f.get(s))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// newPlot returns a plot with the report's fonts, a grid and a legend.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	for _, s := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font, &p.Y.Label.TextStyle.Font, &p.X.Tick.Label.Font, &p.Y.Tick.Label.Font, &p.Legend.TextStyle.Font} {
		s.Typeface, s.Variant = sansSerif.Typeface, sansSerif.Variant
	}
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.Legend.Top = true
	p.Legend.Left = false
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 0xe0}
	grid.Horizontal.Color = color.Gray{Y: 0xe0}
	p.Add(grid)
	return p
}

// render draws p as an inline SVG element (no XML prologue).
func render(p *plot.Plot, title string) (figure, error) {
	c := vgsvg.NewWith(vgsvg.UseWH(plotWidth, plotHeight))
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return figure{}, err
	}
	svg := buf.String()
	if i := strings.Index(svg, "<svg"); i >= 0 {
		svg = svg[i:]
	}
	svg = strings.Replace(svg, "<svg ", `<svg role="img" aria-label="`+template.HTMLEscapeString(title)+`" `, 1)
	return figure{Title: title, SVG: template.HTML(svg)}, nil
}

// addLine adds one result's line to p, in its colour, with a legend entry
// when there are several results.
func addLine(p *plot.Plot, xys plotter.XYs, i int, label string, legend bool, dashes ...vg.Length) error {
	if len(xys) == 0 {
		return nil
	}
	l, err := plotter.NewLine(xys)
	if err != nil {
		return err
	}
	l.Color = colourOf(i)
	l.Width = vg.Points(1.5)
	l.Dashes = dashes
	p.Add(l)
	if legend {
		p.Legend.Add(label, l)
	}
	return nil
}

// cdfPlot draws the distribution of one latency as a CDF from each
// result's HDR histogram.
func cdfPlot(results []Labelled, name string) (figure, error) {
	m, _ := metrics.Lookup(name)
	title := m.Title + " distribution"
	// A log scale shows the body and the tail of a latency at once.
	p := newPlot(title, m.Title+" (ms, log scale)", "fraction of samples <= x")
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	any := false
	for i, r := range results {
		s := r.Result.Summary
		if s == nil {
			continue
		}
		l := s.LatencyOf(name)
		if l == nil || l.Count == 0 {
			continue
		}
		h, err := l.DecodeHistogram()
		if err != nil {
			return figure{}, fmt.Errorf("%s: %s: %w", r.Label, name, err)
		}
		var xys plotter.XYs
		var cum int64
		// Histogram units are microseconds; a log axis needs x > 0, so the
		// first bucket (0 to 1 us) is drawn at 1 us.
		ms := func(us int64) float64 { return float64(max(us, 1)) / 1000 }
		xys = append(xys, plotter.XY{X: ms(h.Min()), Y: 0})
		for _, b := range h.Distribution() {
			if b.Count == 0 {
				continue
			}
			cum += b.Count
			xys = append(xys, plotter.XY{X: ms(b.To), Y: float64(cum) / float64(h.TotalCount())})
		}
		if err := addLine(p, xys, i, fmt.Sprintf("%s (p99 %.1f ms)", r.Label, l.P99), true); err != nil {
			return figure{}, err
		}
		any = true
	}
	if !any {
		return figure{}, nil
	}
	p.Y.Min, p.Y.Max = 0, 1
	p.Legend.Top, p.Legend.Left = false, false
	return render(p, title)
}

// windows returns a result's time-series windows and their offsets in
// seconds from the first.
func windows(r *Result) ([]metrics.Window, []float64, float64) {
	s := r.Summary
	if s == nil || s.Series == nil || len(s.Series.Windows) == 0 {
		return nil, nil, 0
	}
	ws := s.Series.Windows
	t0 := ws[0].Start
	offs := make([]float64, len(ws))
	for i, w := range ws {
		offs[i] = w.Start.Sub(t0).Seconds()
	}
	return ws, offs, float64(s.Series.Interval)
}

// seriesPlot draws one figure of each result's time series.
func seriesPlot(results []Labelled, title, y string, value func(w metrics.Window, interval float64) (float64, bool)) (figure, error) {
	p := newPlot(title, "time since the first window (s)", y)
	any := false
	for i, r := range results {
		ws, offs, interval := windows(r.Result)
		var xys plotter.XYs
		for j, w := range ws {
			if v, ok := value(w, interval); ok {
				xys = append(xys, plotter.XY{X: offs[j] + interval/2, Y: v})
			}
		}
		if err := addLine(p, xys, i, r.Label, len(results) > 1); err != nil {
			return figure{}, err
		}
		any = any || len(xys) > 0
	}
	if !any {
		return figure{}, nil
	}
	p.Y.Min = 0
	return render(p, title)
}

// serverPlot draws one scraped server figure of each result over time, on
// the same time axis as the client's series (offsets from the client's
// first window); nothing when no result scraped it.
func serverPlot(name, title, y string) func([]Labelled) (figure, error) {
	return func(results []Labelled) (figure, error) {
		p := newPlot(title, "time since the first window (s)", y)
		any := false
		for i, r := range results {
			s := r.Result.Summary
			if s == nil || s.Server == nil || s.Server.Series == nil {
				continue
			}
			ws, _, _ := windows(r.Result)
			if len(ws) == 0 {
				continue
			}
			t0 := ws[0].Start
			iv := float64(s.Server.Series.Interval)
			var xys plotter.XYs
			for _, w := range s.Server.Series.Windows {
				if pt, ok := w.Points[name]; ok {
					xys = append(xys, plotter.XY{X: w.Start.Sub(t0).Seconds() + iv/2, Y: pt.Value})
				}
			}
			if err := addLine(p, xys, i, r.Label, len(results) > 1); err != nil {
				return figure{}, err
			}
			any = any || len(xys) > 0
		}
		if !any {
			return figure{}, nil
		}
		p.Y.Min = 0
		return render(p, title)
	}
}

func throughputPlot(results []Labelled) (figure, error) {
	return seriesPlot(results, "Output throughput over time", "output tok/s", func(w metrics.Window, interval float64) (float64, bool) {
		return float64(w.OutputTokens) / interval, interval > 0
	})
}

func inFlightPlot(results []Labelled) (figure, error) {
	return seriesPlot(results, "Requests in flight over time", "requests in flight (most in window)", func(w metrics.Window, _ float64) (float64, bool) {
		return float64(w.InFlight), true
	})
}

// percentilePlot draws P50 (dashed) and P99 of a latency per window.
func percentilePlot(name string) func([]Labelled) (figure, error) {
	return func(results []Labelled) (figure, error) {
		m, _ := metrics.Lookup(name)
		title := m.Title + " P50 (dashed) and P99 over time"
		p := newPlot(title, "time since the first window (s)", m.Title+" (ms)")
		any := false
		for i, r := range results {
			ws, offs, interval := windows(r.Result)
			var p50, p99 plotter.XYs
			for j, w := range ws {
				l := w.TTFT
				if name == "itl" {
					l = w.ITL
				}
				if l.Count == 0 {
					continue
				}
				x := offs[j] + interval/2
				p50 = append(p50, plotter.XY{X: x, Y: l.P50})
				p99 = append(p99, plotter.XY{X: x, Y: l.P99})
			}
			if err := addLine(p, p99, i, r.Label+" P99", true); err != nil {
				return figure{}, err
			}
			if err := addLine(p, p50, i, r.Label+" P50", true, vg.Points(4), vg.Points(3)); err != nil {
				return figure{}, err
			}
			any = any || len(p99) > 0
		}
		if !any {
			return figure{}, nil
		}
		p.Y.Min = 0
		return render(p, title)
	}
}

func hasSweep(results []Labelled) bool {
	for _, r := range results {
		if r.Result.Sweep != nil && len(r.Result.Sweep.Steps) > 0 {
			return true
		}
	}
	return false
}

// loadPlot draws a figure of each sweep's steps against their load, sorted
// by load: output throughput, or the P99 of TTFT or ITL with the SLA's
// bound; the knee and the capacity are vertical lines.
func loadPlot(what string) func([]Labelled) (figure, error) {
	return func(results []Labelled) (figure, error) {
		var vary string
		for _, r := range results {
			if sw := r.Result.Sweep; sw != nil && vary == "" {
				vary = sw.Vary
			}
		}
		var title, y string
		switch what {
		case "output":
			title, y = "Output throughput vs load", "output tok/s"
		default:
			m, _ := metrics.Lookup(what)
			title, y = "P99 "+m.Title+" vs load", "P99 "+m.Title+" (ms)"
		}
		p := newPlot(title, LoadTitle(vary), y)
		var xmax, ymax float64
		for i, r := range results {
			sw := r.Result.Sweep
			if sw == nil {
				continue
			}
			steps := slices.Clone(sw.Steps)
			slices.SortStableFunc(steps, func(a, b Step) int { return cmpFloat(a.Value, b.Value) })
			var xys plotter.XYs
			for _, st := range steps {
				s := st.Summary
				if s == nil || s.Completed == 0 {
					continue
				}
				v := s.OutputThroughput
				switch what {
				case "ttft":
					v = s.TTFT.P99
				case "itl":
					v = s.ITL.P99
				}
				xys = append(xys, plotter.XY{X: st.Value, Y: v})
				xmax, ymax = math.Max(xmax, st.Value), math.Max(ymax, v)
			}
			if err := addLine(p, xys, i, r.Label, true); err != nil {
				return figure{}, err
			}
			if sc, err := plotter.NewScatter(xys); err == nil && len(xys) > 0 {
				sc.Color = colourOf(i)
				p.Add(sc)
			}
			if k := sw.Knee; k != nil {
				if err := vline(p, k.Value, kneeColour, fmt.Sprintf("knee %s (%s)", formatLoad(k.Value), r.Label), true); err != nil {
					return figure{}, err
				}
			}
			if c := sw.Capacity; c != nil {
				if err := vline(p, c.Value, capColour, fmt.Sprintf("capacity %s (%s)", formatLoad(c.Value), r.Label), false); err != nil {
					return figure{}, err
				}
			}
		}
		if what != "output" {
			if bound, ok := slaBound(results, what); ok && xmax > 0 {
				l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: bound}, {X: xmax, Y: bound}})
				if err != nil {
					return figure{}, err
				}
				l.Color = slaColour
				l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
				p.Add(l)
				p.Legend.Add(fmt.Sprintf("sla P99 <= %g ms", bound), l)
				ymax = math.Max(ymax, bound)
			}
		}
		if xmax == 0 {
			return figure{}, nil
		}
		p.X.Min, p.Y.Min = 0, 0
		p.Y.Max = ymax * 1.08
		// Throughput rises to the right and latencies climb: the legend
		// goes where the lines are not.
		p.Legend.Top, p.Legend.Left = what != "output", what != "output"
		return render(p, title)
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// slaBound finds the P99 bound of a latency among the steps' sla checks.
func slaBound(results []Labelled, metric string) (float64, bool) {
	for _, r := range results {
		sw := r.Result.Sweep
		if sw == nil {
			continue
		}
		for _, st := range sw.Steps {
			for _, c := range st.Checks {
				if c.Metric == metric && c.Stat == "p99" && c.Threshold != nil {
					return *c.Threshold, true
				}
			}
		}
	}
	return 0, false
}

// vline marks a load with a vertical line across the plot's data range.
func vline(p *plot.Plot, x float64, c color.RGBA, label string, dashed bool) error {
	if math.IsNaN(x) {
		return fmt.Errorf("%s: not a number", label)
	}
	vl := &vLine{X: x, LineStyle: draw.LineStyle{Color: c, Width: vg.Points(1.2)}}
	if dashed {
		vl.LineStyle.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	}
	p.Add(vl)
	p.Legend.Add(label, vl)
	return nil
}

// vLine is a vertical line at X across the whole plot.
type vLine struct {
	X float64
	draw.LineStyle
}

// Plot implements plot.Plotter.
func (v *vLine) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x := trX(v.X)
	c.StrokeLine2(v.LineStyle, x, c.Min.Y, x, c.Max.Y)
}

// Thumbnail implements plot.Thumbnailer, for the legend.
func (v *vLine) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(v.LineStyle, c.Min.X, y, c.Max.X, y)
}

// DataRange implements plot.DataRanger: only the x of the line counts.
func (v *vLine) DataRange() (xmin, xmax, ymin, ymax float64) {
	return v.X, v.X, math.Inf(1), math.Inf(-1)
}

var htmlTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: "Liberation Sans", Arial, Helvetica, sans-serif; margin: 1.5em auto; max-width: 1150px; padding: 0 1em; color: #222; background: #fff; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 1.6em; }
h3 { font-size: 1.05em; margin-bottom: 0.3em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
th, td { border: 1px solid #d8d8d8; padding: 0.25em 0.6em; text-align: right; }
th { background: #f3f3f3; }
td:first-child, th:first-child { text-align: left; }
.pass { color: #1a7f37; font-weight: bold; }
.fail { color: #c62828; font-weight: bold; }
.warn { background: #fff4e5; border-left: 4px solid #f0a020; padding: 0.4em 0.8em; margin: 0.4em 0; }
.swatch { display: inline-block; width: 0.9em; height: 0.9em; margin-right: 0.4em; vertical-align: middle; }
.facts { color: #555; font-size: 0.9em; margin: 0.2em 0 0.6em; }
.plots { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 0.8em 1.2em; margin: 0.6em 0 1.2em; }
.plots svg { display: block; width: 100%; height: auto; }
.findings { margin: 0.3em 0 1em; padding-left: 1.2em; }
.left td { text-align: left; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{range .Runs}}<div class="facts"><span class="swatch" style="background: {{.Colour}}"></span><b>{{.Label}}</b>: {{range $i, $f := .Facts}}{{if $i}} &middot; {{end}}{{$f}}{{end}}</div>
{{range .Warnings}}<div class="warn">{{.}}</div>
{{end}}{{end}}
<h2>Summary</h2>
<table>
<tr>{{range .Summary.Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Summary.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
{{range .Runs}}{{if .Checks}}
<h2>Checks: {{.Label}}</h2>
<table class="left">
<tr><th>result</th><th>check</th><th>kind</th><th>threshold</th><th>measured</th><th>why</th></tr>
{{range .Checks}}<tr><td class="{{if .Passed}}pass{{else}}fail{{end}}">{{if .Passed}}PASS{{else}}FAIL{{end}}</td><td>{{.Name}}</td><td>{{.Kind}}</td><td>{{.Threshold}}</td><td>{{.Measured}}</td><td>{{.Notes}}</td></tr>
{{end}}</table>
{{end}}{{end}}
{{if .Load}}<h2>Load</h2>
{{range .Runs}}{{if .Steps}}<h3>Steps: {{.Label}}</h3>
<table>
<tr>{{range .Steps.Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Steps.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
<ul class="findings">{{range .Findings}}<li>{{.}}</li>{{end}}</ul>
{{end}}{{end}}
<div class="plots">{{range .Load}}{{.SVG}}
{{end}}</div>
{{end}}
{{if .CDFs}}<h2>Latency distributions</h2>
<div class="plots">{{range .CDFs}}{{.SVG}}
{{end}}</div>
{{end}}
{{if .Series}}<h2>Over time</h2>
<div class="plots">{{range .Series}}{{.SVG}}
{{end}}</div>
{{end}}
{{range .Runs}}{{if .Stages}}<h2>Stages: {{.Label}}</h2>
<table>
<tr>{{range .Stages.Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Stages.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
<p class="facts">Latencies in ms; mean users are the users active while the stage dispatched, which tok/s/user divides by.</p>
{{end}}{{end}}
<p class="facts">Written by llmload from the result files alone: every figure above is in them.</p>
</body>
</html>
`))
