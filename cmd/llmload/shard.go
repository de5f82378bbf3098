package main

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
	"github.com/llmload/llmload/report"
	"github.com/llmload/llmload/runner"
	"github.com/llmload/llmload/scenario"
)

// Environment variables a Kubernetes Indexed Job sets (JOB_COMPLETION_INDEX)
// or its manifest passes, so that a pod needs no wrapper script.
const (
	envJobIndex = "JOB_COMPLETION_INDEX"
	envShards   = "LLMLOAD_SHARDS"
	envRunID    = "LLMLOAD_RUN_ID"
)

// shardOptions split a run across processes and line them up.
type shardOptions struct {
	spec           string // -shard i/N as given
	index, count   int    // count 0: not sharded
	runID          string
	startAt        string // -start-at as given
	start          time.Time
	barrier        string
	barrierTimeout time.Duration
	barrierLead    time.Duration
	clockProbes    int
}

func (o *shardOptions) register(fs *flagSet) {
	fs.StringVar(&o.spec, "shard", "", "run shard `i/N` (0-based) of a run split across N processes (default: $"+envJobIndex+"/$"+envShards+" when both are set)")
	fs.StringVar(&o.runID, "run-id", "", "the run `id` every shard shares (default: $"+envRunID+", else derived from -start-at, else random)")
	fs.StringVar(&o.startAt, "start-at", "", "begin the schedule at this RFC 3339 `time` (after warmup), e.g. 2026-12-01T10:00:00Z (overrides the scenario's start_at)")
	fs.StringVar(&o.barrier, "barrier", "", "shard 0 serves a start barrier at this http://host:port `URL`; the other shards wait on it and start together")
	fs.DurationVar(&o.barrierTimeout, "barrier-timeout", 10*time.Minute, "how long to wait for every shard at the barrier")
	fs.DurationVar(&o.barrierLead, "barrier-lead", 5*time.Second, "how far ahead of the last join shard 0 sets the start")
	fs.IntVar(&o.clockProbes, "clock-probes", dateProbes, "how many HTTP Date probes measure the target's clock before a common start (about 0.5 s each; 0: none)")
}

// resolve reads -shard and the environment and checks the combination.
func (o *shardOptions) resolve(getenv func(string) string) error {
	spec := o.spec
	if spec == "" {
		if idx, n := getenv(envJobIndex), getenv(envShards); n != "" {
			if idx == "" {
				return fmt.Errorf("$%s is %q but $%s is not set: give -shard i/N", envShards, n, envJobIndex)
			}
			spec = idx + "/" + n
		}
	}
	if spec != "" {
		i, n, ok := strings.Cut(spec, "/")
		idx, err1 := strconv.Atoi(strings.TrimSpace(i))
		count, err2 := strconv.Atoi(strings.TrimSpace(n))
		if !ok || err1 != nil || err2 != nil || count < 1 || idx < 0 || idx >= count {
			return fmt.Errorf("shard %q: want i/N with 0 <= i < N", spec)
		}
		o.index, o.count = idx, count
	}
	if o.runID == "" {
		o.runID = getenv(envRunID)
	}
	if o.startAt != "" {
		t, err := time.Parse(time.RFC3339Nano, o.startAt)
		if err != nil {
			return fmt.Errorf("-start-at %q: want an RFC 3339 time such as 2026-12-01T10:00:00Z", o.startAt)
		}
		o.start = t
	}
	if o.barrier != "" && !o.start.IsZero() {
		return fmt.Errorf("-barrier announces its own start: give -barrier or -start-at, not both")
	}
	if o.clockProbes < 0 {
		return fmt.Errorf("-clock-probes %d: want 0 or more", o.clockProbes)
	}
	if o.barrier != "" && o.count < 1 {
		return fmt.Errorf("-barrier needs -shard i/N (or $%s and $%s)", envJobIndex, envShards)
	}
	return nil
}

// runFlags are the shard options (and whether -baseline was given) as
// scenario.CheckRunFlags reads them.
func (o *shardOptions) runFlags(baseline bool) scenario.RunFlags {
	return scenario.RunFlags{Shards: o.count, Baseline: baseline, StartAt: !o.start.IsZero(), Barrier: o.barrier != "", RunID: o.runID != ""}
}

// sharded reports whether this process runs one shard of several.
func (o *shardOptions) sharded() bool { return o.count > 1 }

// active reports whether any option asks for coordination.
func (o *shardOptions) active() bool {
	return o.count > 0 || o.barrier != "" || o.runID != "" || !o.start.IsZero()
}

// shardDir is where a shard writes its files under -out: shard-<i>, so
// that shards sharing a volume do not overwrite each other.
func (o *shardOptions) shardDir(out string) string {
	if !o.sharded() || out == "" {
		return out
	}
	return filepath.Join(out, "shard-"+strconv.Itoa(o.index))
}

