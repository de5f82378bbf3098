package runner

import (
	"runtime"
	"syscall"
	"time"

	"github.com/llmload/llmload/metrics"
)

// cpuMeter measures the process's CPU time over the measured phase: an
// executor observer whose Start marks the beginning (after warmup) and
// whose fraction is read when the run is over. Its figure includes an
// in-process simulator's work.
type cpuMeter struct {
	start time.Time
	cpu   time.Duration
	ok    bool
}

// processCPU is the process's user plus system CPU time so far.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

// Start implements executor.Starter.
func (m *cpuMeter) Start(zero time.Time) {
	m.start = zero
	m.cpu, m.ok = processCPU()
}

// Result implements executor.Observer.
func (m *cpuMeter) Result(*metrics.Request) {}

// Snapshot implements executor.Observer.
func (m *cpuMeter) Snapshot(metrics.Snapshot) {}

// Fraction is the CPU time since Start over the wall time since Start
// times the cores the process may use (GOMAXPROCS); 0 when not measured.
func (m *cpuMeter) Fraction() float64 {
	end, ok := processCPU()
	wall := time.Since(m.start)
	if !m.ok || !ok || wall <= 0 {
		return 0
	}
	return float64(end-m.cpu) / float64(wall) / float64(runtime.GOMAXPROCS(0))
}
