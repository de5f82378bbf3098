package results

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/llmload/llmload/metrics"
)

// ServerConfig is what the target said of its own configuration at the
// start of a run (package serverinfo reads it): the engine, its version,
// the model and its revision, the longest request it takes, and the
// engine's own settings, flattened to "name": "value" (scalars only,
// bounded in count and length, escaped). Every endpoint asked is in Reads
// with its outcome, so that a server that said nothing is told apart from
// one that was not asked.
type ServerConfig struct {
	Engine      string `json:"engine,omitempty"`
	Version     string `json:"version,omitempty"`
	Model       string `json:"model,omitempty"`
	Revision    string `json:"revision,omitempty"`
	MaxModelLen int    `json:"max_model_len,omitempty"`
	// Settings are the engine's settings by name ("max_num_seqs": "256";
	// a nested one by its dotted path, "default_generation_settings.n_ctx").
	Settings map[string]string `json:"settings,omitempty"`
	// Reads are the endpoints asked, in order, with their outcome.
	Reads []ServerRead `json:"reads"`
}

// ServerRead is one endpoint asked for the configuration and what came of
// it: "ok", "http 404", "timeout", "refused", "not json", "too large", ...
type ServerRead struct {
	Path    string `json:"path"`
	Outcome string `json:"outcome"`
}

// The fields of a ServerConfig that are not Settings, as keys of Get and of
// a difference.
var serverConfigFields = []string{"engine", "version", "model", "revision", "max_model_len"}

// Exposed reports whether the server said anything of its configuration.
func (c *ServerConfig) Exposed() bool {
	return c != nil && (len(c.Settings) > 0 || c.Engine != "" || c.Model != "" || c.Revision != "" || c.MaxModelLen > 0)
}

// Get returns one key of the configuration: a field (engine, version,
// model, revision, max_model_len) or a setting; false when the server did
// not expose it.
func (c *ServerConfig) Get(key string) (string, bool) {
	if c == nil {
		return "", false
	}
	var v string
	switch key {
	case "engine":
		v = c.Engine
	case "version":
		v = c.Version
	case "model":
		v = c.Model
	case "revision":
		v = c.Revision
	case "max_model_len":
		if c.MaxModelLen > 0 {
			v = strconv.Itoa(c.MaxModelLen)
		}
	default:
		s, ok := c.Settings[key]
		return s, ok
	}
	return v, v != ""
}

// keys are the configuration's keys: its fields, then its settings, sorted.
func (c *ServerConfig) keys() []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, k := range serverConfigFields {
		if _, ok := c.Get(k); ok {
			out = append(out, k)
		}
	}
	for k := range c.Settings {
		if !slices.Contains(serverConfigFields, k) {
			out = append(out, k)
		}
	}
	return out
}

// ConfigChange is one key of the servers' configurations that differs: a
// missing side is "" with its Has false.
type ConfigChange struct {
	Key     string `json:"key"`
	Base    string `json:"base"`
	New     string `json:"new"`
	BaseHas bool   `json:"base_has"`
	NewHas  bool   `json:"new_has"`
}

// String says the change from the candidate's side:
// "max_num_seqs 128 (baseline 256)".
func (c ConfigChange) String() string {
	switch {
	case !c.BaseHas:
		return fmt.Sprintf("%s %s (the baseline's server did not say)", c.Key, c.New)
	case !c.NewHas:
		return fmt.Sprintf("%s not said (baseline %s)", c.Key, c.Base)
	}
	return fmt.Sprintf("%s %s (baseline %s)", c.Key, c.New, c.Base)
}

