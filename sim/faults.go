package sim

import "math/rand"

// The fault kinds, as Stats and the fault_* keys name them.
const (
	FaultKindHTTP500   = "http_500"
	FaultKindHTTP429   = "http_429"
	FaultKindHTTP503   = "http_503"
	FaultKindDrop      = "drop"
	FaultKindStall     = "stall"
	FaultKindMalformed = "malformed"
	// Output faults: the stream is healthy and on time, its text is not.
	FaultKindRepeatToken = "repeat_token"
	FaultKindGarbage     = "garbage_output"
	FaultKindNeverStop   = "never_stop"
	FaultKindSwapOutputs = "swap_outputs"
)

type faultShare struct {
	kind string
	p    float64
}

// faults lists each fault kind with its probability, in draw order.
func (p *Profile) faults() []faultShare {
	return []faultShare{
		{FaultKindHTTP500, p.FaultHTTP500},
		{FaultKindHTTP429, p.FaultHTTP429},
		{FaultKindHTTP503, p.FaultHTTP503},
		{FaultKindDrop, p.FaultDrop},
		{FaultKindStall, p.FaultStall},
		{FaultKindMalformed, p.FaultMalformed},
		{FaultKindRepeatToken, p.FaultRepeatToken},
		{FaultKindGarbage, p.FaultGarbage},
		{FaultKindNeverStop, p.FaultNeverStop},
		{FaultKindSwapOutputs, p.FaultSwapOutputs},
	}
}

// drawFault picks at most one fault for a request ("" for none) with one
// uniform draw over the cumulative probabilities.
func (p *Profile) drawFault(rng *rand.Rand) string {
	u := rng.Float64()
	for _, f := range p.faults() {
		if u < f.p {
			return f.kind
		}
		u -= f.p
	}
	return ""
}
