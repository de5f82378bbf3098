package runner

// Conversions from the decoded scenario (plain values) to what the
// packages below take. Each package owns its own types; runner maps them.

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/llmload/llmload/assert"
	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/executor"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/scenario"
	"github.com/llmload/llmload/sim"
	"github.com/llmload/llmload/tokenizer"
)

// SimScheme begins a target URL that names a built-in simulator profile
// (sim://<profile>): the run starts it in-process.
const SimScheme = "sim://"

// liveTarget is a target ready for load; for sim:// it owns the running
// in-process simulator.
type liveTarget struct {
	// ctx is the run's: calls to the server before the load (/tokenize)
	// follow it, so that Ctrl-C stops them.
	ctx     context.Context
	target  executor.Target
	profile string // simulator profile, "" for a real server
	sim     *sim.Deployment
}

// simStats returns the simulator's own statistics for the result file,
// or nil for a real server.
func (l *liveTarget) simStats() any {
	if l.sim == nil {
		return nil
	}
	st := l.sim.Stats()
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	out := map[string]any{
		"profile":              l.profile,
		"requests":             st.Requests,
		"steps":                st.Steps,
		"preemptions":          st.Preemptions,
		"faults":               st.Faults,
		"scheduler_jitter_p50": ms(st.JitterP50),
		"scheduler_jitter_p99": ms(st.JitterP99),
		"scheduler_jitter_max": ms(st.JitterMax),
		"jitter_samples":       st.JitterSamples,
	}
	if n := len(l.sim.Replicas); n > 1 {
		// What each replica served: how evenly the balancer spread the load.
		perReplica := make([]int64, n)
		for i, r := range l.sim.Replicas {
			perReplica[i] = r.Server.Stats().Requests
		}
		out["replicas"], out["replica_requests"] = n, perReplica
	}
	return out
}

// simListening says where the simulator listens, for the log: the
// balancer and each replica when there are several.
func (l *liveTarget) simListening() string {
	if len(l.sim.Replicas) == 1 {
		return fmt.Sprintf("simulator %q listening on %s", l.profile, l.target.BaseURL)
	}
	urls := make([]string, len(l.sim.Replicas))
	for i, r := range l.sim.Replicas {
		urls[i] = r.URL
	}
	return fmt.Sprintf("simulator %q: %d replicas (%s) behind a round-robin balancer listening on %s",
		l.profile, len(urls), strings.Join(urls, ", "), l.target.BaseURL)
}

func (l *liveTarget) Close() {
	if l.sim != nil {
		l.sim.Close()
	}
}

// startTarget resolves a scenario target. A sim://<profile> URL starts the
// built-in simulator on a free loopback port for the duration of the run
// (with replicas = N in its sim block, N of them behind a balancer).
func startTarget(t *scenario.Target, seed int64) (*liveTarget, hcl.Diagnostics) {
	lt := &liveTarget{target: ExecutorTarget(t)}
	if !strings.HasPrefix(t.BaseURL, SimScheme) {
		return lt, nil
	}
	p, diags := simProfile(t)
	n, rdiags := simReplicas(t)
	if diags = append(diags, rdiags...); diags.HasErrors() {
		return nil, diags
	}
	running, err := sim.ListenDeployment("127.0.0.1:0", p, seed, n)
	if err != nil {
		rng := t.DeclRange
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot start the simulator", Detail: err.Error(), Subject: &rng}}
	}
	lt.sim = running
	lt.profile = p.Name
	lt.target.BaseURL = running.URL
	return lt, nil
}

// simProfile builds the simulator profile a sim:// target names, with the
// target's model and its sim { } overrides applied (all but replicas, see
// simReplicas). Problems point at the target block or at the offending
// override.
func simProfile(t *scenario.Target) (sim.Profile, hcl.Diagnostics) {
	rng := t.DeclRange
	p, err := sim.LookupProfile(strings.TrimSuffix(strings.TrimPrefix(t.BaseURL, SimScheme), "/"))
	if err != nil {
		return p, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Unknown simulator profile",
			Detail:   err.Error() + ".",
			Subject:  &rng,
		}}
	}
	if t.HTTP2 {
		return p, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "HTTP/2 with the simulator",
			Detail:   "The built-in simulator speaks HTTP/1.1; remove http2 = true from this target.",
			Subject:  &rng,
		}}
	}
	// The simulator serves whatever model the target names, unless the
	// sim block says otherwise.
	if t.Model != "" {
		p.Model = t.Model
	}
	var diags hcl.Diagnostics
	for _, k := range sortedKeys(t.Sim) {
		if k == sim.ReplicasKey {
			continue
		}
		if err := p.Set(k, t.Sim[k]); err != nil {
			r := rng
			if sr, ok := t.SimRanges[k]; ok {
				r = sr
			}
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid simulator setting",
				Detail:   err.Error(),
				Subject:  &r,
			})
		}
	}
	return p, diags
}

