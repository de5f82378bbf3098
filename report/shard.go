package report

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/llmload/llmload/results"
)

// writeShards prints a shard's identity, or a merged result's table of
// parts: per shard (or run), the achieved rate, schedule lag, clock offsets
// and errors, so that a slow or skewed pod stands out.
func writeShards(p *printer, r *results.Result) {
	if sh := r.Shard; sh != nil {
		p.printf("\nShard %d of %d of run %s", sh.Index, sh.Count, r.RunID)
		if s := r.Sync; s != nil {
			p.printf("; common start %s, began %.1f ms late\n", s.StartAt.UTC().Format(time.RFC3339Nano), s.StartLateMs)
			p.printf("Clock vs target (HTTP Date): %s\n", s.TargetClock)
			if s.LeaderClock != nil {
				p.printf("Clock vs shard 0 (barrier): %s\n", s.LeaderClock)
			}
		} else {
			p.printf("; no common start\n")
		}
	}
	if len(r.Parts) < 2 && len(r.MissingShards) == 0 {
		return
	}
	parts := append([]results.Part(nil), r.Parts...)
	sort.SliceStable(parts, func(i, j int) bool {
		if parts[i].RunID != parts[j].RunID {
			return parts[i].RunID < parts[j].RunID
		}
		return shardIndex(parts[i]) < shardIndex(parts[j])
	})
	p.printf("\nParts (a slow or skewed shard shows as lag, a late start or a clock offset)\n")
	p.printf("%-16s %9s %9s %8s %8s %9s %9s %10s %13s %13s\n",
		"part", "completed", "failed", "req/s", "lag p99", "lag max", "late", "start late", "clock target", "clock shard0")
	for _, pt := range parts {
		name := pt.RunID
		if pt.Shard != nil {
			name = fmt.Sprintf("shard %d/%d", pt.Shard.Index, pt.Shard.Count)
		}
		p.printf("%-16s %9d %9d %8.2f %8.2f %9.2f %9d %10s %13s %13s\n",
			name, pt.Completed, pt.Failed, pt.AchievedRate, pt.LagP99, pt.LagMax, pt.LateDispatches,
			msOrDash(pt.StartLateMs, pt.Shard != nil), offsetText(pt.ClockOffsetMs, pt.ClockUncertaintyMs), offsetText(pt.LeaderOffsetMs, pt.LeaderUncertaintyMs))
	}
	p.printf("(ms; clock = that clock minus the shard's, ± its uncertainty)\n")
	if len(r.MissingShards) > 0 {
		var ids []string
		for _, i := range r.MissingShards {
			ids = append(ids, fmt.Sprint(i))
		}
		p.printf("MISSING: shard %s of %d: the merged figures are partial\n", strings.Join(ids, ", "), r.ShardCount)
	}
}

// shardIndex is a part's shard, -1 for an unsharded one.
func shardIndex(pt results.Part) int {
	if pt.Shard == nil {
		return -1
	}
	return pt.Shard.Index
}

func msOrDash(v float64, ok bool) string {
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.1f", v)
}

func offsetText(v, pm *float64) string {
	if v == nil {
		return "-"
	}
	if pm == nil {
		return fmt.Sprintf("%+.1f", *v)
	}
	return fmt.Sprintf("%+.1f±%.1f", *v, *pm)
}
