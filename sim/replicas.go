package sim

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
)

// ReplicasKey is the setting that asks for several replicas: the sim
// block's replicas = N, llmload sim -replicas N. It is not an engine
// parameter (each replica runs the whole profile), so Profile.Set does not
// take it.
const ReplicasKey = "replicas"

// MaxReplicas bounds a simulated deployment: each replica is a scheduler
// goroutine and a listener of its own in this process, and more than a few
// dozen of them measure the machine rather than the simulated engines.
const MaxReplicas = 64

// ReplicaLabel is the label the balancer's /metrics adds to each replica's
// series, its index from 0, as Prometheus tells pods apart.
const ReplicaLabel = "replica"

// ParseReplicas reads a replica count, as the sim block and the flag give
// it, and checks it.
func ParseReplicas(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("replicas: %q is not a whole number of replicas (1 to %d)", s, MaxReplicas)
	}
	return n, CheckReplicas(n)
}

// CheckReplicas reports a replica count out of [1, MaxReplicas].
func CheckReplicas(n int) error {
	if n < 1 || n > MaxReplicas {
		return fmt.Errorf("replicas = %d: a simulated deployment has 1 to %d replicas", n, MaxReplicas)
	}
	return nil
}

// ReplicaSeed is the seed of replica i in a deployment seeded with seed:
// replica 0 has the deployment's seed (one replica is the plain simulator)
// and each other one its own, so that replicas draw their faults and
// sampled words apart but every run draws them alike. Greedy answers do
// not depend on it (they follow model_seed): every replica serves the same
// model.
func ReplicaSeed(seed int64, i int) int64 { return seed + int64(i) }

// Deployment is a simulated deployment: replicas, each a whole simulator
// (its own engine, API and /metrics) on a listener of its own, as pods
// are, and with several of them a round-robin balancer in front, as a
// Service or an ingress is.
type Deployment struct {
	// URL is where clients go: the balancer, or the one replica.
	URL string
	// Replicas are the simulators, in the balancer's order; each serves
	// the whole API and its own /metrics at its URL.
	Replicas []*Running

	balancer *http.Server
	served   chan error
	next     atomic.Uint64
}

// ListenDeployment starts replicas simulators of profile p, replica i
// seeded with ReplicaSeed(seed, i). With one replica it is Listen on addr;
// with several, the balancer listens on addr and each replica on a free
// port of addr's host. It returns once every listener accepts connections.
func ListenDeployment(addr string, p Profile, seed int64, replicas int) (*Deployment, error) {
	if err := CheckReplicas(replicas); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if replicas == 1 {
		r, err := Listen(addr, p, seed)
		if err != nil {
			return nil, err
		}
		return &Deployment{URL: r.URL, Replicas: []*Running{r}}, nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	d := &Deployment{}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	for i := range replicas {
		r, err := Listen(net.JoinHostPort(host, "0"), p, ReplicaSeed(seed, i))
		if err != nil {
			ln.Close()
			d.closeReplicas()
			return nil, fmt.Errorf("replica %d: %w", i, err)
		}
		d.Replicas = append(d.Replicas, r)
	}
	d.URL = "http://" + ln.Addr().String()
	d.balancer = &http.Server{Handler: d.handler(), ReadHeaderTimeout: 10 * time.Second}
	d.served = make(chan error, 1)
	go func() { d.served <- d.balancer.Serve(ln) }()
	return d, nil
}

// handler is the balancer: /metrics answers every replica's metrics, each
// series labelled with its replica; everything else goes to the next
// replica in turn, streams passed on event by event.
func (d *Deployment) handler() http.Handler {
	gatherers := make(prometheus.Gatherers, len(d.Replicas))
	for i, r := range d.Replicas {
		gatherers[i] = labelled{g: r.Server.metrics.reg, value: strconv.Itoa(i)}
	}
	// The balancer hands each request to the next replica's handler in
	// this process: no second HTTP hop, so a stream's events are written
	// to the client as the replica writes them, and a client that leaves
	// cancels the replica's request context at once. (An
	// httputil.ReverseProxy in between broke about one stream in 500 on a
	// busy machine: its connection to the replica was closed under it.)
	balance := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := (d.next.Add(1) - 1) % uint64(len(d.Replicas))
		rep := d.Replicas[i]
		if rep.Server.stopped() {
			// What an L7 balancer (nginx, Envoy) answers when the
			// replica is down: a 502.
			writeError(w, &apiError{status: http.StatusBadGateway, msg: fmt.Sprintf("the balancer got no response from replica %d: it is down", i)})
			return
		}
		rep.Server.Handler().ServeHTTP(w, r)
	})
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(gatherers, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}))
	mux.Handle("/", balance)
	return mux
}

// labelled is a replica's metrics with its replica label added, so that
// the replicas' series of one family stay apart when merged.
type labelled struct {
	g     prometheus.Gatherer
	value string
}

func (l labelled) Gather() ([]*dto.MetricFamily, error) {
	mfs, err := l.g.Gather()
	name := ReplicaLabel
	for _, mf := range mfs {
		for _, m := range mf.Metric {
			m.Label = append(m.Label, &dto.LabelPair{Name: &name, Value: &l.value})
			slices.SortFunc(m.Label, func(a, b *dto.LabelPair) int { return strings.Compare(a.GetName(), b.GetName()) })
		}
	}
	return mfs, err
}

// Stats sums the replicas' counters and gauges; the scheduler jitter is
// over every replica's recent steps together.
func (d *Deployment) Stats() Stats {
	if len(d.Replicas) == 1 {
		return d.Replicas[0].Server.Stats()
	}
	st := Stats{Faults: map[string]int64{}}
	var js []time.Duration
	for _, r := range d.Replicas {
		s := r.Server.Stats()
		st.Requests += s.Requests
		st.Running += s.Running
		st.Waiting += s.Waiting
		st.KVUsed += s.KVUsed
		st.Steps += s.Steps
		st.Preemptions += s.Preemptions
		for k, v := range s.Faults {
			st.Faults[k] += v
		}
		st.JitterMax = max(st.JitterMax, s.JitterMax)
		st.JitterSamples += s.JitterSamples
		js = append(js, r.Server.recentJitter()...)
	}
	st.JitterP50, st.JitterP99 = percentile(js, 50), percentile(js, 99)
	return st
}

// Close closes the balancer, then every replica.
func (d *Deployment) Close() error {
	var err error
	if d.balancer != nil {
		err = d.balancer.Close()
		if serr := <-d.served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
			err = serr
		}
	}
	if cerr := d.closeReplicas(); err == nil {
		err = cerr
	}
	return err
}

func (d *Deployment) closeReplicas() error {
	var err error
	for _, r := range d.Replicas {
		if cerr := r.Close(); err == nil {
			err = cerr
		}
	}
	return err
}
