package executor

import (
	"fmt"
	"slices"
	"time"

	"github.com/llmload/llmload/metrics"
)

// recentSize is how many recent values the live medians look at.
const recentSize = 1024

// progress is the live status line. It belongs to the recorder goroutine,
// and keeps only a ring of recent values for its medians, so that it costs
// next to nothing.
type progress struct {
	r      *run
	total  int // measured requests expected, 0 when unknown
	done   int
	errors int
	ttft   ring
	itl    ring
	buf    []time.Duration
	width  int // of the last line, to blank what a shorter one leaves
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

func newProgress(r *run) *progress {
	p := &progress{r: r, total: r.p.MaxRequests}
	if r.p.Open != nil {
		p.total = len(r.offsets)
	}
	return p
}

func (p *progress) add(req *metrics.Request) {
	p.done++
	if !req.OK() {
		// A request cut off by Ctrl-C is not the server's error.
		if req.Error != metrics.ErrCanceled {
			p.errors++
		}
		return
	}
	p.ttft.add(req.TTFT)
	for _, d := range req.ITL {
		p.itl.add(d)
	}
}

// median of a ring, in milliseconds ("-" when empty).
func (p *progress) median(g *ring) string {
	if len(g.vals) == 0 {
		return "-"
	}
	p.buf = append(p.buf[:0], g.vals...)
	slices.Sort(p.buf)
	return fmt.Sprintf("%.1fms", float64(p.buf[len(p.buf)/2])/float64(time.Millisecond))
}

// print redraws the line; final ends it with a newline.
func (p *progress) print(final bool) {
	done := fmt.Sprint(p.done)
	if p.total > 0 {
		done = fmt.Sprintf("%d/%d", p.done, p.total)
	}
	line := fmt.Sprintf("%s done, %d in flight, %d errors, ttft p50 %s, itl p50 %s (recent), %s",
		done, p.r.inflight.Load(), p.errors, p.median(&p.ttft), p.median(&p.itl),
		time.Since(p.r.start).Truncate(100*time.Millisecond))
	pad := max(0, p.width-len(line))
	p.width = len(line)
	end := ""
	if final {
		end = "\n"
	}
	fmt.Fprintf(p.r.p.Progress, "\r%s%*s%s", line, pad, "", end)
}
