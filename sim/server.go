package sim

import (
	"errors"
	"math/rand"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// jitterWindow is how many recent step-lateness samples Stats summarizes.
const jitterWindow = 1 << 16

// Server is the simulated engine and its OpenAI-compatible HTTP front. The
// scheduler runs between Start and Close; handlers queue requests into it
// and stream the tokens it hands them.
type Server struct {
	p       Profile
	metrics *promMetrics
	mux     *http.ServeMux

	rngMu sync.Mutex
	rng   *rand.Rand
	// lastWords is the word stream state the last request was given, for
	// the swap_outputs fault (under rngMu).
	lastWords uint64
	ids       atomic.Uint64

	inMu     sync.Mutex
	incoming []*seq
	wake     chan struct{} // capacity 1
	stop     chan struct{}
	done     chan struct{}
	start    time.Time // engine clock origin
	startOne sync.Once
	stopOne  sync.Once

	requests    atomic.Int64
	running     atomic.Int64
	waiting     atomic.Int64
	steps       atomic.Int64
	preemptions atomic.Int64
	kvUsed      atomic.Int64
	faults      [10]atomic.Int64 // indexed like Profile.faults

	jitMu     sync.Mutex
	jitter    []time.Duration // ring of the last jitterWindow samples
	jitNext   int
	jitMax    time.Duration
	jitSample int64
}

// Stats is a snapshot of the server's counters.
type Stats struct {
	Requests    int64            // requests accepted by the completion endpoints, faulted ones included
	Running     int              // sequences in the running batch
	Waiting     int              // sequences queued for admission
	KVUsed      int              // KV-cache tokens held by the running sequences
	Steps       int64            // engine steps taken
	Preemptions int64            // sequences preempted for lack of KV cache
	Faults      map[string]int64 // faults injected, by kind (FaultKind*)
	// Scheduler jitter: how late steps ended against their planned end, over
	// the last 65,536 steps (JitterSamples counts every step).
	JitterP50, JitterP99, JitterMax time.Duration
	JitterSamples                   int64
}

// NewServer builds a server for profile p, which should pass Validate (Listen
// checks it); seed drives every random draw (faults, output lengths, fault
// positions, generated words). Call Start before serving.
func NewServer(p Profile, seed int64) *Server {
	s := &Server{
		p:       p,
		metrics: newPromMetrics(p),
		rng:     rand.New(rand.NewSource(seed)),
		wake:    make(chan struct{}, 1),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
		jitter:  make([]time.Duration, 0, jitterWindow),
	}
	s.ids.Store(uint64(seed) << 32)
	s.mux = s.routes()
	return s
}

// Handler returns the HTTP front.
func (s *Server) Handler() http.Handler { return s.mux }

// Start launches the scheduler loop. It is idempotent.
func (s *Server) Start() {
	s.startOne.Do(func() {
		s.start = time.Now()
		go s.loop()
	})
}

// Close stops the scheduler and releases every handler still waiting for
// tokens (their streams end without [DONE]). It is idempotent.
func (s *Server) Close() {
	s.stopOne.Do(func() { close(s.stop) })
	s.startOne.Do(func() { close(s.done) }) // never started: nothing to wait for
	<-s.done
}

// stopped says whether Close has stopped the server.
func (s *Server) stopped() bool {
	select {
	case <-s.stop:
		return true
	default:
		return false
	}
}

// now is the engine clock.
func (s *Server) now() time.Duration { return time.Since(s.start) }

// submit queues a sequence for the scheduler.
func (s *Server) submit(q *seq) {
	q.arrival = s.now()
	s.inMu.Lock()
	s.incoming = append(s.incoming, q)
	s.inMu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// kick wakes the scheduler, so that a sequence released while it idles is
// dropped (and the gauges updated) at once.
func (s *Server) kick() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// loop is the scheduler: take new requests, plan a step, sleep until its
// planned end, hand out the tokens. Steps are planned back to back from the
// previous planned end, so lateness does not accumulate into drift unless
// the loop falls a whole step behind.
func (s *Server) loop() {
	defer close(s.done)
	e := newEngine(s.p)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var batch []*seq
	var planned time.Time
	for {
		s.inMu.Lock()
		batch, s.incoming = s.incoming, batch[:0]
		s.inMu.Unlock()
		for _, q := range batch {
			e.add(q)
		}
		clear(batch)

		d, out := e.step()
		if a := e.takeAdmitted(); len(a) > 0 {
			at := s.now() // the step starts now
			for _, q := range a {
				q.scheduled = at
			}
			clear(a)
		}
		s.publish(e)
		if d == 0 {
			select {
			case <-s.wake:
				continue
			case <-s.stop:
				return
			}
		}
		now := time.Now()
		if now.Sub(planned) >= d {
			planned = now // idle before, or a whole step behind
		}
		planned = planned.Add(d)
		timer.Reset(time.Until(planned))
		select {
		case <-timer.C:
		case <-s.stop:
			return
		}
		s.recordJitter(time.Since(planned))
		s.steps.Add(1)
		s.deliver(out)
	}
}

// publish exposes the engine's state to Stats and the gauges.
func (s *Server) publish(e *engine) {
	s.running.Store(int64(len(e.running)))
	s.waiting.Store(int64(len(e.waiting)))
	s.preemptions.Store(e.preemptions)
	s.kvUsed.Store(int64(e.kvUsed))
	s.metrics.state(len(e.running), len(e.waiting), e.kvUsage(), e.preemptions, e.prefixQueries, e.prefixHits)
}

// deliver hands each sequence its tokens without ever blocking: the count
// goes into an atomic and the handler is woken through a 1-slot channel.
func (s *Server) deliver(out []emit) {
	now := s.now()
	// Count before any handler is woken, so a client that reads /metrics
	// right after its response sees its tokens.
	gen := 0
	for _, o := range out {
		gen += o.n
	}
	s.metrics.generation.Add(float64(gen))
	for _, o := range out {
		q := o.s
		if o.first {
			q.firstAt = now
			s.metrics.ttft.Observe((now - q.arrival).Seconds())
		} else {
			s.metrics.itl.Observe((now - q.last).Seconds())
		}
		if o.done {
			s.metrics.finished(q, now)
		}
		q.last = now
		q.produced.Add(int64(o.n))
		select {
		case q.notify <- struct{}{}:
		default:
		}
	}
}

func (s *Server) recordJitter(j time.Duration) {
	s.jitMu.Lock()
	if len(s.jitter) < jitterWindow {
		s.jitter = append(s.jitter, j)
	} else {
		s.jitter[s.jitNext] = j
		s.jitNext = (s.jitNext + 1) % jitterWindow
	}
	s.jitMax = max(s.jitMax, j)
	s.jitSample++
	s.jitMu.Unlock()
}

// Stats returns a snapshot of the counters.
func (s *Server) Stats() Stats {
	st := Stats{
		Requests:    s.requests.Load(),
		Running:     int(s.running.Load()),
		Waiting:     int(s.waiting.Load()),
		KVUsed:      int(s.kvUsed.Load()),
		Steps:       s.steps.Load(),
		Preemptions: s.preemptions.Load(),
		Faults:      map[string]int64{},
	}
	for i, f := range s.p.faults() {
		st.Faults[f.kind] = s.faults[i].Load()
	}
	s.jitMu.Lock()
	st.JitterMax, st.JitterSamples = s.jitMax, s.jitSample
	s.jitMu.Unlock()
	js := s.recentJitter()
	st.JitterP50, st.JitterP99 = percentile(js, 50), percentile(js, 99)
	return st
}

// recentJitter is a copy of the last jitterWindow steps' lateness.
func (s *Server) recentJitter() []time.Duration {
	s.jitMu.Lock()
	defer s.jitMu.Unlock()
	return slices.Clone(s.jitter)
}

// Running is a simulator serving on a loopback port.
type Running struct {
	URL    string  // http://127.0.0.1:PORT
	Server *Server // for Stats
	http   *http.Server
	served chan error

	closeOne sync.Once
	closeErr error
}

// Listen starts a simulator with profile p on addr ("127.0.0.1:0" picks a
// free port) and returns once it accepts connections.
func Listen(addr string, p Profile, seed int64) (*Running, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	srv := NewServer(p, seed)
	srv.Start()
	r := &Running{
		URL:    "http://" + ln.Addr().String(),
		Server: srv,
		http:   &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second},
		served: make(chan error, 1),
	}
	go func() { r.served <- r.http.Serve(ln) }()
	return r, nil
}

// Close closes the listener and every connection, then stops the
// scheduler. It is idempotent: later calls return the first one's error.
func (r *Running) Close() error {
	r.closeOne.Do(func() {
		r.closeErr = r.http.Close()
		r.Server.Close()
		if serr := <-r.served; !errors.Is(serr, http.ErrServerClosed) && r.closeErr == nil {
			r.closeErr = serr
		}
	})
	return r.closeErr
}
