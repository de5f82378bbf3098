package report

// A chart is a gonum plot with its legend drawn in a band below it, in as
// many columns as fit, so that no legend entry covers a line, a marker or
// an axis (matplotlib's legend outside the axes). render records where the
// data area and each entry went, for the tests.

import (
	"bytes"
	"html/template"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// chart is a plot and the entries of its legend.
type chart struct {
	*plot.Plot
	legend []legendEntry
}

type legendEntry struct {
	text   string
	thumbs []plot.Thumbnailer
}

// addLegend adds an entry to the chart's legend.
func (c *chart) addLegend(text string, thumbs ...plot.Thumbnailer) {
	c.legend = append(c.legend, legendEntry{text, thumbs})
}

const (
	legendFont      = 10 // points
	legendThumb     = 22 // points
	legendGap       = 14 // points between columns
	legendRowGap    = 3  // points between rows
	legendTopMargin = 6  // points between the x axis label and the legend
)

// legendLayout places the entries in columns of equal width below the
// plot, filling each column before the next; entries wider than the plot
// are cut with an ellipsis.
type legendLayout struct {
	cols, rows       int
	colWidth, rowHgt vg.Length
	height           vg.Length // of the band, margins included
}

func (c *chart) layoutLegend(width vg.Length) legendLayout {
	if len(c.legend) == 0 {
		return legendLayout{}
	}
	sty := c.Legend.TextStyle
	var widest, tallest vg.Length
	for _, e := range c.legend {
		r := sty.Rectangle(e.text)
		widest = max(widest, r.Max.X)
		tallest = max(tallest, r.Max.Y)
	}
	colWidth := min(vg.Points(legendThumb)+sty.Rectangle(" ").Max.X+widest+vg.Points(legendGap), width)
	cols := max(1, int(width/colWidth))
	cols = min(cols, len(c.legend))
	rows := (len(c.legend) + cols - 1) / cols
	// Columns as balanced as the rows allow.
	cols = (len(c.legend) + rows - 1) / rows
	rowHgt := tallest + vg.Points(legendRowGap)
	return legendLayout{cols: cols, rows: rows, colWidth: colWidth, rowHgt: rowHgt,
		height: vg.Points(legendTopMargin) + vg.Length(rows)*rowHgt + vg.Points(legendRowGap)}
}

// boxes are where render put a chart's parts, in the SVG's points (y up).
type boxes struct {
	canvas, plot, data vg.Rectangle
	entries            []vg.Rectangle // each legend entry, thumbnail and text
	texts              []string       // each legend entry's text as drawn
}

// render draws a chart as an inline SVG element (no XML prologue): the
// plot on top, its legend in a band below.
func render(c *chart, title string) (figure, error) {
	c.Legend.TextStyle.Font.Size = vg.Points(legendFont)
	lay := c.layoutLegend(plotWidth)
	height := plotHeight + lay.height
	cv := vgsvg.NewWith(vgsvg.UseWH(plotWidth, height))
	dc := draw.New(cv)
	var b boxes
	b.canvas = dc.Rectangle
	plotC := draw.Crop(dc, 0, 0, lay.height, 0)
	b.plot = plotC.Rectangle
	b.data = c.Plot.DataCanvas(plotC).Rectangle
	c.Plot.Draw(plotC)

	sty := c.Legend.TextStyle
	em := sty.Rectangle(" ").Max.X
	descent := sty.FontExtents().Descent
	top := plotC.Min.Y - vg.Points(legendTopMargin)
	for i, e := range c.legend {
		col, row := i/lay.rows, i%lay.rows
		x := dc.Min.X + vg.Length(col)*lay.colWidth
		y := top - vg.Length(row+1)*lay.rowHgt
		icon := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: x, Y: y}, Max: vg.Point{X: x + vg.Points(legendThumb), Y: y + lay.rowHgt - vg.Points(legendRowGap)}}}
		for _, t := range e.thumbs {
			t.Thumbnail(&icon)
		}
		text := fitText(sty, e.text, lay.colWidth-vg.Points(legendThumb)-em-vg.Points(legendGap))
		tx := icon.Max.X + em
		dc.FillText(sty, vg.Point{X: tx, Y: y + descent}, text)
		b.entries = append(b.entries, vg.Rectangle{Min: icon.Min, Max: vg.Point{X: tx + sty.Rectangle(text).Max.X, Y: icon.Max.Y}})
		b.texts = append(b.texts, text)
	}

	var buf bytes.Buffer
	if _, err := cv.WriteTo(&buf); err != nil {
		return figure{}, err
	}
	svg := buf.String()
	if i := strings.Index(svg, "<svg"); i >= 0 {
		svg = svg[i:]
	}
	svg = strings.Replace(svg, "<svg ", `<svg role="img" aria-label="`+template.HTMLEscapeString(title)+`" `, 1)
	return figure{Title: title, SVG: template.HTML(svg), boxes: b}, nil
}

// fitText cuts s with an ellipsis to fit in width.
func fitText(sty text.Style, s string, width vg.Length) string {
	if sty.Rectangle(s).Max.X <= width {
		return s
	}
	r := []rune(s)
	lo, hi := 0, len(r)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if sty.Rectangle(string(r[:mid])+"…").Max.X <= width {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return string(r[:lo]) + "…"
}

// overlaps says whether two rectangles share more than an edge.
func overlaps(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}
