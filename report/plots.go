package report

// The HTML report's plots, drawn with gonum/plot as SVG: latency CDFs, time
// series, the server's figures, throughput, in-flight requests, percentiles
// per stage and the sweep's load curve.

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
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
	"github.com/llmload/llmload/results"
)

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
	p.X.Tick.Marker, p.Y.Tick.Marker = niceTicks{}, niceTicks{}
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
	p.X.Tick.Marker = logTicks{}
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
		// Histogram units are microseconds. Samples of 0 (ITL gaps between
		// events that arrived together) have no place on a log axis: the
		// line starts at the smallest positive sample, at the share of
		// zeros, which the legend states, instead of stretching the axis
		// down to 1 us.
		ms := func(us int64) float64 { return float64(us) / 1000 }
		var zero int64
		bars := h.Distribution()
		for _, b := range bars {
			if b.To <= 0 {
				zero += b.Count
			}
		}
		total := h.TotalCount()
		cum := zero
		first := true
		for _, b := range bars {
			if b.Count == 0 || b.To <= 0 {
				continue
			}
			if first {
				xys = append(xys, plotter.XY{X: ms(max(b.From, 1)), Y: float64(cum) / float64(total)})
				first = false
			}
			cum += b.Count
			xys = append(xys, plotter.XY{X: ms(b.To), Y: float64(cum) / float64(total)})
		}
		label := fmt.Sprintf("%s (p99 %.1f ms)", r.Label, l.P99)
		if zero > 0 {
			share := fmt.Sprintf("%.1f%%", 100*float64(zero)/float64(total))
			if share == "0.0%" {
				share = "<0.1%"
			}
			label = fmt.Sprintf("%s (p99 %.1f ms; %s at 0 ms)", r.Label, l.P99, share)
		}
		if len(xys) == 0 {
			continue // every sample 0
		}
		if err := addLine(p, xys, i, label, true); err != nil {
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
func windows(r *results.Result) ([]metrics.Window, []float64, float64) {
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
		if loadView(r.Result) != nil {
			return true
		}
	}
	return false
}

// loadView is what the load plots draw of a result: its sweep or capacity
// search, or, for a closed loop of stages (the saturation run, ramping
// users to find the knee), its stages as steps of a users sweep, with the
// knee found as a sweep's is and the capacity the stages' (the most users
// meeting every sla check). Nil when there is no load to plot against.
func loadView(r *results.Result) *results.Sweep {
	if sw := r.Sweep; sw != nil && len(sw.Steps) > 0 {
		return sw
	}
	users := map[int]bool{}
	for _, st := range r.Stages {
		if st.Summary != nil && st.Summary.Completed > 0 {
			users[st.Users] = true
		}
	}
	if len(users) < 2 {
		return nil
	}
	sw := &results.Sweep{Mode: results.ModeSweep, Vary: results.VaryUsers, KneeShare: defaultKneeShare}
	for _, st := range r.Stages {
		sw.Steps = append(sw.Steps, results.Step{Step: st.Stage, Value: float64(st.Users), Duration: st.Duration, Summary: st.Summary,
			MeanUsers: st.MeanUsers, SLAChecked: st.SLAChecked, SLAFailed: st.SLAFailed, SLAInconclusive: st.SLAInconclusive, Checks: st.Checks})
	}
	sw.Knee = results.KneeOf(sw.Steps, sw.KneeShare)
	if c := r.Capacity; c != nil {
		sw.Capacity = &results.LoadCapacity{Value: float64(c.Users), Step: c.Stage}
	}
	return sw
}

// defaultKneeShare is the knee's share of the initial slope for stages, as
// a sweep's default (scenario.DefaultKneeShare).
const defaultKneeShare = 0.1

// loadPlot draws a figure of each sweep's steps against their load, sorted
// by load: output throughput, or the P99 of TTFT or ITL with the SLA's
// bound; the knee and the capacity are vertical lines.
func loadPlot(what string) func([]Labelled) (figure, error) {
	return func(runs []Labelled) (figure, error) {
		var vary string
		for _, r := range runs {
			if sw := loadView(r.Result); sw != nil && vary == "" {
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
		for i, r := range runs {
			sw := loadView(r.Result)
			if sw == nil {
				continue
			}
			steps := slices.Clone(sw.Steps)
			slices.SortStableFunc(steps, func(a, b results.Step) int { return cmpFloat(a.Value, b.Value) })
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
			if bound, ok := slaBound(runs, what); ok && xmax > 0 {
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
		sw := loadView(r.Result)
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
