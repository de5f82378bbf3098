package results

import (
	"fmt"
	"time"
)

// Shard is a result's place in a run split across processes: shard Index
// (from 0) of Count. Every shard of one run shares its run id and
// configuration fingerprint.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// Sync is how a shard lined up with the others: the common start it aimed
// at, how late it began, and its clock against the target's and against
// shard 0's. A skewed clock or a slow pod shows here (and, merged, in the
// per-shard table).
type Sync struct {
	// StartAt is the wall-clock instant every shard's time zero was set to
	// (from -start-at, the scenario's start_at, or the barrier).
	StartAt time.Time `json:"start_at"`
	// StartLateMs is how long after StartAt this shard could begin (its
	// warmup ran past it): its first arrivals left that late.
	StartLateMs float64 `json:"start_late_ms"`
	// Barrier is the barrier's URL when one announced the start.
	Barrier string `json:"barrier,omitempty"`
	// TargetClock is the target's clock against this shard's, from the HTTP
	// Date header; LeaderClock is shard 0's, from its barrier.
	TargetClock *ClockOffset `json:"target_clock,omitempty"`
	LeaderClock *ClockOffset `json:"leader_clock,omitempty"`
}

// ClockOffset is another clock measured against ours over a few HTTP
// probes: OffsetMs is theirs minus ours, known to within ±UncertaintyMs.
// RTTMs is the shortest probe's round trip (the uncertainty cannot be much
// below half of it). Resolution says what the other side reports: whole
// seconds for the Date header, which bound the offset only as far as the
// probes straddle a change of second; nanoseconds for shard 0's barrier.
type ClockOffset struct {
	OffsetMs      float64 `json:"offset_ms"`
	UncertaintyMs float64 `json:"uncertainty_ms"`
	RTTMs         float64 `json:"rtt_ms"`
	Probes        int     `json:"probes"`
	Resolution    string  `json:"resolution"`
	Error         string  `json:"error,omitempty"`
}

// String renders the offset for the console: "+12.00 ms ±15.60 ms (6
// probes, shortest round trip 0.40 ms, resolution 1 s (HTTP Date header))".
func (c *ClockOffset) String() string {
	if c == nil {
		return "not measured"
	}
	if c.Error != "" {
		return "not measured: " + c.Error
	}
	return fmt.Sprintf("%+.2f ms ±%.2f ms (%d probes, shortest round trip %.2f ms, resolution %s)", c.OffsetMs, c.UncertaintyMs, c.Probes, c.RTTMs, c.Resolution)
}

// pieceKey names one unmerged result inside a merge: its run id and shard.
type pieceKey struct {
	run   string
	shard int // -1 for an unsharded result
}

func (k pieceKey) String() string {
	if k.shard < 0 {
		return "run " + k.run
	}
	return fmt.Sprintf("shard %d of run %s", k.shard, k.run)
}

// shardCheck holds what MergeResults learns of the shards it merges.
type shardCheck struct {
	count   int // 0 when the results are not shards
	present map[int]bool
}

// add checks one piece (a result, or a part of a merged one) against the
// others: shards of one run only, one shard count, no shard twice (the
// caller refuses the same key twice).
func (sc *shardCheck) add(i int, runID string, sh *Shard, firstRun string, sharded bool) error {
	if (sh != nil) != sharded {
		return fmt.Errorf("result %d mixes shard results with unsharded ones: merge the shards of one run together", i+1)
	}
	if sh == nil {
		return nil
	}
	if runID != firstRun {
		return fmt.Errorf("result %d is a shard of run %s, result 1 of run %s: only the shards of one run merge (give every shard the same -run-id, or the same -start-at)", i+1, runID, firstRun)
	}
	if sh.Count < 1 || sh.Index < 0 || sh.Index >= sh.Count {
		return fmt.Errorf("result %d has an invalid shard %d of %d", i+1, sh.Index, sh.Count)
	}
	if sc.count == 0 {
		sc.count = sh.Count
	} else if sh.Count != sc.count {
		return fmt.Errorf("result %d is a shard of %d, result 1 of %d: mixed shard counts", i+1, sh.Count, sc.count)
	}
	sc.present[sh.Index] = true
	return nil
}

// missing lists the shards not merged.
func (sc *shardCheck) missing() []int {
	var out []int
	for i := range sc.count {
		if !sc.present[i] {
			out = append(out, i)
		}
	}
	return out
}