// simReplicas is how many replicas a sim:// target's sim block asks for
// (replicas = N), 1 without it.
func simReplicas(t *scenario.Target) (int, hcl.Diagnostics) {
	v, ok := t.Sim[sim.ReplicasKey]
	if !ok {
		return 1, nil
	}
	n, err := sim.ParseReplicas(v)
	if err != nil {
		r := t.DeclRange
		if sr, ok := t.SimRanges[sim.ReplicasKey]; ok {
			r = sr
		}
		return 1, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid simulator setting", Detail: err.Error() + ".", Subject: &r}}
	}
	return n, nil
}

// RedactURL hides a password in a URL (user:xxxxx@host), for everything
// printed or saved.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	return u.Redacted()
}

// openLoopRequests is how many measured requests an open-loop scenario
// sends: requests when set; else, with a duration and a finite rate, as
// many as arrive in it (the dataset is cycled, as vegeta and k6 run for a
// duration); else the dataset's size, as vLLM's benchmark does.
func openLoopRequests(s *scenario.Scenario, nPrompts int) int {
	switch o := s.OpenLoop; {
	case s.Requests > 0:
		return s.Requests
	case s.Duration > 0 && o != nil && !math.IsInf(o.Rate, 1):
		return int(math.Ceil(o.Rate * s.Duration.Seconds()))
	default:
		return nPrompts
	}
}

// ExecutorTarget is a scenario target as the executor takes it.
func ExecutorTarget(t *scenario.Target) executor.Target {
	return executor.Target{
		BaseURL:            t.BaseURL,
		API:                t.API,
		Model:              t.Model,
		APIKey:             t.APIKey,
		Headers:            t.Headers,
		SensitiveHeaders:   t.SensitiveHeaders,
		Timeout:            t.Timeout,
		StallTimeout:       t.StallTimeout,
		IgnoreEOS:          t.IgnoreEOS,
		ExtraBody:          t.ExtraBody,
		HTTP2:              t.HTTP2,
		CAFile:             t.CAFile,
		InsecureSkipVerify: t.InsecureSkipVerify,

		NewConnectionPerRequest: t.NewConnectionPerRequest,
		PrewarmConnections:      t.PrewarmConnections,
		FollowRedirects:         t.FollowRedirects,
		NoTraceContext:          t.NoTraceContext,
		PromptCache:             t.PromptCache,
	}
}

// openTokenizer returns the dataset's tokenizer: a tokenizer.json path,
// the target's /tokenize endpoint ("server"), or the labelled approximation.
// With offline set, "server" falls back to the approximation (plan and
// validate send nothing).
func openTokenizer(d *scenario.Dataset, lt *liveTarget, offline bool) (tokenizer.Tokenizer, error) {
	switch {
	case d.Tokenizer == "":
		return tokenizer.Approximate(), nil
	case d.Tokenizer == "server":
		if offline || lt == nil {
			// plan and dataset dump send nothing, so they cannot ask the
			// server; the approximation's counts (labelled as such) stand in.
			return tokenizer.Approximate(), nil
		}
		// The same transport, TLS and headers (the api key included) as the
		// load, so an endpoint behind auth or a private CA answers.
		client, err := lt.target.HTTPClient(4)
		if err != nil {
			return nil, err
		}
		client.Timeout = 30 * time.Second
		srv := tokenizer.NewServer(lt.target.BaseURL, lt.target.Model, client).WithSecrets(lt.target.Scrubber())
		if lt.ctx != nil {
			srv.WithContext(lt.ctx)
		}
		return srv, nil
	default:
		hf, err := tokenizer.Load(d.Tokenizer)
		if err != nil {
			return nil, err
		}
		return hf, nil
	}
}

