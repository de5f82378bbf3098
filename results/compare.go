package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/llmload/llmload/compare"
)

// Workload is the identity of what a run sent, without where it sent it:
// two runs with equal workloads differ only in their target (its address,
// server and version), so comparing them compares the servers.
type Workload struct {
	// Fingerprint is the SHA-256 of every other field.
	Fingerprint string `json:"fingerprint"`
	Model       string `json:"model"`
	API         string `json:"api"`
	// Load is the resolved load shape: open or closed loop, rates, users,
	// stages, requests, duration, warmup, seed, max_tokens settings.
	Load json.RawMessage `json:"load"`
	// Dataset identifies the prompts: source, file hash, seed, sampling
	// rules, the sampled requests' hash and their length statistics.
	Dataset json.RawMessage `json:"dataset"`
	// Tokenizer names what counted tokens.
	Tokenizer string `json:"tokenizer"`
	// ToolVersion is the llmload that sent it. It is no difference of the
	// workload (Differences leaves it out; VersionDifference says it):
	// results of two versions compare, with a warning.
	ToolVersion string `json:"tool_version"`
}

// VersionDifference says how the llmload versions of two workloads differ
// ("dev vs v1.2.0"), or "" when they are the same (or one is unknown).
func (w *Workload) VersionDifference(o *Workload) string {
	if w == nil || o == nil || w.ToolVersion == o.ToolVersion {
		return ""
	}
	return w.ToolVersion + " vs " + o.ToolVersion
}

// Differences lists what differs between two workloads, one line each
// ("dataset.seed: 1 vs 2"); nil when they are the same workload. The
// llmload version is not a difference of the workload (VersionDifference).
func (w *Workload) Differences(o *Workload) []string {
	if w == nil || o == nil {
		if w == o {
			return nil
		}
		return []string{"workload: one result records none (written by an older llmload)"}
	}
	a, b := flatten(w), flatten(o)
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	var out []string
	for _, k := range sortedKeys(keys) {
		if k == "fingerprint" || k == "tool_version" || a[k] == b[k] {
			continue
		}
		va, vb := a[k], b[k]
		if va == "" {
			va = "(none)"
		}
		if vb == "" {
			vb = "(none)"
		}
		out = append(out, fmt.Sprintf("%s: %s vs %s", k, va, vb))
	}
	// The fingerprint covers the version too: it tells only when the
	// versions are the same.
	if len(out) == 0 && w.Fingerprint != o.Fingerprint && w.ToolVersion == o.ToolVersion {
		out = append(out, fmt.Sprintf("fingerprint: %s vs %s", w.Fingerprint, o.Fingerprint))
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// flatten turns a workload into dotted paths and JSON values.
func flatten(w *Workload) map[string]string {
	raw, _ := json.Marshal(w)
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	_ = dec.Decode(&v)
	out := map[string]string{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				walk(p, e)
			}
		default:
			b, _ := json.Marshal(x)
			out[prefix] = string(b)
		}
	}
	walk("", v)
	return out
}

// Comparison is a run compared with a baseline run: `llmload compare`'s
// table, and a run's baseline deltas.
type Comparison struct {
	// Baseline is the baseline result's path, BaseRunID its run.
	Baseline  string `json:"baseline"`
	BaseRunID string `json:"base_run_id"`
	// BaseServerVersion and ServerVersion are what the two targets said
	// of their version ("" when they said nothing).
	BaseServerVersion string `json:"base_server_version,omitempty"`
	ServerVersion     string `json:"server_version,omitempty"`
	// Forced lists the workload differences a -force comparison ignored.
	Forced []string `json:"forced,omitempty"`
	// ServerConfigChanges are the keys of the two servers' configurations
	// that differ (results.ConfigChanges); ServerConfigNote says why there
	// are none to list when a side exposed no configuration ("the servers
	// exposed no configuration"). ForcedServerConfig lists the required
	// settings (require_same_server_config) a -force comparison ignored.
	ServerConfigChanges []ConfigChange `json:"server_config_changes,omitempty"`
	ServerConfigNote    string         `json:"server_config_note,omitempty"`
	ForcedServerConfig  []string       `json:"forced_server_config,omitempty"`
	// ServerMetricDrift lists the server figures the two servers exposed
	// under other engine metrics, or on one side only (MetricDrifts).
	ServerMetricDrift []MetricDrift `json:"server_metric_drift,omitempty"`
	// Verdict is pass, fail or inconclusive over the rows with a tolerance.
	Verdict string `json:"verdict"`
	// Rows are the figures compared: candidate minus baseline, the
	// interval of that delta and, against a tolerance, the verdict.
	Rows []compare.Delta `json:"rows"`
	// Notes are plain sentences about the two runs that are not checks
	// and change no verdict: the output figures that moved sharply
	// (runner.OutputShift). They hold figures only, never server text.
	Notes []string `json:"notes,omitempty"`
	// Confidence of the rows' intervals when it is not the default 95%:
	// a sequential gate's last look's (stop_early).
	Confidence float64 `json:"confidence,omitempty"`
}
