package results

import (
	"cmp"
	"slices"
	"time"

	"github.com/llmload/llmload/metrics"
)

// DetailedCollector gathers vLLM's per-request arrays (--save-detailed)
// while a run streams its results: it is an executor observer. Unlike the
// rest of a run, what it keeps grows with the run: a few numbers, every
// inter-token gap and the generated text of each measured request, as
// vLLM keeps them. The run must keep the generated text for it
// (executor.Plan.KeepText).
type DetailedCollector struct {
	rows []detailedRow
}

type detailedRow struct {
	id     int64
	input  int
	output int
	ttft   float64
	itls   []float64
	text   string
	err    string
}

// NewDetailedCollector returns an empty collector.
func NewDetailedCollector() *DetailedCollector { return &DetailedCollector{} }

// Result records one measured request (warmup ones are not measured).
func (c *DetailedCollector) Result(r *metrics.Request) {
	if r.Warmup {
		return
	}
	row := detailedRow{
		id:    r.ID,
		input: r.DatasetPromptTokens,
		ttft:  seconds(r.TTFT),
		itls:  make([]float64, len(r.ITL)),
		text:  r.GeneratedText,
	}
	for i, g := range r.ITL {
		row.itls[i] = seconds(g)
	}
	if r.OK() {
		row.output = r.OutputTokens
	} else {
		row.err = r.ErrorMessage
		if row.err == "" {
			row.err = string(r.Error)
		}
	}
	c.rows = append(c.rows, row)
}

// Snapshot implements the observer interface; it keeps nothing.
func (c *DetailedCollector) Snapshot(metrics.Snapshot) {}

// Detailed returns the arrays, one entry per measured request in dispatch
// order (as vLLM lists its outputs): never nil, empty arrays when nothing
// was measured.
func (c *DetailedCollector) Detailed() *Detailed {
	rows := slices.Clone(c.rows)
	slices.SortFunc(rows, func(a, b detailedRow) int { return cmp.Compare(a.id, b.id) })
	d := &Detailed{
		InputLens:      make([]int, len(rows)),
		OutputLens:     make([]int, len(rows)),
		TTFTs:          make([]float64, len(rows)),
		ITLs:           make([][]float64, len(rows)),
		GeneratedTexts: make([]string, len(rows)),
		Errors:         make([]string, len(rows)),
	}
	for i, r := range rows {
		d.InputLens[i], d.OutputLens[i], d.TTFTs[i] = r.input, r.output, r.ttft
		d.ITLs[i], d.GeneratedTexts[i], d.Errors[i] = r.itls, r.text, r.err
	}
	return d
}

func seconds(d time.Duration) float64 { return d.Seconds() }