// coordination is what a shard settled with the others before its run.
type coordination struct {
	runID string
	sync  *report.Sync // nil without a common start
	close func()
}

// coordinate settles the run id and the common start of one scenario's
// run: from -start-at or the scenario's start_at, or from shard 0's
// barrier; and it measures this machine's clock against the target's
// (and shard 0's). It returns a status when the run must not start.
func coordinate(ctx context.Context, log io.Writer, s *scenario.Scenario, lt *liveTarget, plan *executor.Plan, fp string, o shardOptions) (*coordination, runner.Status) {
	c := &coordination{runID: o.runID, close: func() {}}
	plan.Shard, plan.Shards = o.index, o.count
	if o.sharded() {
		if n := len(executor.Arrivals(*plan)); plan.Open != nil && n == 0 {
			fmt.Fprintf(log, "llmload: shard %d of %d has no arrival: the run has fewer requests than shards\n", o.index, o.count)
			return nil, runner.StatusInvalid
		}
		if cl := plan.Closed; cl != nil {
			users := 0
			for _, st := range cl.Stages {
				users = max(users, st.Users)
			}
			if users < o.count {
				fmt.Fprintf(log, "llmload: a closed loop of %d users cannot be split into %d shards (a shard would have no user)\n", users, o.count)
				return nil, runner.StatusInvalid
			}
		}
	}
	start := o.start
	if start.IsZero() {
		start = s.StartAt
	}
	if start.IsZero() && o.barrier == "" {
		if o.sharded() && c.runID == "" {
			fmt.Fprintf(log, "llmload: shard %d of %d needs a run id every shard shares: give -run-id (or $%s), -start-at or -barrier\n", o.index, o.count, envRunID)
			return nil, runner.StatusInvalid
		}
		if c.runID == "" {
			c.runID = newRunID()
		}
		return c, runner.StatusOK
	}
	if !start.IsZero() && !time.Now().Before(start) {
		fmt.Fprintf(log, "llmload: the start time %s has passed\n", start.UTC().Format(time.RFC3339Nano))
		return nil, runner.StatusInvalid
	}
	client, err := lt.target.HTTPClient(2)
	if err != nil {
		fmt.Fprintf(log, "llmload: %v\n", err)
		return nil, runner.StatusInvalid
	}
	sy := &report.Sync{StartAt: start, Barrier: o.barrier}
	if o.clockProbes > 0 {
		sy.TargetClock = probeDate(ctx, client, lt.target.BaseURL, o.clockProbes)
		fmt.Fprintf(log, "llmload: target clock minus ours: %s\n", sy.TargetClock)
	}

	if o.barrier != "" {
		if c.runID == "" && o.index == 0 {
			c.runID = newRunID()
		}
		if o.index == 0 {
			b, err := startBarrier(o.barrier, s.Name, fp, c.runID, o.count, o.barrierLead)
			if err != nil {
				fmt.Fprintf(log, "llmload: %v\n", err)
				return nil, runner.StatusInvalid
			}
			c.close = b.Close // /time answers for the whole run
			fmt.Fprintf(log, "llmload: barrier serving on %s; waiting for %d shards\n", b.ln.Addr(), o.count-1)
			if sy.StartAt, err = b.wait(ctx, o.barrierTimeout); err != nil {
				b.Close()
				fmt.Fprintf(log, "llmload: %v\n", err)
				return nil, runner.StatusNoResult
			}
		} else {
			bc := &http.Client{} // a long poll: no timeout but the barrier's
			a, err := joinBarrier(ctx, bc, strings.TrimSuffix(o.barrier, "/"), s.Name, fp, c.runID, o.index, o.count, o.barrierTimeout)
			if err != nil {
				fmt.Fprintf(log, "llmload: %v\n", err)
				if errors.Is(err, context.Canceled) {
					return nil, runner.StatusInterrupted
				}
				return nil, runner.StatusNoResult
			}
			sy.StartAt, c.runID = a.StartAt, a.RunID
			sy.LeaderClock = probeLeader(ctx, bc, strings.TrimSuffix(o.barrier, "/"))
			fmt.Fprintf(log, "llmload: shard 0's clock minus ours: %s\n", sy.LeaderClock)
		}
	}
	if c.runID == "" {
		c.runID = startRunID(s.Name, sy.StartAt)
	}
	fmt.Fprintf(log, "llmload: run %s starts at %s (in %v)\n", c.runID, sy.StartAt.UTC().Format(time.RFC3339Nano), time.Until(sy.StartAt).Round(time.Millisecond))
	plan.StartAt = sy.StartAt
	c.sync = sy
	return c, runner.StatusOK
}

// startRunID derives a run id from the scenario and its start time, so
// that shards given the same -start-at agree on it without talking.
func startRunID(name string, start time.Time) string {
	h := sha256.Sum256([]byte(name + "@" + start.UTC().Format(time.RFC3339Nano)))
	return hex.EncodeToString(h[:8])
}
