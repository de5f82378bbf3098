package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

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
	fs.IntVar(&o.clockProbes, "clock-probes", runner.DateProbes, "how many HTTP Date probes measure the target's clock before a common start (about 0.5 s each; 0: none)")
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
	// Refused here, before a dataset's tokenizer or the version probe
	// reaches the target.
	if !o.start.IsZero() && !time.Now().Before(o.start) {
		return fmt.Errorf("-start-at %s has passed: give a time in the future (every shard waits for it)", o.start.UTC().Format(time.RFC3339Nano))
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
	return o.value().RunFlags(baseline)
}

// value is the resolved options as the runner takes them.
func (o *shardOptions) value() runner.Shard {
	return runner.Shard{Index: o.index, Count: o.count, RunID: o.runID, Start: o.start, Barrier: o.barrier,
		BarrierTimeout: o.barrierTimeout, BarrierLead: o.barrierLead, ClockProbes: o.clockProbes}
}
