package live

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/llmload/llmload/metrics"
)

// PlainEvery is how often the plain progress line (stderr not a terminal,
// as in CI logs) is printed.
const PlainEvery = 10 * time.Second

// recentSize is how many recent values the live medians look at.
const recentSize = 1024

// Progress renders a run's progress from its snapshots. On a terminal it
// redraws one line in place at every snapshot; elsewhere (a CI log) it
// prints a plain line every PlainEvery and a last one at the end. It is an
// executor Observer, and keeps only a ring of recent values for its
// medians.
type Progress struct {
	w        io.Writer
	live     bool
	ttft     ring
	itl      ring
	buf      []time.Duration
	width    int // of the last live line, to blank what a shorter one leaves
	lastLine time.Duration
	printed  bool
	// arm and block are the last result's A/B arm and block: the medians
	// start again with each block of each arm, so that a line naming one
	// arm shows its own latencies.
	arm   string
	block int
}

// NewProgress returns a progress display writing to w; live selects the
// redrawn terminal line.
func NewProgress(w io.Writer, live bool) *Progress {
	return &Progress{w: w, live: live}
}

// ring holds the last recentSize values.
type ring struct {
	vals []time.Duration
	next int
}

func (g *ring) add(v time.Duration) {
	if len(g.vals) < recentSize {
		g.vals = append(g.vals, v)
		return
	}
	g.vals[g.next] = v
	g.next = (g.next + 1) % recentSize
}

// Result notes a finished request's latencies.
func (p *Progress) Result(r *metrics.Request) {
	if r.Warmup || !r.OK() || r.OutputTokensSource == metrics.SourceNone {
		return // a non-streamed answer (embeddings) has no first token
	}
	if r.Arm != p.arm || r.Block != p.block {
		p.arm, p.block = r.Arm, r.Block
		p.ttft, p.itl = ring{}, ring{}
	}
	p.ttft.add(r.TTFT)
	for _, d := range r.ITL {
		p.itl.add(d)
	}
}

// median of a ring, in milliseconds ("-" when empty).
func (p *Progress) median(g *ring) string {
	if len(g.vals) == 0 {
		return "-"
	}
	p.buf = append(p.buf[:0], g.vals...)
	slices.Sort(p.buf)
	return fmt.Sprintf("%.1fms", float64(p.buf[len(p.buf)/2])/float64(time.Millisecond))
}

// Line renders a snapshot as one line, starting with the part of the run
// it is of, if named: "[block 2/6 arm candidate] 3.2s elapsed, ...".
func (p *Progress) Line(s metrics.Snapshot) string {
	part := ""
	if s.Part != "" {
		part = "[" + s.Part + "] "
	}
	sent := fmt.Sprint(s.Sent)
	if s.Planned > 0 {
		sent = fmt.Sprintf("%d/%d", s.Sent, s.Planned)
	}
	line := fmt.Sprintf("%s%s elapsed, %s sent, %d completed, %d failed, %d in flight",
		part, s.Elapsed.Truncate(100*time.Millisecond), sent, s.Completed, s.Failed, s.InFlight)
	if s.Abandoned > 0 {
		line += fmt.Sprintf(", %d abandoned", s.Abandoned)
	}
	if s.ActiveUsers > 0 {
		line += fmt.Sprintf(", %d users", s.ActiveUsers)
	}
	return line + fmt.Sprintf(", %.0f tok/s, ttft p50 %s, itl p50 %s (recent)", s.OutputRate, p.median(&p.ttft), p.median(&p.itl))
}

// Snapshot prints the progress.
func (p *Progress) Snapshot(s metrics.Snapshot) {
	line := p.Line(s)
	if !p.live {
		if s.Final || s.Elapsed-p.lastLine >= PlainEvery {
			p.lastLine = s.Elapsed
			fmt.Fprintf(p.w, "llmload: %s\n", line)
		}
		return
	}
	pad := max(0, p.width-len(line))
	p.width = len(line)
	end := ""
	if s.Final {
		end = "\n"
	}
	fmt.Fprintf(p.w, "\r%s%*s%s", line, pad, "", end)
}