func datasetSpec(d *scenario.Dataset) dataset.Spec {
	spec := dataset.Spec{Name: d.Name}
	switch {
	case d.ShareGPT != nil:
		s := d.ShareGPT
		c := dataset.DefaultShareGPT()
		c.Path, c.NumPrompts, c.Seed, c.OutputLen = s.Path, s.NumPrompts, s.Seed, s.OutputLen
		c.MinPromptTokens, c.MaxPromptTokens, c.MaxTotalTokens, c.Oversample = s.MinPromptTokens, s.MaxPromptTokens, s.MaxTotalTokens, s.Oversample
		c.MultiTurn, c.MaxTurns = s.MultiTurn, s.MaxTurns
		spec.ShareGPT = &c
	case d.Random != nil:
		r := d.Random
		c := dataset.DefaultRandom()
		c.InputLen, c.OutputLen, c.RangeRatio, c.PrefixLen, c.NumPrompts, c.Seed = r.InputLen, r.OutputLen, r.RangeRatio, r.PrefixLen, r.NumPrompts, r.Seed
		c.Prefix = datasetPrefix(r.Prefix)
		spec.Random = &c
	case d.JSONL != nil:
		j := d.JSONL
		c := dataset.DefaultJSONL()
		c.Path, c.PromptField, c.OutputLenField, c.OutputLen, c.NumPrompts, c.Seed, c.Shuffle = j.Path, j.PromptField, j.OutputLenField, j.OutputLen, j.NumPrompts, j.Seed, j.Shuffle
		c.MultiTurn, c.MaxTurns, c.AllowEmptyPrompts = j.MultiTurn, j.MaxTurns, j.AllowEmptyPrompts
		spec.JSONL = &c
	case d.Trace != nil:
		t := d.Trace
		spec.Trace = &dataset.Trace{
			Path: t.Path, Format: t.Format, Seed: t.Seed, BlockSize: t.BlockSize,
			Model: t.Model, LogType: t.LogType, Start: t.Start, Window: t.Window,
			Prefix: datasetPrefix(t.Prefix), MultiTurn: t.MultiTurn, MaxTurns: t.MaxTurns,
		}
	}
	return spec
}

func datasetPrefix(p *scenario.PrefixSource) *dataset.Prefix {
	if p == nil {
		return nil
	}
	return &dataset.Prefix{Len: p.SharedPrefixLen, Groups: p.NumPrefixes}
}

// LoadDatasetOffline samples a dataset without asking any server: a
// "server" tokenizer falls back to the labelled approximation (plan,
// validate and dataset dump send nothing).
func LoadDatasetOffline(d *scenario.Dataset) (*dataset.Dataset, tokenizer.Tokenizer, error) {
	return loadDataset(d, nil, true)
}

// loadDataset opens the tokenizer and samples the dataset. On a dataset
// error it still returns the tokenizer, so the caller can tell a server that
// did not answer from bad input.
func loadDataset(d *scenario.Dataset, lt *liveTarget, offline bool) (*dataset.Dataset, tokenizer.Tokenizer, error) {
	tok, err := openTokenizer(d, lt, offline)
	if err != nil {
		return nil, nil, err
	}
	ds, err := dataset.Load(datasetSpec(d), tok)
	if err != nil {
		return nil, tok, err
	}
	return ds, tok, nil
}

func executorPlan(s *scenario.Scenario, lt *liveTarget, ds *dataset.Dataset, tok tokenizer.Tokenizer) executor.Plan {
	p := executor.Plan{
		Target:       lt.target,
		Requests:     ds.Requests,
		MaxRequests:  s.Requests,
		Duration:     s.Duration,
		Warmup:       s.Warmup,
		Seed:         s.Seed,
		Goodput:      metrics.SLO(s.Goodput),
		Preflight:    s.Preflight,
		ReadyTimeout: s.ReadyTimeout,
	}
	if a := s.AbortOn; a != nil {
		p.AbortOn = &executor.AbortOn{ErrorRate: a.ErrorRate, MinRequests: a.MinRequests}
	}
	if a := s.Abandon; a != nil {
		p.Abandon = &executor.Abandon{Share: a.Share, AfterTokens: a.AfterTokens, After: a.After}
	}
	if tok != nil && tok.Exact() {
		p.Tokenizer = tok
	}
	if o := s.OpenLoop; o != nil {
		p.MaxRequests = openLoopRequests(s, len(ds.Requests))
		p.Open = &executor.OpenLoop{Rate: o.Rate, Arrival: o.Arrival, Burstiness: o.Burstiness, MaxConcurrency: o.MaxConcurrency}
	}
	if r := s.Replay; r != nil {
		p.Open = &executor.OpenLoop{Arrival: executor.ArrivalReplay, Speed: r.Speed, MaxConcurrency: r.MaxConcurrency}
		// The replay's mean rate stands as its configured rate in reports.
		p.Open.Rate = executor.MeanRate(executor.Arrivals(p))
	}
	p.Sessions = executor.Sessions{History: s.History,
		Think:         executor.ThinkTime{Dist: s.TurnThink, Min: s.TurnThinkMin, Max: s.TurnThinkMax, Mean: s.TurnThinkMean},
		MaxToolRounds: s.MaxToolRounds, ToolResultTokens: s.ToolResultTokens}
	if f := s.FanOut; f != nil {
		p.Sessions.FanOut = &executor.FanOut{AfterTurn: f.AfterTurn, Width: f.SubAgents, Prompt: f.Prompt, OutputLen: f.OutputLen, Shared: f.Context == scenario.ContextShared}
	}
	if c := s.ClosedLoop; c != nil {
		cl := &executor.ClosedLoop{ThinkMin: c.ThinkMin, ThinkMax: c.ThinkMax,
			Backoff: executor.Backoff{Min: c.BackoffMin, Max: c.BackoffMax}}
		for _, st := range c.Stages {
			cl.Stages = append(cl.Stages, executor.Stage{Users: st.Users, Duration: st.Duration, Ramp: st.Ramp})
		}
		p.Closed = cl
	}
	return p
}

