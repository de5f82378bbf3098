package executor

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/llmload/llmload/dataset"
)

// Arrival processes of an open loop.
const (
	ArrivalPoisson  = "poisson"  // exponential gaps (gamma with shape 1)
	ArrivalGamma    = "gamma"    // gamma gaps with shape Burstiness
	ArrivalConstant = "constant" // every gap 1/Rate
	// ArrivalReplay sends each request at its recorded time
	// (dataset.Request.At) divided by OpenLoop.Speed.
	ArrivalReplay = "replay"
)

// Replay returns the arrival offsets of a replay of reqs at speed: request
// k leaves at (reqs[k].At - reqs[0].At) / speed, so that the first one
// leaves at 0. It is the schedule Arrivals gives for ArrivalReplay.
func Replay(reqs []dataset.Request, speed float64) []time.Duration {
	if len(reqs) == 0 || !(speed > 0) {
		return nil
	}
	offs := make([]time.Duration, len(reqs))
	for k, r := range reqs {
		offs[k] = time.Duration(math.Round(float64(r.At-reqs[0].At) / speed))
	}
	return offs
}

// MeanRate is the mean rate of a schedule in requests per second: n-1
// arrivals over the span from the first to the last (0 when there is no
// span).
func MeanRate(offs []time.Duration) float64 {
	if len(offs) < 2 || offs[len(offs)-1] <= offs[0] {
		return 0
	}
	return float64(len(offs)-1) / (offs[len(offs)-1] - offs[0]).Seconds()
}

// Schedule returns the arrival offsets of the first n requests of an open
// loop, drawn from a generator seeded with seed: the same inputs always give
// the same schedule. The first request arrives at 0 and each later one a gap
// after the previous. Gaps are gamma distributed with shape Burstiness and
// scale 1/(Rate*Burstiness), so their mean is 1/Rate whatever the
// burstiness (below 1 burstier, above 1 more regular); "poisson" uses shape
// 1 (exponential gaps) and "constant" gaps of exactly 1/Rate. As vLLM's
// benchmark does, the drawn arrivals are then scaled together so that they
// span exactly their expected length: the last one lands at (n-1)/Rate, and
// the offered rate does not vary from seed to seed. A Rate of +Inf (or not
// above 0) puts every arrival at 0.
func Schedule(o OpenLoop, n int, seed int64) []time.Duration {
	if n <= 0 {
		return nil
	}
	offs := make([]time.Duration, n)
	if math.IsInf(o.Rate, 1) || !(o.Rate > 0) {
		return offs
	}
	shape := 1.0
	if o.Arrival == ArrivalGamma && o.Burstiness > 0 {
		shape = o.Burstiness
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6c6c6d6c6f6164)) // "llmload"
	at := make([]float64, n)                                     // seconds
	for i := 1; i < n; i++ {
		if o.Arrival == ArrivalConstant {
			at[i] = float64(i) / o.Rate
		} else {
			at[i] = at[i-1] + gamma(rng, shape)/(o.Rate*shape)
		}
	}
	scale := 1.0
	if last := at[n-1]; last > 0 {
		scale = float64(n-1) / o.Rate / last
	}
	for i, t := range at {
		offs[i] = time.Duration(math.Round(t * scale * float64(time.Second)))
	}
	return offs
}

// gamma draws from a gamma distribution with the given shape and scale 1
// (Marsaglia and Tsang's method; for shape < 1 boosted by U^(1/shape)).
func gamma(rng *rand.Rand, shape float64) float64 {
	if shape == 1 {
		return rng.ExpFloat64()
	}
	if shape < 1 {
		return gamma(rng, shape+1) * math.Pow(rng.Float64(), 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// step is a point where a closed loop's wanted user count changes.
type step struct {
	at    time.Duration // since the start of the run
	users int
}

// userSteps returns the user count over time for stages, starting from zero
// users: at the start of each stage the count moves from the previous
// stage's to the stage's own, at once when Ramp is zero, else one user at a
// time at even intervals over Ramp (the first change at the stage's start).
// A stage with zero Duration runs until the run ends (only the last may).
func userSteps(stages []Stage) []step {
	var steps []step
	var at time.Duration
	prev := 0
	for _, s := range stages {
		n := s.Users - prev
		dir := 1
		if n < 0 {
			n, dir = -n, -1
		}
		if s.Ramp <= 0 || n <= 1 {
			steps = append(steps, step{at: at, users: s.Users})
		} else {
			for j := 1; j <= n; j++ {
				steps = append(steps, step{at: at + s.Ramp*time.Duration(j-1)/time.Duration(n), users: prev + dir*j})
			}
		}
		at += s.Duration
		prev = s.Users
	}
	return steps
}

// stageAt returns the index of the stage running at offset t: the last one
// whose start is at or before t.
func stageAt(stages []Stage, t time.Duration) int {
	var start time.Duration
	for i, s := range stages {
		if i == len(stages)-1 || t < start+s.Duration {
			return i
		}
		start += s.Duration
	}
	return 0
}

// stagesLength is the total length of the stages, 0 when the last one is
// unbounded.
func stagesLength(stages []Stage) time.Duration {
	var d time.Duration
	for _, s := range stages {
		if s.Duration <= 0 {
			return 0
		}
		d += s.Duration
	}
	return d
}
