package report

// The HTML report's plots, drawn with gonum/plot as SVG: latency CDFs, time
// series, the server's figures, throughput, in-flight requests, percentiles
// per stage and the sweep's load curve.

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
)

// newPlot returns a chart with the report's fonts and a grid.
func newPlot(title, x, y string) *chart {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	for _, s := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font, &p.Y.Label.TextStyle.Font, &p.X.Tick.Label.Font, &p.Y.Tick.Label.Font, &p.Legend.TextStyle.Font} {
		s.Typeface, s.Variant = sansSerif.Typeface, sansSerif.Variant
	}
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.X.Tick.Marker, p.Y.Tick.Marker = niceTicks{}, niceTicks{}
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 0xe0}
	grid.Horizontal.Color = color.Gray{Y: 0xe0}
	p.Add(grid)
	return &chart{Plot: p}
}

// addLine adds one result's line to c, in its colour, with a legend entry
// when there are several results.
func addLine(c *chart, xys plotter.XYs, i int, label string, legend bool, dashes ...vg.Length) error {
	return addLines(c, []plotter.XYs{xys}, i, label, legend, dashes...)
}

// addLines adds one result's line drawn in pieces (broken where no load
// ran), with one legend entry.
func addLines(c *chart, segs []plotter.XYs, i int, label string, legend bool, dashes ...vg.Length) error {
	first := true
	for _, xys := range segs {
		if len(xys) == 0 {
			continue
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return err
		}
		l.Color = colourOf(i)
		l.Width = vg.Points(1.5)
		l.Dashes = dashes
		c.Add(l)
		if legend && first {
			c.addLegend(label, l)
		}
		// A piece of one point draws nothing as a line: mark it.
		if len(xys) == 1 {
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return err
			}
			sc.Color = colourOf(i)
			sc.Radius = vg.Points(1.5)
			c.Add(sc)
		}
		first = false
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
	lo, hi := math.Inf(1), 0.0
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
		// The axis starts at the smallest P0.1 of the results' positive
		// samples: a few gaps of microseconds (two events read from one
		// TCP segment) would otherwise stretch it over decades where no
		// data lies, squeezing the body into a corner.
		skip := (total - zero) / 1000
		var seen int64
		for _, b := range bars {
			if b.Count == 0 || b.To <= 0 {
				continue
			}
			seen += b.Count
			if seen > skip {
				lo = math.Min(lo, ms(max(b.From, 1)))
				break
			}
		}
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
		hi = math.Max(hi, xys[len(xys)-1].X)
		if err := addLine(p, xys, i, label, true); err != nil {
			return figure{}, err
		}
		any = true
	}
	if !any {
		return figure{}, nil
	}
	p.Y.Min, p.Y.Max = 0, 1
	p.X.Min = lo
	if hi <= lo {
		// Every positive sample has one value (a stream read in one go but
		// for one gap; requests of one TTFT): an axis of no width, which the
		// plot would widen by 1 either side, below 0, where a log scale
		// cannot go. Centre the value on a factor of 2 either way.
		p.X.Min, p.X.Max = lo/2, lo*2
	}
	return render(p, title)
}

// timeline is what the time plots of one result share: its windows, their
// offsets in seconds from the first, the spans between loads (a sweep's
// cooldowns, where the lines break) and the offsets where a stage or a
// step began.
type timeline struct {
	ws       []metrics.Window
	offs     []float64
	interval float64
	t0       time.Time
	idle     [][2]float64
	starts   []float64
	what     string // "stage" or "step"
}

