package runner

// The server's configuration (serverinfo) in a run and in a comparison:
// read before the load, its differences listed beside the figures, the
// settings a scenario requires to match, and the server figures whose
// engine metric appeared, vanished or was renamed between the two sides.

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmload/llmload/compare"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/scenario"
	"github.com/llmload/llmload/serverinfo"
)

// probeServer asks the target for its version (probeVersion) and its
// configuration (readServerConfig), before the run, over one kept-alive
// connection (setupClient); never fatal.
func probeServer(ctx context.Context, log io.Writer, lt *liveTarget) (string, *results.ServerConfig) {
	client, err := setupClient(lt)
	if err != nil {
		lt.target.ModelAliases = nil
		return "", nil
	}
	defer client.CloseIdleConnections()
	return probeVersionWith(ctx, log, lt, client), readConfigWith(ctx, log, lt, client, "target")
}

// readServerConfig reads what the target says of its configuration
// (package serverinfo) through the target's own client: its TLS settings
// and credentials, no redirect followed, no credential to another host;
// serverinfo.RequestTimeout per request, configBudget in all. Never fatal: nil only when the
// target has no HTTP client to ask with.
// who names the server in the log ("target", "baseline arm").
func readServerConfig(ctx context.Context, log io.Writer, lt *liveTarget, who string) *results.ServerConfig {
	client, err := setupClient(lt)
	if err != nil {
		return nil
	}
	defer client.CloseIdleConnections()
	return readConfigWith(ctx, log, lt, client, who)
}

// readConfigWith is readServerConfig through client.
func readConfigWith(ctx context.Context, log io.Writer, lt *liveTarget, client *http.Client, who string) *results.ServerConfig {
	// At most configBudget in all: a server that answers none of the
	// endpoints holds the start back no longer than that.
	ctx, cancel := context.WithTimeout(ctx, configBudget)
	defer cancel()
	cfg := serverinfo.Read(ctx, client, lt.target.BaseURL, serverinfo.Options{Model: lt.target.Model, Scrub: lt.target.Scrubber().Scrub})
	if cfg.Exposed() {
		fmt.Fprintf(log, "llmload: %s server configuration: %s\n", who, describeConfig(cfg))
	}
	return cfg
}

// configBudget bounds the reading of a server's configuration.
const configBudget = 6 * time.Second

// describeConfig is a configuration in one line: "engine vllm, model m,
// max_model_len 8192, 12 settings (/version, /v1/models, /metrics)".
func describeConfig(c *results.ServerConfig) string {
	var parts []string
	for _, k := range []string{"engine", "model", "max_model_len"} {
		if v, ok := c.Get(k); ok {
			parts = append(parts, k+" "+v)
		}
	}
	var from []string
	for _, r := range c.Reads {
		if r.Outcome == "ok" {
			from = append(from, r.Path)
		}
	}
	parts = append(parts, fmt.Sprintf("%d settings (%s)", len(c.Settings), strings.Join(from, ", ")))
	return strings.Join(parts, ", ")
}

// CheckServerConfigs refuses a comparison whose two servers do not share
// the required settings (require_same_server_config): a setting that
// differs, or that either server did not expose. Forced, it compares them
// anyway and prints every mismatch as a WARNING. It returns the mismatches
// (nil when the required settings match) and false when refused.
func CheckServerConfigs(log io.Writer, what string, base, cand *results.ServerConfig, required []string, force bool) ([]string, bool) {
	miss := results.RequiredMismatches(base, cand, required)
	if len(miss) == 0 {
		return nil, true
	}
	if !force {
		fmt.Fprintf(log, "llmload: %s: the two servers do not share the settings the comparison requires (require_same_server_config):\n", what)
		for _, m := range miss {
			fmt.Fprintf(log, "  %s\n", m)
		}
		fmt.Fprintln(log, "llmload: refusing; -force compares them anyway")
		return miss, false
	}
	fmt.Fprintf(log, "llmload: WARNING: -force: %s: the servers' required settings differ; the comparison below is NOT of like servers:\n", what)
	for _, m := range miss {
		fmt.Fprintf(log, "  WARNING: %s\n", m)
	}
	return miss, true
}

