package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sort"
	"time"

	"github.com/llmload/llmload/results"
)

// A clock probe asks another machine for its time over HTTP. The answer T
// was true at some instant between our send (t1) and our receipt (t2), and
// it is truncated to res (1 s for the Date header), so the other clock
// minus ours lies in [T - t2, T + res - t1]. Several probes narrow that
// interval by intersection; the Date header's whole seconds narrow it
// further when a probe is timed to land on the other side's change of
// second, which probeDate does by bisection.
type probe struct {
	other  time.Time // the answer, truncated to res
	t1, t2 time.Time // our wall clock when sending and when receiving
}

// bounds is the offset interval one probe allows.
func (p probe) bounds(res time.Duration) (lo, hi time.Duration) {
	return p.other.Sub(p.t2.Round(0)), p.other.Add(res).Sub(p.t1.Round(0))
}

// estimate intersects the probes' intervals into a ClockOffset. Probes that
// disagree (an empty intersection: the other clock stepped, or rounds
// instead of truncating) fall back on the median probe's midpoint, with
// half the resolution and of the round trip as the uncertainty.
func estimate(probes []probe, res time.Duration, resolution string) *results.ClockOffset {
	c := &results.ClockOffset{Probes: len(probes), Resolution: resolution}
	if len(probes) == 0 {
		c.Error = "no probe answered"
		return c
	}
	lo, hi := time.Duration(math.MinInt64), time.Duration(math.MaxInt64)
	rtt := time.Duration(math.MaxInt64)
	var mids []time.Duration
	for _, p := range probes {
		l, h := p.bounds(res)
		lo, hi = max(lo, l), min(hi, h)
		rtt = min(rtt, p.t2.Sub(p.t1))
		mids = append(mids, (l+h)/2)
	}
	c.RTTMs = ms(rtt)
	if lo <= hi {
		c.OffsetMs, c.UncertaintyMs = ms((lo+hi)/2), ms((hi-lo)/2)
		return c
	}
	sort.Slice(mids, func(i, j int) bool { return mids[i] < mids[j] })
	c.OffsetMs, c.UncertaintyMs = ms(mids[len(mids)/2]), ms(res/2+rtt/2)
	return c
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// DateProbes is how many probes measure the target's clock: the first
// bounds the offset to about a second, each later one halves that (down
// to the round trip), for about half a second of waiting each.
const DateProbes = 6

// probeDate measures the target's clock against ours from the Date header
// of GET <base>/v1/models (any answer has one, even an error status).
// Each probe after the first is sent so that it reaches the target, by the
// current estimate, right at a change of the target's second: its answer
// then tells on which side the true offset lies.
func probeDate(ctx context.Context, client *http.Client, base string, n int) *results.ClockOffset {
	var probes []probe
	var lastErr error
	lo, hi := time.Duration(-math.MaxInt64/2), time.Duration(math.MaxInt64/2)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for range n {
		if len(probes) > 0 {
			// Aim the probe's midpoint at the next change of the target's
			// second, as the offset's current midpoint places it.
			mid := (lo + hi) / 2
			rtt := probes[len(probes)-1].t2.Sub(probes[len(probes)-1].t1)
			now := time.Now()
			boundary := now.Add(mid + rtt + 50*time.Millisecond).Truncate(time.Second).Add(time.Second)
			send := boundary.Add(-mid - rtt/2)
			timer.Reset(time.Until(send))
			select {
			case <-timer.C:
			case <-ctx.Done():
				return estimate(probes, time.Second, "1 s (HTTP Date header)")
			}
		}
		p, err := dateOnce(ctx, client, base)
		if err != nil {
			lastErr = err
			continue
		}
		probes = append(probes, p)
		l, h := p.bounds(time.Second)
		if len(probes) == 1 {
			lo, hi = l, h
		} else if nl, nh := max(lo, l), min(hi, h); nl <= nh {
			lo, hi = nl, nh
		}
	}
	c := estimate(probes, time.Second, "1 s (HTTP Date header)")
	if len(probes) == 0 && lastErr != nil {
		c.Error = lastErr.Error()
	}
	return c
}

// timedGet sends one GET and notes when it left (t1) and when the answer's
// headers came back (t2): the window the other clock's reading lies in.
func timedGet(ctx context.Context, client *http.Client, url string) (*http.Response, time.Time, time.Time, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, time.Time{}, time.Time{}, err
	}
	t1 := time.Now()
	resp, err := client.Do(req)
	return resp, t1, time.Now(), err
}

func dateOnce(ctx context.Context, client *http.Client, base string) (probe, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, t1, t2, err := timedGet(ctx, client, base+"/v1/models")
	if err != nil {
		return probe{}, err
	}
	resp.Body.Close()
	d := resp.Header.Get("Date")
	if d == "" {
		return probe{}, errors.New("the target sends no Date header")
	}
	at, err := http.ParseTime(d)
	if err != nil {
		return probe{}, fmt.Errorf("the target's Date header %q: %w", d, err)
	}
	return probe{other: at, t1: t1, t2: t2}, nil
}

// leaderProbes is how many times a shard reads shard 0's clock.
const leaderProbes = 5

// probeLeader measures shard 0's clock against ours from its barrier's
// /time, which answers in nanoseconds.
func probeLeader(ctx context.Context, client *http.Client, base string) *results.ClockOffset {
	var probes []probe
	var lastErr error
	for range leaderProbes {
		p, err := leaderOnce(ctx, client, base)
		if err != nil {
			lastErr = err
			continue
		}
		probes = append(probes, p)
	}
	c := estimate(probes, 0, "1 ns (shard 0's barrier)")
	if len(probes) == 0 && lastErr != nil {
		c.Error = lastErr.Error()
	}
	return c
}

func leaderOnce(ctx context.Context, client *http.Client, base string) (probe, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, t1, t2, err := timedGet(ctx, client, base+"/time")
	if err != nil {
		return probe{}, err
	}
	defer resp.Body.Close()
	var v struct {
		UnixNano int64 `json:"unix_nano"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || v.UnixNano == 0 {
		return probe{}, fmt.Errorf("barrier /time: unreadable answer (%v)", err)
	}
	return probe{other: time.Unix(0, v.UnixNano), t1: t1, t2: t2}, nil
}