func timelineOf(r *results.Result) timeline {
	s := r.Summary
	if s == nil || s.Series == nil || len(s.Series.Windows) == 0 {
		return timeline{}
	}
	tl := timeline{ws: s.Series.Windows, interval: float64(s.Series.Interval), t0: s.Series.Windows[0].Start}
	tl.offs = make([]float64, len(tl.ws))
	for i, w := range tl.ws {
		tl.offs[i] = w.Start.Sub(tl.t0).Seconds()
	}
	// The spans of load: each stage, or each step (each repeated run of a
	// step apart); the load that ran is what they cover.
	type span struct{ from, to float64 }
	var spans, begins []span
	add := func(to *[]span, sum *metrics.Summary) {
		if sum != nil && !sum.SpanStart.IsZero() && !sum.SpanEnd.IsZero() {
			*to = append(*to, span{sum.SpanStart.Sub(tl.t0).Seconds(), sum.SpanEnd.Sub(tl.t0).Seconds()})
		}
	}
	if sw := r.Sweep; sw != nil && len(sw.Steps) > 0 {
		tl.what = "step"
		for _, st := range sw.Steps {
			add(&begins, st.Summary)
			if len(st.Runs) == 0 {
				add(&spans, st.Summary)
			}
			for _, run := range st.Runs {
				add(&spans, run.Summary)
			}
		}
	} else if len(r.Stages) > 1 {
		tl.what = "stage"
		for _, st := range r.Stages {
			add(&begins, st.Summary)
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return cmpFloat(a.from, b.from) })
	end := math.Inf(-1)
	for i, sp := range spans {
		if i > 0 && sp.from > end {
			tl.idle = append(tl.idle, [2]float64{end, sp.from})
		}
		end = math.Max(end, sp.to)
	}
	if len(begins) > 1 {
		for _, b := range begins {
			tl.starts = append(tl.starts, b.from)
		}
		slices.Sort(tl.starts)
		tl.starts = tl.starts[1:]
	}
	return tl
}

// idleAt says whether no load ran during window j.
func (tl timeline) idleAt(j int) bool {
	from, to := tl.offs[j], tl.offs[j]+tl.interval
	for _, g := range tl.idle {
		if from >= g[0] && to <= g[1] {
			return true
		}
	}
	return false
}

// lines returns a value of each window at its middle, in pieces broken
// where no load ran or where more than two windows in a row have no value
// (a latency with no request completing); one or two are bridged.
func (tl timeline) lines(value func(w metrics.Window) (float64, bool)) []plotter.XYs {
	var segs []plotter.XYs
	var cur plotter.XYs
	missing := 0
	for j, w := range tl.ws {
		if tl.idleAt(j) {
			if len(cur) > 0 {
				segs, cur = append(segs, cur), nil
			}
			continue
		}
		v, ok := value(w)
		if !ok {
			if missing++; missing > 2 && len(cur) > 0 {
				segs, cur = append(segs, cur), nil
			}
			continue
		}
		missing = 0
		cur = append(cur, plotter.XY{X: tl.offs[j] + tl.interval/2, Y: v})
	}
	if len(cur) > 0 {
		segs = append(segs, cur)
	}
	return segs
}

// markStarts draws where each stage or step of the results began.
func markStarts(c *chart, runs []Labelled, tls []timeline) {
	for i, tl := range tls {
		if len(tl.starts) == 0 {
			continue
		}
		col := color.RGBA{R: 0x9a, G: 0x9a, B: 0x9a, A: 0xff}
		label := tl.what + " starts"
		if len(runs) > 1 {
			col, label = colourOf(i), label+" ("+runs[i].Label+")"
		}
		for k, x := range tl.starts {
			vl := &vLine{X: x, LineStyle: draw.LineStyle{Color: col, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(1), vg.Points(2)}}}
			c.Add(vl)
			if k == 0 {
				c.addLegend(label, vl)
			}
		}
	}
}

// timePlot draws one figure of each result's time series, with the
// stages' or steps' starts marked.
func timePlot(runs []Labelled, title, y string, plotRun func(c *chart, i int, r Labelled, tl timeline) (bool, error), extra ...func(c *chart)) (figure, error) {
	c := newPlot(title, "time since the first window (s)", y)
	tls := make([]timeline, len(runs))
	any := false
	for i, r := range runs {
		tls[i] = timelineOf(r.Result)
		if len(tls[i].ws) == 0 {
			continue
		}
		ok, err := plotRun(c, i, r, tls[i])
		if err != nil {
			return figure{}, err
		}
		any = any || ok
	}
	if !any {
		return figure{}, nil
	}
	markStarts(c, runs, tls)
	for _, f := range extra {
		f(c)
	}
	c.X.Min, c.Y.Min = 0, 0
	return render(c, title)
}