// ConfigChanges lists the keys whose values differ between two servers'
// configurations, fields first, then settings by name. A key only one side
// exposed is a change too, unless that side exposed nothing at all (an
// older result, or a server that says nothing): then nil.
func ConfigChanges(base, cand *ServerConfig) []ConfigChange {
	if !base.Exposed() || !cand.Exposed() {
		return nil
	}
	keys := base.keys()
	for _, k := range cand.keys() {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	slices.SortStableFunc(keys, func(a, b string) int {
		ia, ib := slices.Index(serverConfigFields, a), slices.Index(serverConfigFields, b)
		switch {
		case ia >= 0 && ib >= 0:
			return ia - ib
		case ia >= 0:
			return -1
		case ib >= 0:
			return 1
		}
		return strings.Compare(a, b)
	})
	var out []ConfigChange
	for _, k := range keys {
		b, bok := base.Get(k)
		n, nok := cand.Get(k)
		if bok == nok && b == n {
			continue
		}
		out = append(out, ConfigChange{Key: k, Base: b, New: n, BaseHas: bok, NewHas: nok})
	}
	return out
}

// RequiredMismatches says, for every key of required the two servers do not
// share (it differs, or either side did not expose it), why: one line each,
// "max_num_seqs: 256 vs 128". nil when every required key matches.
func RequiredMismatches(base, cand *ServerConfig, required []string) []string {
	var out []string
	for _, k := range required {
		b, bok := base.Get(k)
		n, nok := cand.Get(k)
		switch {
		case !bok && !nok:
			out = append(out, fmt.Sprintf("%s: neither server exposed it", k))
		case !bok:
			out = append(out, fmt.Sprintf("%s: the baseline's server did not expose it (candidate %s)", k, n))
		case !nok:
			out = append(out, fmt.Sprintf("%s: the candidate's server did not expose it (baseline %s)", k, b))
		case b != n:
			out = append(out, fmt.Sprintf("%s: %s vs %s", k, b, n))
		}
	}
	return out
}

// ServerConfigNote says, in one sentence, why a comparison lists no
// configuration changes although it might: neither server exposed its
// configuration, or one did not ("" when both did).
func ServerConfigNote(base, cand *ServerConfig) string {
	switch be, ce := base.Exposed(), cand.Exposed(); {
	case base == nil && cand == nil:
		return "" // results written before the configuration was read
	case !be && !ce:
		return "the servers exposed no configuration"
	case !be && base == nil:
		return "the baseline records no server configuration (an older result); the candidate's is not compared"
	case !be:
		return "the baseline's server exposed no configuration; the candidate's is not compared"
	case !ce && cand == nil:
		return "the candidate records no server configuration (an older result); the baseline's is not compared"
	case !ce:
		return "the candidate's server exposed no configuration; the baseline's is not compared"
	}
	return ""
}

// MetricDrift is a server figure the two servers exposed differently: read
// from another engine metric (a renamed metric: vLLM's
// vllm:gpu_cache_usage_perc became vllm:kv_cache_usage_perc), or from none
// on one side (removed, or never served). Base and New are the engine
// metrics read ("" for none).
type MetricDrift struct {
	Figure string `json:"figure"`
	Base   string `json:"base"`
	New    string `json:"new"`
}

// String says the drift in words.
func (d MetricDrift) String() string {
	switch {
	case d.Base == "":
		return fmt.Sprintf("server.%s appeared: the candidate's server exposes %s, the baseline's exposed none of its sources", d.Figure, d.New)
	case d.New == "":
		return fmt.Sprintf("server.%s disappeared: the baseline's server exposed %s, the candidate's exposes none of its sources", d.Figure, d.Base)
	}
	return fmt.Sprintf("server.%s is read from %s on the candidate's server, from %s on the baseline's (a renamed metric)", d.Figure, d.New, d.Base)
}

// MetricDrifts lists the server figures two runs read differently: from
// another engine metric, or on one side only. Nothing when either run
// scraped nothing (no scrape is no evidence of a rename).
func MetricDrifts(base, cand *metrics.Summary) []MetricDrift {
	bs, cs := scraped(base), scraped(cand)
	if bs == nil || cs == nil {
		return nil
	}
	names := map[string]bool{}
	for n := range bs.Figures {
		names[n] = true
	}
	for n := range cs.Figures {
		names[n] = true
	}
	var out []MetricDrift
	for _, n := range sortedKeys(names) {
		b, c := bs.Figures[n].Source, cs.Figures[n].Source
		if b != c {
			out = append(out, MetricDrift{Figure: n, Base: b, New: c})
		}
	}
	return out
}

// scraped is a summary's server metrics when at least one scrape
// succeeded.
func scraped(s *metrics.Summary) *metrics.ServerMetrics {
	if s == nil || s.Server == nil || s.Server.Scrapes == 0 {
		return nil
	}
	return s.Server
}
