package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/llmload/llmload/executor"
	"github.com/llmload/llmload/internal/safehttp"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/scenario"
)

// Shard splits a run across processes and lines them up: which shard this
// process runs, the run id every shard shares, and the common start (a
// time, or shard 0's barrier). The zero value is a run of its own.
type Shard struct {
	Index, Count   int // Count 0: not sharded
	RunID          string
	Start          time.Time // zero: none (the scenario's start_at, if any)
	Barrier        string    // shard 0 serves it at this URL; the others join it
	BarrierTimeout time.Duration
	BarrierLead    time.Duration
	ClockProbes    int
}

// RunFlags are the shard options (and whether -baseline was given) as
// scenario.CheckRunFlags reads them.
func (o Shard) RunFlags(baseline bool) scenario.RunFlags {
	return scenario.RunFlags{Shards: o.Count, Baseline: baseline, StartAt: !o.Start.IsZero(), Barrier: o.Barrier != "", RunID: o.RunID != ""}
}

// Sharded reports whether this process runs one shard of several.
func (o Shard) Sharded() bool { return o.Count > 1 }

// Active reports whether any option asks for coordination.
func (o Shard) Active() bool {
	return o.Count > 0 || o.Barrier != "" || o.RunID != "" || !o.Start.IsZero()
}

// shardDir is where a shard writes its files under -out: shard-<i>, so
// that shards sharing a volume do not overwrite each other.
func (o Shard) shardDir(out string) string {
	if !o.Sharded() || out == "" {
		return out
	}
	return filepath.Join(out, "shard-"+strconv.Itoa(o.Index))
}

// coordination is what a shard settled with the others before its run.
type coordination struct {
	runID string
	sync  *results.Sync // nil without a common start
	close func()
}

// coordinate settles the run id and the common start of one scenario's
// run: from -start-at or the scenario's start_at, or from shard 0's
// barrier; and it measures this machine's clock against the target's
// (and shard 0's). It returns a status when the run must not start.
func coordinate(ctx context.Context, log io.Writer, s *scenario.Scenario, lt *liveTarget, plan *executor.Plan, fp string, o Shard) (*coordination, Status) {
	c := &coordination{runID: o.RunID, close: func() {}}
	plan.Shard, plan.Shards = o.Index, o.Count
	if o.Sharded() {
		if n := len(executor.Arrivals(*plan)); plan.Open != nil && n == 0 {
			fmt.Fprintf(log, "llmload: shard %d of %d has no arrival: the run has fewer requests than shards\n", o.Index, o.Count)
			return nil, StatusInvalid
		}
		if cl := plan.Closed; cl != nil {
			users := 0
			for _, st := range cl.Stages {
				users = max(users, st.Users)
			}
			if users < o.Count {
				fmt.Fprintf(log, "llmload: a closed loop of %d users cannot be split into %d shards (a shard would have no user)\n", users, o.Count)
				return nil, StatusInvalid
			}
		}
	}
	start := o.Start
	if start.IsZero() {
		start = s.StartAt
	}
	if start.IsZero() && o.Barrier == "" {
		if o.Sharded() && c.runID == "" {
			fmt.Fprintf(log, "llmload: shard %d of %d needs a run id every shard shares: give -run-id (or $%s), -start-at or -barrier\n", o.Index, o.Count, "LLMLOAD_RUN_ID")
			return nil, StatusInvalid
		}
		if c.runID == "" {
			c.runID = newRunID()
		}
		return c, StatusOK
	}
	if !start.IsZero() && !time.Now().Before(start) {
		fmt.Fprintf(log, "llmload: the start time %s has passed\n", start.UTC().Format(time.RFC3339Nano))
		return nil, StatusInvalid
	}
	client, err := lt.target.HTTPClient(2)
	if err != nil {
		fmt.Fprintf(log, "llmload: %v\n", err)
		return nil, StatusInvalid
	}
	sy := &results.Sync{StartAt: start, Barrier: o.Barrier}
	if o.ClockProbes > 0 {
		sy.TargetClock = probeDate(ctx, client, lt.target.BaseURL, o.ClockProbes)
		fmt.Fprintf(log, "llmload: target clock minus ours: %s\n", sy.TargetClock)
	}

	if o.Barrier != "" {
		if c.runID == "" && o.Index == 0 {
			c.runID = newRunID()
		}
		if o.Index == 0 {
			b, err := startBarrier(o.Barrier, s.Name, fp, c.runID, o.Count, o.BarrierLead)
			if err != nil {
				fmt.Fprintf(log, "llmload: %v\n", err)
				return nil, StatusInvalid
			}
			c.close = b.Close // /time answers for the whole run
			fmt.Fprintf(log, "llmload: barrier serving on %s; waiting for %d shards\n", b.ln.Addr(), o.Count-1)
			if sy.StartAt, err = b.wait(ctx, o.BarrierTimeout); err != nil {
				b.Close()
				fmt.Fprintf(log, "llmload: %v\n", err)
				return nil, StatusNoResult
			}
		} else {
			// A long poll: no timeout but the barrier's; shard 0 answers
			// itself, so a redirect is not followed.
			bc := &http.Client{CheckRedirect: safehttp.CheckRedirect(safehttp.Never)}
			a, err := joinBarrier(ctx, bc, strings.TrimSuffix(o.Barrier, "/"), s.Name, fp, c.runID, o.Index, o.Count, o.BarrierTimeout)
			if err != nil {
				fmt.Fprintf(log, "llmload: %v\n", err)
				if errors.Is(err, context.Canceled) {
					return nil, StatusInterrupted
				}
				return nil, StatusNoResult
			}
			sy.StartAt, c.runID = a.StartAt, a.RunID
			sy.LeaderClock = probeLeader(ctx, bc, strings.TrimSuffix(o.Barrier, "/"))
			fmt.Fprintf(log, "llmload: shard 0's clock minus ours: %s\n", sy.LeaderClock)
		}
	}
	if c.runID == "" {
		c.runID = startRunID(s.Name, sy.StartAt)
	}
	fmt.Fprintf(log, "llmload: run %s starts at %s (in %v)\n", c.runID, sy.StartAt.UTC().Format(time.RFC3339Nano), time.Until(sy.StartAt).Round(time.Millisecond))
	plan.StartAt = sy.StartAt
	c.sync = sy
	return c, StatusOK
}

// startRunID derives a run id from the scenario and its start time, so
// that shards given the same -start-at agree on it without talking.
func startRunID(name string, start time.Time) string {
	h := sha256.Sum256([]byte(name + "@" + start.UTC().Format(time.RFC3339Nano)))
	return hex.EncodeToString(h[:8])
}
