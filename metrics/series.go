package metrics

import (
	"fmt"
	"time"
)

// DefaultInterval is the time series' window length unless a scenario sets
// another.
const DefaultInterval = time.Second

// Window is one fixed interval of a run's time series. Windows are aligned
// on wall-clock multiples of the interval (as Prometheus and k6 align
// theirs), so that series of runs on several machines line up and merge.
type Window struct {
	// Start is the window's start, wall clock.
	Start time.Time `json:"start"`
	// Started counts measured requests dispatched in the window; Completed,
	// Failed, Canceled and Abandoned count those that ended in it.
	Started   int `json:"started"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
	Canceled  int `json:"canceled,omitempty"`
	Abandoned int `json:"abandoned,omitempty"`
	// OutputTokens counts the output-carrying events that arrived in the
	// window (each event one token, as vLLM counts its peak).
	OutputTokens int `json:"output_tokens"`
	// InFlight is the most requests in flight during the window (sampled
	// every 100 ms by the recorder's owner); ActiveUsers the closed-loop
	// users running at its end.
	InFlight    int `json:"in_flight"`
	ActiveUsers int `json:"active_users,omitempty"`
	// TTFT and ITL are the distributions of the requests that completed in
	// the window, with their histograms, so that windows merge exactly.
	TTFT Latency `json:"ttft"`
	ITL  Latency `json:"itl"`
}

// Series is a run's time series.
type Series struct {
	Interval Seconds  `json:"interval_s"`
	Windows  []Window `json:"windows"`
}

// Seconds is a duration written as a number of seconds.
type Seconds float64

// Duration converts back to a time.Duration.
func (s Seconds) Duration() time.Duration { return time.Duration(float64(s) * float64(time.Second)) }

// PeakOutput is the most output tokens in one window, per second.
func (s *Series) PeakOutput() float64 {
	if s == nil || s.Interval <= 0 {
		return 0
	}
	best := 0
	for _, w := range s.Windows {
		best = max(best, w.OutputTokens)
	}
	return float64(best) / float64(s.Interval)
}

// PeakInFlight is the most requests in flight in one window.
func (s *Series) PeakInFlight() int {
	best := 0
	if s != nil {
		for _, w := range s.Windows {
			best = max(best, w.InFlight)
		}
	}
	return best
}

// SeriesRecorder builds a Series from requests as they finish. Like the
// Recorder it has one owner. Only the windows still receiving samples keep
// their histograms open; older ones are compressed to their encoded form,
// so memory does not grow with the run beyond a few hundred bytes a window.
type SeriesRecorder struct {
	base     time.Time // the run's time zero (wall clock with monotonic reading)
	interval time.Duration
	k0       int64 // absolute index of window 0
	windows  []Window
	open     map[int]*windowDists
}

type windowDists struct{ ttft, itl *dist }

// NewSeriesRecorder returns a recorder whose offsets are relative to base.
func NewSeriesRecorder(base time.Time, interval time.Duration) *SeriesRecorder {
	if interval <= 0 {
		interval = DefaultInterval
	}
	return &SeriesRecorder{
		base:     base,
		interval: interval,
		k0:       floorDiv(base.UnixNano(), int64(interval)),
		open:     map[int]*windowDists{},
	}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// index returns the window of offset off, growing the series to hold it;
// -1 for an offset before the series starts (warmup).
func (s *SeriesRecorder) index(off time.Duration) int {
	k := int(floorDiv(s.base.UnixNano()+int64(off), int64(s.interval)) - s.k0)
	if k < 0 {
		return -1
	}
	for len(s.windows) <= k {
		start := time.Unix(0, (s.k0+int64(len(s.windows)))*int64(s.interval)).UTC()
		s.windows = append(s.windows, Window{Start: start})
	}
	return k
}

// dists returns the open histograms of window k, reopening a closed one
// (which happens only for a request recorded after its window was closed).
func (s *SeriesRecorder) dists(k int) *windowDists {
	if d, ok := s.open[k]; ok {
		return d
	}
	w := &s.windows[k]
	d := &windowDists{ttft: distOf(w.TTFT), itl: distOf(w.ITL)}
	s.open[k] = d
	return d
}

// Add records a finished measured request.
func (s *SeriesRecorder) Add(req *Request) {
	if req.Warmup {
		return
	}
	if k := s.index(req.Dispatched); k >= 0 {
		s.windows[k].Started++
	}
	k := s.index(req.End)
	if k < 0 {
		return
	}
	switch {
	case req.Error == ErrCanceled:
		s.windows[k].Canceled++
		return
	case req.Error == ErrAbandoned:
		// Its tokens so far count in the windows they arrived in; its
		// latencies belong to no window's completed requests.
		s.windows[k].Abandoned++
		s.addTokens(req)
		return
	case !req.OK():
		s.windows[k].Failed++
		return
	}
	s.windows[k].Completed++
	if req.OutputEvents == 0 {
		return
	}
	s.addTokens(req)
	d := s.dists(k)
	d.ttft.add(int64(req.TTFT))
	for _, gap := range req.ITL {
		d.itl.add(int64(gap))
	}
}

// addTokens counts each output event of req in the window it arrived in.
func (s *SeriesRecorder) addTokens(req *Request) {
	if req.OutputEvents == 0 {
		return
	}
	t := req.Sent + req.TTFT
	for i := 0; ; i++ {
		if j := s.index(t); j >= 0 {
			s.windows[j].OutputTokens++
		}
		if i == len(req.ITL) {
			break
		}
		t += req.ITL[i]
	}
}

// Observe notes, at offset off, the most requests in flight since the last
// observation and the active users; they belong to the window holding off.
func (s *SeriesRecorder) Observe(off time.Duration, inFlight, users int) {
	k := s.index(off)
	if k < 0 {
		return
	}
	w := &s.windows[k]
	w.InFlight = max(w.InFlight, inFlight)
	w.ActiveUsers = users
}

// Close compresses the histograms of the windows that ended more than one
// interval before offset now: no request still running can add to them.
func (s *SeriesRecorder) Close(now time.Duration) {
	cur := s.index(now)
	for k, d := range s.open {
		if k < cur-1 {
			s.closeWindow(k, d)
		}
	}
}

func (s *SeriesRecorder) closeWindow(k int, d *windowDists) {
	s.windows[k].TTFT = d.ttft.latency()
	s.windows[k].ITL = d.itl.latency()
	delete(s.open, k)
}

// Series closes every window and returns the series.
func (s *SeriesRecorder) Series() *Series {
	for k, d := range s.open {
		s.closeWindow(k, d)
	}
	return &Series{Interval: Seconds(s.interval.Seconds()), Windows: s.windows}
}

// distOf rebuilds an open distribution from a closed window's summary. Its
// counts and histogram are exact; its sums come back from floating point.
func distOf(l Latency) *dist {
	d := newDist()
	if l.Count == 0 {
		return d
	}
	h, err := l.DecodeHistogram()
	if err != nil {
		panic(fmt.Sprintf("metrics: reopening a window: %v", err))
	}
	d.h = h
	d.n = l.Count
	d.min, d.max = int64(l.Min*rawPerReport), int64(l.Max*rawPerReport)
	d.sum = u128{lo: uint64(l.Sum * rawPerReport)}
	d.sumSq = fromFloat(l.SumSq * rawPerReport * rawPerReport)
	d.outliers = l.Outliers
	return d
}

func fromFloat(f float64) u128 {
	const two64 = 1 << 64
	hi := uint64(f / two64)
	return u128{hi: hi, lo: uint64(f - float64(hi)*two64)}
}

// MergeSeries combines the series of several runs or shards: windows with
// the same wall-clock start add up (counts, tokens, in-flight peaks and
// users are summed; histograms merge exactly). The series must share an
// interval.
func MergeSeries(parts ...*Series) (*Series, error) {
	var out *Series
	byStart := map[int64]int{}
	for _, p := range parts {
		if p == nil {
			continue
		}
		if out == nil {
			out = &Series{Interval: p.Interval}
		} else if p.Interval != out.Interval {
			return nil, fmt.Errorf("time series with windows of %gs and %gs cannot be merged", float64(out.Interval), float64(p.Interval))
		}
		for _, w := range p.Windows {
			key := w.Start.UnixNano()
			i, ok := byStart[key]
			if !ok {
				byStart[key] = len(out.Windows)
				out.Windows = append(out.Windows, w)
				continue
			}
			m := &out.Windows[i]
			m.Started += w.Started
			m.Completed += w.Completed
			m.Failed += w.Failed
			m.Canceled += w.Canceled
			m.Abandoned += w.Abandoned
			m.OutputTokens += w.OutputTokens
			m.InFlight += w.InFlight
			m.ActiveUsers += w.ActiveUsers
			var err error
			if m.TTFT, err = MergeLatency(m.TTFT, w.TTFT); err != nil {
				return nil, err
			}
			if m.ITL, err = MergeLatency(m.ITL, w.ITL); err != nil {
				return nil, err
			}
		}
	}
	if out == nil {
		return nil, nil
	}
	sortWindows(out.Windows)
	return fillGaps(out), nil
}

func sortWindows(ws []Window) {
	for i := 1; i < len(ws); i++ {
		for j := i; j > 0 && ws[j].Start.Before(ws[j-1].Start); j-- {
			ws[j], ws[j-1] = ws[j-1], ws[j]
		}
	}
}

// fillGaps adds empty windows where merged series left holes, so that
// window i always starts i intervals after the first.
func fillGaps(s *Series) *Series {
	if len(s.Windows) < 2 {
		return s
	}
	iv := s.Interval.Duration()
	var out []Window
	for i, w := range s.Windows {
		if i > 0 {
			for t := out[len(out)-1].Start.Add(iv); t.Before(w.Start); t = t.Add(iv) {
				out = append(out, Window{Start: t})
			}
		}
		out = append(out, w)
	}
	s.Windows = out
	return s
}

// LastRate is the output tokens per second of the last window that ended
// before offset now (0 before one has).
func (s *SeriesRecorder) LastRate(now time.Duration) float64 {
	k := s.index(now) - 1
	if k < 0 {
		return 0
	}
	return float64(s.windows[k].OutputTokens) / s.interval.Seconds()
}
