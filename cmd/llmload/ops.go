package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/llmload/llmload/internal/buildinfo"
	"github.com/llmload/llmload/ops"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/runner"
)

// cmdOps writes alert rules, their promtool tests and autoscaler targets
// derived from a capacity or sweep result (package ops).
func cmdOps(_ context.Context, e env, args []string) int {
	fs := newFlags(e, "ops", "RESULT.json")
	dir := fs.String("dir", "ops", "write the files into this `directory`")
	var o ops.Options
	fs.Float64Var(&o.Headroom, "headroom", 0.8, "the autoscaler's per-replica target as a `share` of the capacity's lower bound")
	fs.Float64Var(&o.WarnShare, "warn", 0.9, "the warning's threshold as a `share` of the capacity's lower bound")
	fs.StringVar(&o.For, "for", "5m", "how long an alert's condition must hold before it fires")
	fs.StringVar(&o.Window, "window", "5m", "the range of rate() and avg_over_time() in the rules and queries")
	fs.StringVar(&o.Deployment, "deployment", "llm-server", "the Deployment the autoscalers scale")
	fs.StringVar(&o.Namespace, "namespace", "default", "its namespace")
	fs.IntVar(&o.MinReplicas, "min-replicas", 1, "the autoscalers' fewest replicas")
	fs.IntVar(&o.MaxReplicas, "max-replicas", 8, "the autoscalers' most replicas")
	fs.StringVar(&o.PrometheusURL, "prometheus-url", "http://prometheus.monitoring.svc:9090", "where KEDA queries Prometheus")
	fs.BoolVar(&o.Force, "force", false, "derive from an invalid run (the load generator did not do what the scenario said)")
	paths, code, ok := parseInterspersed(fs, args)
	if !ok {
		return code
	}
	if len(paths) != 1 {
		return fs.usageError("give one result file")
	}
	if o.Headroom <= 0 || o.WarnShare <= 0 || o.MinReplicas < 1 || o.MaxReplicas < 1 {
		return fs.usageError(fmt.Sprintf("-headroom %g, -warn %g: each a share in (0, 1]; -min-replicas %d, -max-replicas %d: each at least 1 (an HPA cannot scale to 0)",
			o.Headroom, o.WarnShare, o.MinReplicas, o.MaxReplicas))
	}
	r, err := results.ReadResult(paths[0])
	if err != nil {
		fmt.Fprintf(e.stderr, "llmload ops: %v\n", err)
		return exitInvalid
	}
	o.Source, o.Version = filepath.Base(paths[0]), buildinfo.Read(version, commit).Version
	plan, written, err := ops.Write(*dir, r, o)
	if err != nil {
		fmt.Fprintf(e.stderr, "llmload ops: %s: %v\n", paths[0], err)
		return exitInvalid
	}
	fmt.Fprint(e.stdout, plan.Describe())
	for _, p := range written {
		fmt.Fprintf(e.stdout, "wrote %s\n", p)
	}
	for _, p := range plan.Removed {
		fmt.Fprintf(e.stdout, "removed %s (an earlier run's: this result gives none)\n", p)
	}
	return exitOK
}

// writeOps is run -ops: llmload ops on the run's result, its lines on
// stderr (the console is the report's).
func writeOps(e env, opts runOptions, name string, r *runner.Run) int {
	dir := opts.ops
	if opts.multi {
		dir = filepath.Join(dir, name)
	}
	o := ops.Options{Source: r.ResultName(), Version: buildinfo.Read(version, commit).Version}
	plan, written, err := ops.Write(dir, r.Result, o)
	if err != nil {
		fmt.Fprintf(e.stderr, "llmload: -ops: %s: %v\n", name, err)
		return exitNoResult
	}
	fmt.Fprint(e.stderr, plan.Describe())
	for _, p := range written {
		fmt.Fprintf(e.stderr, "llmload: wrote %s\n", p)
	}
	return exitOK
}
