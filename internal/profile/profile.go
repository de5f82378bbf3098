package profile

import (
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"time"
)

// The environment variables that ask for each profile.
const (
	envCPUProfile = "LLMLOAD_CPUPROFILE"
	envMemProfile = "LLMLOAD_MEMPROFILE"
	envGCStats    = "LLMLOAD_GCSTATS"
)

// Start starts what the environment asks for and returns the
// function that ends it.
func Start(stderr io.Writer) func() {
	var stops []func()
	if path := os.Getenv(envCPUProfile); path != "" {
		if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
			stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
		} else {
			fmt.Fprintf(stderr, "llmload: %s: cannot profile to %s\n", envCPUProfile, path)
		}
	}
	if path := os.Getenv(envMemProfile); path != "" {
		runtime.MemProfileRate = 64 << 10
		stops = append(stops, func() {
			if f, err := os.Create(path); err == nil {
				pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		})
	}
	if os.Getenv(envGCStats) != "" {
		peak := watchMemory()
		stops = append(stops, func() { writeGCStats(stderr); peak(stderr) })
	}
	return func() {
		for _, f := range stops {
			f()
		}
	}
}

// writeGCStats prints the GC's cycles, pause percentiles and CPU share.
func writeGCStats(w io.Writer) {
	s := []metrics.Sample{
		{Name: "/gc/cycles/total:gc-cycles"},
		{Name: "/sched/pauses/total/gc:seconds"},
		{Name: "/cpu/classes/gc/total:cpu-seconds"},
		{Name: "/cpu/classes/total:cpu-seconds"},
		{Name: "/gc/heap/allocs:bytes"},
		{Name: "/sched/latencies:seconds"},
	}
	metrics.Read(s)
	q := func(h *metrics.Float64Histogram, p float64) time.Duration {
		var total uint64
		for _, c := range h.Counts {
			total += c
		}
		var acc uint64
		for i, c := range h.Counts {
			acc += c
			if total > 0 && float64(acc) >= p*float64(total) {
				b := h.Buckets[i+1]
				if math.IsInf(b, 1) {
					b = h.Buckets[i]
				}
				return time.Duration(b * 1e9)
			}
		}
		return 0
	}
	pauses, lat := s[1].Value.Float64Histogram(), s[5].Value.Float64Histogram()
	fmt.Fprintf(w, "gc: %d cycles, pauses p50 %v p99 %v max %v, GC CPU %.2f of %.2f s, %d MiB allocated; goroutine scheduling latency p50 %v p99 %v\n",
		s[0].Value.Uint64(), q(pauses, .5), q(pauses, .99), q(pauses, 1), s[2].Value.Float64(), s[3].Value.Float64(),
		s[4].Value.Uint64()>>20, q(lat, .5), q(lat, .99))
}

// watchMemory samples the runtime's memory classes every 100 ms and
// returns the function printing their peaks: where the memory of many
// open streams goes (goroutine stacks, heap objects, the rest).
func watchMemory() func(io.Writer) {
	names := []string{"/memory/classes/heap/stacks:bytes", "/memory/classes/heap/objects:bytes", "/memory/classes/total:bytes", "/sched/goroutines:goroutines"}
	s := make([]metrics.Sample, len(names))
	for i, n := range names {
		s[i].Name = n
	}
	peaks := make([]uint64, len(names))
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			for i := range s {
				peaks[i] = max(peaks[i], s[i].Value.Uint64())
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func(w io.Writer) {
		close(done)
		<-stopped
		fmt.Fprintf(w, "memory peaks: goroutine stacks %d MiB, heap objects %d MiB, all the runtime mapped %d MiB; %d goroutines\n",
			peaks[0]>>20, peaks[1]>>20, peaks[2]>>20, peaks[3])
	}
}