// OfflinePlan is the executor plan a run of s would dispatch ds by, on
// s's target as configured (nothing started): plan reads its arrivals.
func OfflinePlan(s *scenario.Scenario, ds *dataset.Dataset) executor.Plan {
	return executorPlan(s, &liveTarget{target: ExecutorTarget(s.Target)}, ds, nil)
}

func reportChecks(outs []assert.Outcome) []results.Check {
	checks := make([]results.Check, 0, len(outs))
	for _, o := range outs {
		checks = append(checks, o.Check)
	}
	return checks
}

// ReportValidity judges a run's validity for the result by the bounds v
// (a scenario's, as Options.ValidityBounds leaves them).
func ReportValidity(v scenario.Validity, sum *metrics.Summary) *results.Validity {
	rules := assert.Validity(v, sum)
	return &results.Validity{Valid: assert.Valid(rules), Rules: rules}
}

// newRunID returns a random identifier for a run.
func newRunID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// fingerprint identifies a run's configuration: the resolved scenario, the
// sampled requests (prompts and output lengths, in order) and the tool
// version. Results merge only when their fingerprints are equal.
func fingerprint(s *scenario.Scenario, ds *dataset.Dataset, version string) string {
	h := sha256.New()
	cfg, _ := json.Marshal(s.Resolved())
	h.Write(cfg)
	enc := json.NewEncoder(h)
	for _, r := range ds.Requests {
		_ = enc.Encode([]any{r.Prompt, r.Messages, r.OutputLen})
		if r.At != 0 || len(r.Turns) > 0 {
			_ = enc.Encode([]any{r.At, r.Turns})
		}
	}
	fmt.Fprintf(h, "llmload %s", version)
	return hex.EncodeToString(h.Sum(nil))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// CheckLoads goes beyond the language: it loads what a run of the given
// scenarios would load (every target and dataset when scenarios is
// empty), sending nothing, and returns what fails, so that validate is a
// CI gate a run cannot fail later on bad input. A configuration with no
// scenario fails too: run would refuse it.
func CheckLoads(cfg *scenario.Config, scenarios []*scenario.Scenario) []error {
	targets, datasets := cfg.Targets, cfg.Datasets
	if len(scenarios) > 0 {
		targets, datasets = nil, nil
		for _, s := range scenarios {
			if !slices.Contains(targets, s.Target) {
				targets = append(targets, s.Target)
			}
			if !slices.Contains(datasets, s.Dataset) {
				datasets = append(datasets, s.Dataset)
			}
		}
	}
	var errs []error
	for _, t := range targets {
		if t.IsSim() {
			continue
		}
		if _, err := ExecutorTarget(t).HTTPClient(1); err != nil {
			errs = append(errs, fmt.Errorf("target %q: %w", t.Name, err))
		}
	}
	for _, d := range datasets {
		if _, _, err := LoadDatasetOffline(d); err != nil {
			errs = append(errs, fmt.Errorf("dataset %q: %w", d.Name, err))
		}
	}
	if len(cfg.Scenarios) == 0 {
		errs = append(errs, errors.New("the configuration has no scenario block: there is nothing to run"))
	}
	return errs
}