// seriesPlot draws one figure of each result's time series.
func seriesPlot(runs []Labelled, title, y string, value func(w metrics.Window, interval float64) (float64, bool)) (figure, error) {
	return timePlot(runs, title, y, func(c *chart, i int, r Labelled, tl timeline) (bool, error) {
		segs := tl.lines(func(w metrics.Window) (float64, bool) { return value(w, tl.interval) })
		return len(segs) > 0, addLines(c, segs, i, r.Label, len(runs) > 1)
	})
}

// serverPlot draws one scraped server figure of each result over time, on
// the same time axis as the client's series (offsets from the client's
// first window); nothing when no result scraped it.
func serverPlot(name, title, y string) func([]Labelled) (figure, error) {
	return func(runs []Labelled) (figure, error) {
		return timePlot(runs, title, y, func(c *chart, i int, r Labelled, tl timeline) (bool, error) {
			s := r.Result.Summary
			if s.Server == nil || s.Server.Series == nil {
				return false, nil
			}
			iv := float64(s.Server.Series.Interval)
			var xys plotter.XYs
			for _, w := range s.Server.Series.Windows {
				if pt, ok := w.Points[name]; ok {
					xys = append(xys, plotter.XY{X: w.Start.Sub(tl.t0).Seconds() + iv/2, Y: pt.Value})
				}
			}
			return len(xys) > 0, addLine(c, xys, i, r.Label, len(runs) > 1)
		})
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

// percentilePlot draws P50 (dashed) and the percentile an sla check gates
// (P99 when none does) of a latency per window, with the check's bound.
func percentilePlot(name string) func([]Labelled) (figure, error) {
	return func(runs []Labelled) (figure, error) {
		m, _ := metrics.Lookup(name)
		stat, bound, gated := gate(runs, name)
		st := metrics.StatTitle(stat)
		title := m.Title + " P50 (dashed) and " + st + " over time"
		if stat == "p50" {
			title = m.Title + " P50 over time"
		}
		f, err := timePlot(runs, title, m.Title+" (ms)", func(c *chart, i int, r Labelled, tl timeline) (bool, error) {
			pick := func(stat string) func(w metrics.Window) (float64, bool) {
				return func(w metrics.Window) (float64, bool) {
					l := w.TTFT
					if name == "itl" {
						l = w.ITL
					}
					if l.Count == 0 {
						return 0, false
					}
					return l.Stat(stat)
				}
			}
			top := tl.lines(pick(stat))
			if err := addLines(c, top, i, r.Label+" "+st, true); err != nil {
				return false, err
			}
			if stat != "p50" {
				if err := addLines(c, tl.lines(pick("p50")), i, r.Label+" P50", true, vg.Points(4), vg.Points(3)); err != nil {
					return false, err
				}
			}
			return len(top) > 0, nil
		}, func(c *chart) {
			if gated {
				slaLine(c, stat, bound)
			}
		})
		return f, err
	}
}

// slaLine draws an sla check's bound across the plot.
func slaLine(c *chart, stat string, bound float64) {
	hl := &hLine{Y: bound, LineStyle: draw.LineStyle{Color: slaColour, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}}
	c.Add(hl)
	c.addLegend(fmt.Sprintf("sla %s <= %g ms", metrics.StatTitle(stat), bound), hl)
}

// gate finds the sla check that bounds a percentile of a latency in the
// results (overall, or on their stages or steps): its stat and bound in
// ms. Without one, the stat is p99 and ok false.
func gate(runs []Labelled, metric string) (stat string, bound float64, ok bool) {
	// The highest gated percentile: the tail is what a latency plot is
	// read for (ttft_p50 and ttft_p99 both set: P99).
	var best float64
	find := func(checks []results.Check) {
		for _, c := range checks {
			if c.Kind != "sla" || c.Metric != metric || c.Threshold == nil || !strings.HasPrefix(c.Stat, "p") || (c.Unit != "" && c.Unit != "ms") {
				continue
			}
			q, err := strconv.ParseFloat("0."+strings.TrimPrefix(c.Stat, "p"), 64)
			if err != nil || q <= best {
				continue
			}
			best, stat, bound, ok = q, c.Stat, *c.Threshold, true
		}
	}
	for _, r := range runs {
		find(r.Result.Checks)
		if sw := loadView(r.Result); sw != nil {
			for _, st := range sw.Steps {
				find(st.Checks)
			}
		}
	}
	if !ok {
		return "p99", 0, false
	}
	return stat, bound, true
}

func hasSweep(results []Labelled) bool {
	for _, r := range results {
		if loadView(r.Result) != nil {
			return true
		}
	}
	return false
}

// loadView is what the load plots draw of a result (results.LoadView).
func loadView(r *results.Result) *results.Sweep { return results.LoadView(r) }

// loadPlot draws a figure of each sweep's steps against their load, sorted
// by load: output throughput, or the percentile of TTFT or ITL that an sla
// check gates (P99 when none does) with the check's bound; the knee and
// the capacity are vertical lines.
func loadPlot(what string) func([]Labelled) (figure, error) {
	return func(runs []Labelled) (figure, error) {
		var vary string
		for _, r := range runs {
			if sw := loadView(r.Result); sw != nil && vary == "" {
				vary = sw.Vary
			}
		}
		var title, y string
		stat, bound, gated := "", 0.0, false
		switch what {
		case "output":
			title, y = "Output throughput vs load", "output tok/s"
		default:
			m, _ := metrics.Lookup(what)
			stat, bound, gated = gate(runs, what)
			st := metrics.StatTitle(stat)
			title, y = st+" "+m.Title+" vs load", st+" "+m.Title+" (ms)"
		}
		c := newPlot(title, LoadTitle(vary), y)
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
				if what != "output" {
					l := s.LatencyOf(what)
					if l == nil {
						continue
					}
					v, _ = l.Stat(stat)
				}
				xys = append(xys, plotter.XY{X: st.Value, Y: v})
				xmax, ymax = math.Max(xmax, st.Value), math.Max(ymax, v)
			}
			if err := addLine(c, xys, i, r.Label, true); err != nil {
				return figure{}, err
			}
			if sc, err := plotter.NewScatter(xys); err == nil && len(xys) > 0 {
				sc.Color = colourOf(i)
				c.Add(sc)
			}
			if k := sw.Knee; k != nil {
				if err := vline(c, k.Value, kneeColour, fmt.Sprintf("knee %s (%s)", formatLoad(k.Value), r.Label), true); err != nil {
					return figure{}, err
				}
			}
			if cp := sw.Capacity; cp != nil {
				if err := vline(c, cp.Value, capColour, fmt.Sprintf("capacity %s (%s)", formatLoad(cp.Value), r.Label), false); err != nil {
					return figure{}, err
				}
			}
		}
		if xmax == 0 {
			return figure{}, nil
		}
		if gated {
			slaLine(c, stat, bound)
			ymax = math.Max(ymax, bound)
		}
		c.X.Min, c.Y.Min = 0, 0
		c.Y.Max = ymax * 1.08
		return render(c, title)
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

// vline marks a load with a vertical line across the plot's data range.
func vline(ch *chart, x float64, c color.RGBA, label string, dashed bool) error {
	if math.IsNaN(x) {
		return fmt.Errorf("%s: not a number", label)
	}
	vl := &vLine{X: x, LineStyle: draw.LineStyle{Color: c, Width: vg.Points(1.2)}}
	if dashed {
		vl.LineStyle.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	}
	ch.Add(vl)
	ch.addLegend(label, vl)
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

// hLine is a horizontal line at Y across the whole plot.
type hLine struct {
	Y float64
	draw.LineStyle
}

// Plot implements plot.Plotter.
func (h *hLine) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	y := trY(h.Y)
	c.StrokeLine2(h.LineStyle, c.Min.X, y, c.Max.X, y)
}

// Thumbnail implements plot.Thumbnailer, for the legend.
func (h *hLine) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(h.LineStyle, c.Min.X, y, c.Max.X, y)
}

// DataRange implements plot.DataRanger: only the y of the line counts.
func (h *hLine) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Inf(1), math.Inf(-1), h.Y, h.Y
}