// RequiredServerConfig is the settings a comparison with the baseline
// result base requires to match: spec's (-require-same-server-config, a
// comma-separated list) and the baseline scenario's
// require_same_server_config, as tolerances come from it.
func RequiredServerConfig(spec, basePath string, base *results.Result) []string {
	var out []string
	add := func(k string) {
		if k = strings.TrimSpace(k); k != "" && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	for _, k := range strings.Split(spec, ",") {
		add(k)
	}
	if len(base.Config) > 0 {
		if sc, diags := scenario.ChecksFromResolved(basePath, base.Config); !diags.HasErrors() {
			for _, k := range sc.RequireSameServerConfig {
				add(k)
			}
		}
	}
	return out
}

// withServerConfig adds to a comparison the two servers' configuration
// changes (or why there are none to list) and the required settings a
// -force comparison ignored.
func withServerConfig(c *results.Comparison, base, cand *results.ServerConfig, forced []string) {
	c.ServerConfigChanges = results.ConfigChanges(base, cand)
	c.ServerConfigNote = results.ServerConfigNote(base, cand)
	c.ForcedServerConfig = forced
}

// withMetricDrift adds to a comparison the server figures whose engine
// metric differs between the two runs, and a row for every server figure
// a check of either run gated (an sla or assert on server.<name>): its
// two values, or, when a side read nothing, an inconclusive row saying
// which metric the other side read, never a zero and never a pass. The
// verdict is judged again over the rows.
func withMetricDrift(c *results.Comparison, base, cand *results.Result) {
	drift := results.MetricDrifts(base.Summary, cand.Summary)
	c.ServerMetricDrift = drift
	refs := gatedServerRefs(base.Checks, cand.Checks)
	if len(refs) == 0 {
		return
	}
	for _, r := range refs {
		c.Rows = append(c.Rows, serverRow(r, base.Summary, cand.Summary, drift))
	}
	c.Verdict = compare.Verdict(c.Rows)
}

// serverRef is a server figure and statistic a check read.
type serverRef struct{ name, stat string }

// gatedServerRefs lists the server figures the checks read: an sla's
// server metric, an assert's server.<name>.<stat> or
// server["<metric>"].<stat> references; in order, once each.
func gatedServerRefs(checks ...[]results.Check) []serverRef {
	var out []serverRef
	add := func(r serverRef) {
		if r.name != "" && r.stat != "" && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	for _, cs := range checks {
		for _, c := range cs {
			if name, ok := strings.CutPrefix(c.Metric, metrics.ServerPrefix); ok && c.Kind != "regression" {
				add(serverRef{name, c.Stat})
			}
			for _, ref := range c.Refs {
				if r, ok := parseServerRef(ref.Ref); ok {
					add(r)
				}
			}
		}
	}
	return out
}

// parseServerRef reads "server.kv_cache_usage.max" or
// `server["vllm:foo"].last`.
func parseServerRef(ref string) (serverRef, bool) {
	rest, ok := strings.CutPrefix(ref, "server")
	if !ok {
		return serverRef{}, false
	}
	var name string
	switch {
	case strings.HasPrefix(rest, "["):
		end := strings.Index(rest, "]")
		if end < 0 {
			return serverRef{}, false
		}
		n, err := strconv.Unquote(rest[1:end])
		if err != nil {
			return serverRef{}, false
		}
		name, rest = n, rest[end+1:]
	case strings.HasPrefix(rest, "."):
		rest = rest[1:]
		i := strings.IndexAny(rest, ".[")
		if i < 0 {
			return serverRef{}, false
		}
		name, rest = rest[:i], rest[i:]
	default:
		return serverRef{}, false
	}
	stat, ok := strings.CutPrefix(rest, ".")
	if !ok || stat == "" || strings.ContainsAny(stat, ".[") {
		return serverRef{}, false
	}
	return serverRef{name, stat}, true
}

// serverRow is the comparison row of a gated server figure.
func serverRow(r serverRef, base, cand *metrics.Summary, drift []results.MetricDrift) compare.Delta {
	metric := metrics.ServerPrefix + r.name
	d := compare.Delta{Key: metric + "." + r.stat, Metric: metric, Stat: r.stat, Method: compare.MethodNone, Change: compare.NoInterval}
	if m, ok := metrics.Lookup(metric); ok {
		d.Unit, d.Better = metrics.ServerUnit(m.Series, m.Unit, r.stat), m.Better
	}
	bv, bok := base.Value(metric, r.stat)
	nv, nok := cand.Value(metric, r.stat)
	if bok && nok {
		d.Base, d.New, d.Delta = bv, nv, nv-bv
		d.Percent = math.NaN() // no relative change of nothing
		if bv != 0 {
			d.Percent = d.Delta / math.Abs(bv) * 100
		}
		return d
	}
	d.Missing, d.Verdict = true, compare.Inconclusive
	src := func(s *metrics.Summary) string {
		if s != nil && s.Server != nil {
			return s.Server.Figures[r.name].Source
		}
		return ""
	}
	side := func(ok bool, s *metrics.Summary, whose string) string {
		switch {
		case ok:
			return fmt.Sprintf("the %s server exposed it (%s)", whose, src(s))
		case s == nil || s.Server == nil || s.Server.Scrapes == 0:
			return fmt.Sprintf("nothing was scraped from the %s server", whose)
		}
		return fmt.Sprintf("the %s server exposed none of its engine metrics", whose)
	}
	d.Message = fmt.Sprintf("%s, which a check gates, read nothing on %s: %s; %s. It is inconclusive, not a zero: a renamed or removed engine metric (see the metric drift above) must not pass for a change of the server.",
		d.Key, map[bool]string{true: "one side", false: "either side"}[bok || nok], side(bok, base, "baseline's"), side(nok, cand, "candidate's"))
	for _, m := range drift {
		if m.Figure == r.name {
			d.Message += " Drift: " + m.String() + "."
		}
	}
	return d
}
