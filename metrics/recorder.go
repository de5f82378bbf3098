package metrics

import "time"

// Options configure a Recorder.
type Options struct {
	// Goodput is the per-request SLO that makes a request good.
	Goodput SLO
}

// Recorder turns request results into a Summary. It has one owner: it is
// not safe for concurrent use (workers send results over a channel to the
// goroutine that owns it).
type Recorder struct {
	opts Options
	// TODO(metrics helper): HDR histograms, exact sums, counters.
}

// NewRecorder returns an empty recorder.
func NewRecorder(opts Options) *Recorder { return &Recorder{opts: opts} }

// Add records one finished request. Warmup requests are ignored.
func (r *Recorder) Add(req *Request) { panic("not implemented") }

// ObserveConcurrency records the number of requests in flight, for the
// peak-concurrency figure.
func (r *Recorder) ObserveConcurrency(n int) { panic("not implemented") }

// Summary computes every figure. duration is the measured span (first
// dispatch to last completion) that throughputs divide by.
func (r *Recorder) Summary(duration time.Duration) *Summary { panic("not implemented") }

// Merge adds another recorder's data (same Options) into r, exactly.
func (r *Recorder) Merge(o *Recorder) { panic("not implemented") }
