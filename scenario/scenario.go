package scenario

import (
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/llmload/llmload/compare"
	"github.com/llmload/llmload/internal/apis"
	"github.com/llmload/llmload/internal/secret"
	"github.com/llmload/llmload/metrics"
)

// Target API kinds: a target's api is a name of the API table
// (internal/apis), which says what each one is; these are its names.
const (
	APICompletions = apis.Completions // POST /v1/completions
	APIChat        = apis.Chat        // POST /v1/chat/completions
	APIResponses   = apis.Responses   // POST /v1/responses (streamed)
	APIEmbeddings  = apis.Embeddings  // POST /v1/embeddings (not streamed)
)

// Dataset kinds.
const (
	KindShareGPT = "sharegpt"
	KindRandom   = "random"
	KindJSONL    = "jsonl"
	KindTrace    = "trace"
)

// Trace formats (a trace block's format).
const (
	TraceMooncake = "mooncake"
	TraceAzure    = "azure"
	TraceBurstGPT = "burstgpt"
)

// Session history modes (a scenario's history).
const (
	HistoryGenerated = "generated"
	HistoryRecorded  = "recorded"
)

// Open-loop arrival processes.
const (
	ArrivalPoisson  = "poisson"
	ArrivalGamma    = "gamma"
	ArrivalConstant = "constant"
)

// Prompt cache policies (a target's prompt_cache): how the requests use
// the engine's prompt (prefix) cache.
const (
	// PromptCacheShared leaves the engine's cache as it is: every run,
	// repeat and A/B arm against the engine may find the prompts of the
	// ones before it cached.
	PromptCacheShared = "shared"
	// PromptCacheIsolate gives each run (each repeat, each arm) a cache
	// of its own through vLLM's cache_salt: prompts share prefixes within
	// the run, never with another one.
	PromptCacheIsolate = "isolate"
	// PromptCacheOff serves no request from the cache: llama.cpp's
	// cache_prompt = false, or a cache_salt of each request's own.
	PromptCacheOff = "off"
)

// TokenizerServer is the Dataset.Tokenizer value that asks the target's
// /tokenize endpoint to count tokens.
const TokenizerServer = "server"

// Target defaults.
const (
	DefaultAPI          = APIChat
	DefaultTimeout      = 600 * time.Second
	DefaultStallTimeout = 60 * time.Second
	// DefaultScrapeInterval is how often a target's metrics endpoint is
	// scraped during a run.
	DefaultScrapeInterval = time.Second
)

// Config is one configuration: every block of every file loaded together.
type Config struct {
	Targets   []*Target
	Datasets  []*Dataset
	Scenarios []*Scenario
	Variables []*Variable
	// Files holds every parsed source (scenario files, var files, -var
	// values) by name, for rendering diagnostics with source snippets.
	Files map[string]*hcl.File

	secrets *secret.Scrubber
}

// Secrets returns the scrubber of every secret the configuration holds:
// sensitive variables' values, targets' API keys, sensitive header values
// and URL passwords. Everything printed or saved goes through it.
func (c *Config) Secrets() *secret.Scrubber {
	s := secret.New(c.secrets.Secrets()...)
	for _, t := range c.Targets {
		s.Add(t.APIKey, secret.URLPassword(t.BaseURL))
		for k, v := range t.Headers {
			if secret.SensitiveHeader(k, t.SensitiveHeaders) {
				s.Add(v)
			}
		}
	}
	return s
}

// Scenario returns the scenario with the given name, or nil.
func (c *Config) Scenario(name string) *Scenario {
	for _, s := range c.Scenarios {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Target returns the target with the given name, or nil.
func (c *Config) Target(name string) *Target {
	for _, t := range c.Targets {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Dataset returns the dataset with the given name, or nil.
func (c *Config) Dataset(name string) *Dataset {
	for _, d := range c.Datasets {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// Variable is a declared input variable and the value it resolved to.
type Variable struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Type is the type constraint as written ("string", "number",
	// "list(string)"), or "any" when none was given.
	Type string `json:"type"`
	// Value is the resolved value as a plain Go value (string, float64,
	// bool, []any, map[string]any or nil).
	Value any `json:"value"`
	// Source says where Value came from: "-var", "-var-file",
	// "environment" or "default".
	Source string `json:"source"`
	// Sensitive variables (sensitive = true) are never shown: Value is
	// SensitiveValue, diagnostics leave the value out, and every output is
	// scrubbed of it (Config.Secrets).
	Sensitive bool      `json:"sensitive,omitempty"`
	DeclRange hcl.Range `json:"-"`
}

// Target is a server to send requests to.
type Target struct {
	Name string `json:"name"`
	// BaseURL is http(s)://host[:port][/path], or sim://<profile> for the
	// built-in simulator.
	BaseURL string `json:"base_url"`
	API     string `json:"api"` // a name of the API table (internal/apis)
	Model   string `json:"model"`
	// APIKey is sent as a Bearer token. It never appears in output.
	APIKey  string            `json:"-"`
	Headers map[string]string `json:"headers,omitempty"`
	// SensitiveHeaders names more headers whose values are credentials
	// (beyond secret.SensitiveHeader's: Authorization, Cookie, X-Api-Key
	// and any name with key, token, secret or auth in it).
	SensitiveHeaders []string `json:"sensitive_headers,omitempty"`
	// Timeout bounds a whole request; StallTimeout the longest silence
	// inside a stream.
	Timeout      time.Duration `json:"timeout"`
	StallTimeout time.Duration `json:"stall_timeout"`
	IgnoreEOS    bool          `json:"ignore_eos"`
	// ExtraBody is merged into every request body (JSON numbers are
	// float64).
	ExtraBody map[string]any `json:"extra_body,omitempty"`
	// PromptCache is how the requests use the engine's prompt (prefix)
	// cache: PromptCacheShared ("" here, the engine's default),
	// PromptCacheIsolate or PromptCacheOff.
	PromptCache        string `json:"prompt_cache,omitempty"`
	HTTP2              bool   `json:"http2"`
	CAFile             string `json:"ca_file,omitempty"` // resolved path
	InsecureSkipVerify bool   `json:"insecure_skip_verify"`
	// NewConnectionPerRequest turns keep-alive off (vLLM's client opens a
	// connection per request); PrewarmConnections opens that many before
	// the load.
	NewConnectionPerRequest bool `json:"new_connection_per_request,omitempty"`
	PrewarmConnections      int  `json:"prewarm_connections,omitempty"`
	// NoTraceContext is trace_context = false: no W3C traceparent header
	// on the load requests (sent by default).
	NoTraceContext bool `json:"no_trace_context,omitempty"`
	// FollowRedirects is "never" (the default, "" here) or "same-host".
	FollowRedirects string `json:"follow_redirects,omitempty"`
	// MetricsURL is the server's Prometheus endpoint, scraped during the
	// run; when the target does not set it, MetricsURLDefault is true and
	// the endpoint is <base_url>/metrics, scraped only when it answers.
	// Set to "" it turns scraping off.
	MetricsURL        string `json:"metrics_url,omitempty"`
	MetricsURLDefault bool   `json:"metrics_url_default,omitempty"`
	// ScrapeInterval is how often it is scraped; ScrapeMetrics lists engine
	// metrics to keep besides the known ones (server["name"].<stat>).
	ScrapeInterval time.Duration `json:"scrape_interval"`
	ScrapeMetrics  []string      `json:"scrape_metrics,omitempty"`
	// ScrapeCooldown keeps scraping this long after the last request ended,
	// before the final scrape, so that the server figures' last values
	// show the server after the load (its running requests back to their
	// idle level, say); 0 takes the final scrape at once.
	ScrapeCooldown time.Duration `json:"scrape_cooldown,omitempty"`
	// Sim holds the sim block's overrides for a sim:// target, every
	// value as a string (numbers in shortest decimal form, bools as
	// "true"/"false", strings as written).
	Sim map[string]string `json:"sim,omitempty"`
	// SimRanges gives the source range of each Sim value, so that the
	// simulator can report a bad override at its line.
	SimRanges map[string]hcl.Range `json:"-"`
	DeclRange hcl.Range            `json:"-"`

	files []fileRef
}

// IsSim reports whether the target is the built-in simulator.
func (t *Target) IsSim() bool { return len(t.BaseURL) >= 6 && t.BaseURL[:6] == "sim://" }

// SimProfile returns the simulator profile of a sim:// target.
func (t *Target) SimProfile() string {
	if !t.IsSim() {
		return ""
	}
	return t.BaseURL[len("sim://"):]
}

// Dataset says where prompts come from. Exactly one of ShareGPT, Random,
// JSONL and Trace is set, matching Kind.
type Dataset struct {
	Name     string          `json:"name"`
	Kind     string          `json:"kind"` // KindShareGPT, KindRandom, KindJSONL or KindTrace
	ShareGPT *ShareGPTSource `json:"sharegpt,omitempty"`
	Random   *RandomSource   `json:"random,omitempty"`
	JSONL    *JSONLSource    `json:"jsonl,omitempty"`
	Trace    *TraceSource    `json:"trace,omitempty"`
	// Tokenizer is a resolved path to a tokenizer.json, TokenizerServer,
	// or "" for the approximate tokenizer.
	Tokenizer string    `json:"tokenizer,omitempty"`
	DeclRange hcl.Range `json:"-"`

	files []fileRef
	// seedSet is whether the source block sets its seed; without one, each
	// scenario's seed samples it.
	seedSet bool
	// multiTurn is multi_turn's value, when set to true.
	multiTurn *hcl.Range
}

// MultiTurn reports whether the dataset's entries are multi-turn sessions.
func (d *Dataset) MultiTurn() bool { return d.multiTurn != nil }

// SeedSet reports whether the dataset's source sets its own seed (a
// scenario's seed is used otherwise).
func (d *Dataset) SeedSet() bool { return d.seedSet }

// withSeed returns a copy of d whose source has the given seed.
func (d *Dataset) withSeed(seed int64) *Dataset {
	c := *d
	switch {
	case c.ShareGPT != nil:
		s := *c.ShareGPT
		s.Seed, c.ShareGPT = seed, &s
	case c.Random != nil:
		s := *c.Random
		s.Seed, c.Random = seed, &s
	case c.JSONL != nil:
		s := *c.JSONL
		s.Seed, c.JSONL = seed, &s
	case c.Trace != nil:
		s := *c.Trace
		s.Seed, c.Trace = seed, &s
	}
	return &c
}

// withSlice returns a copy of a trace dataset cut to a replay's slice.
func (d *Dataset) withSlice(start, window time.Duration) *Dataset {
	c := *d
	s := *c.Trace
	s.Start, s.Window, c.Trace = start, window, &s
	return &c
}

// ShareGPTSource samples a ShareGPT JSON file with vLLM's rules.
type ShareGPTSource struct {
	Path       string `json:"path"` // resolved
	NumPrompts int    `json:"num_prompts"`
	Seed       int64  `json:"seed"`
	// OutputLen fixes every request's output length; 0 takes it from the
	// reply.
	OutputLen       int  `json:"output_len"`
	MinPromptTokens int  `json:"min_prompt_tokens"`
	MaxPromptTokens int  `json:"max_prompt_tokens"`
	MaxTotalTokens  int  `json:"max_total_tokens"`
	Oversample      bool `json:"oversample"`
	// MultiTurn replays each conversation as a session; MaxTurns keeps at
	// most that many of its turns (0 = all).
	MultiTurn bool `json:"multi_turn,omitempty"`
	MaxTurns  int  `json:"max_turns,omitempty"`
}

// RandomSource generates prompts of given lengths.
type RandomSource struct {
	InputLen   int     `json:"input_len"`
	OutputLen  int     `json:"output_len"`
	RangeRatio float64 `json:"range_ratio"`
	PrefixLen  int     `json:"prefix_len"`
	NumPrompts int     `json:"num_prompts"`
	Seed       int64   `json:"seed"`
	// Prefix puts the prompts in groups sharing a prefix.
	Prefix *PrefixSource `json:"prefix,omitempty"`
}

// PrefixSource is a prefix block: NumPrefixes groups of prompts, each
// sharing a random prefix of SharedPrefixLen tokens (vLLM's
// prefix-repetition dataset's num_prefixes and prefix_len).
type PrefixSource struct {
	SharedPrefixLen int `json:"shared_prefix_len"`
	NumPrefixes     int `json:"num_prefixes"`
}

// TraceSource reads a timestamped request log.
type TraceSource struct {
	Path   string `json:"path"` // resolved
	Format string `json:"format"`
	Seed   int64  `json:"seed"`
	// BlockSize is the tokens of a Mooncake hash id.
	BlockSize int `json:"block_size"`
	// Model and LogType keep only BurstGPT records of that model or log
	// type ("" keeps all).
	Model   string `json:"model,omitempty"`
	LogType string `json:"log_type,omitempty"`
	// Prefix gives a trace without hash ids groups of shared prefixes.
	Prefix *PrefixSource `json:"prefix,omitempty"`
	// Start and Window are the slice a scenario's replay block cuts (this
	// copy of the dataset is that scenario's).
	Start  time.Duration `json:"start,omitempty"`
	Window time.Duration `json:"window,omitempty"`
	// MultiTurn replays a mooncake trace's sessions (rows sharing a
	// session_id) as sessions; MaxTurns keeps at most that many turns.
	MultiTurn bool `json:"multi_turn,omitempty"`
	MaxTurns  int  `json:"max_turns,omitempty"`
}

// JSONLSource reads one JSON object per line.
type JSONLSource struct {
	Path        string `json:"path"` // resolved
	PromptField string `json:"prompt_field"`
	// OutputLenField names a per-line output length; "" uses OutputLen.
	OutputLenField string `json:"output_len_field,omitempty"`
	OutputLen      int    `json:"output_len"`
	NumPrompts     int    `json:"num_prompts"` // 0 = every line
	Seed           int64  `json:"seed"`
	Shuffle        bool   `json:"shuffle"`
	// MultiTurn replays each line's messages as a session; MaxTurns keeps
	// at most that many of its turns (0 = all).
	MultiTurn bool `json:"multi_turn,omitempty"`
	MaxTurns  int  `json:"max_turns,omitempty"`
	// AllowEmptyPrompts sends lines whose prompt is empty (refused
	// otherwise).
	AllowEmptyPrompts bool `json:"allow_empty_prompts,omitempty"`
}

// Scenario defaults: the vLLM block shows P99 of every latency vLLM
// prints (vLLM's own --percentile-metrics default leaves out e2el).
var (
	DefaultPercentiles       = []float64{99}
	DefaultPercentileMetrics = metrics.VLLMPercentileMetrics()
)

// Dataset defaults.
const (
	DefaultNumPrompts      = 1000
	DefaultMinPromptTokens = 4
	DefaultMaxPromptTokens = 1024
	DefaultMaxTotalTokens  = 2048
	DefaultRandomInputLen  = 1024
	DefaultRandomOutputLen = 128
	DefaultJSONLOutputLen  = 256
	DefaultPromptField     = "prompt"
	DefaultBlockSize       = 512 // Mooncake's tokens per hash id
)

// Scenario is one load test: a target, a dataset, a load shape and checks.
// Exactly one of OpenLoop, ClosedLoop and Replay is set.
type Scenario struct {
	Name       string      `json:"name"`
	Target     *Target     `json:"-"`
	Dataset    *Dataset    `json:"-"`
	OpenLoop   *OpenLoop   `json:"open_loop,omitempty"`
	ClosedLoop *ClosedLoop `json:"closed_loop,omitempty"`
	Replay     *Replay     `json:"replay,omitempty"`
	// History says what multi-turn sessions send as earlier assistant
	// turns (HistoryGenerated or HistoryRecorded); TurnThinkMin and
	// TurnThinkMax bound the uniform think time between a turn's end and
	// the next turn.
	History      string        `json:"history,omitempty"`
	TurnThinkMin time.Duration `json:"turn_think_min,omitempty"`
	TurnThinkMax time.Duration `json:"turn_think_max,omitempty"`
	// TurnThink is the think time's distribution: ThinkUniform ("" too),
	// ThinkExponential (TurnThinkMin plus an exponential of mean
	// TurnThinkMean, capped at TurnThinkMax when set) or ThinkRecorded
	// (the dataset's recorded pause before each turn).
	TurnThink     string        `json:"turn_think,omitempty"`
	TurnThinkMean time.Duration `json:"turn_think_mean,omitempty"`
	// FanOut makes one turn of every session a fan-out step (nil: none).
	FanOut *FanOut `json:"fan_out,omitempty"`
	// MaxToolRounds is how many times a session's turn may send tool
	// results back after an answer that called tools (0: never), and
	// ToolResultTokens the size of each synthetic result, in words.
	MaxToolRounds    int `json:"max_tool_rounds,omitempty"`
	ToolResultTokens int `json:"tool_result_tokens,omitempty"`
	// Requests stops the run after this many measured requests (0 = the
	// dataset's size); Duration stops it after this long (0 = no limit).
	// With both, the first reached stops the run.
	Requests int           `json:"requests"`
	Duration time.Duration `json:"duration"`
	// Warmup requests are sent first and not measured.
	Warmup int `json:"warmup"`
	// KeepOutputs is an outputs block's keep: the generated text of the
	// first this many requests is written to <scenario>.outputs.jsonl.
	KeepOutputs int `json:"keep_outputs,omitempty"`
	// Seed drives arrival and think times, and samples the dataset when
	// the dataset sets no seed of its own (Dataset is then this scenario's
	// copy with the seed filled in).
	Seed int64 `json:"seed"`
	// StartAt, when set, is the wall-clock instant the measured phase
	// begins (after warmup), so that the shards of a split run start their
	// schedules together.
	StartAt time.Time `json:"start_at,omitzero"`
	// Preflight sends one unmeasured probe request before the load (on
	// unless preflight = false); a target that does not answer it stops
	// the run before any load. ReadyTimeout keeps probing that long (0:
	// one try).
	Preflight    bool          `json:"preflight"`
	ReadyTimeout time.Duration `json:"ready_timeout"`
	// AbortOn stops a failing run early (nil: never).
	AbortOn *AbortOn `json:"abort_on,omitempty"`
	// Abandon closes a share of the requests part-way, as readers who
	// leave (nil: none).
	Abandon *Abandon `json:"abandon,omitempty"`
	// Percentiles and PercentileMetrics choose what the vLLM block of the
	// report shows and which pNN_<metric>_ms keys the result adds to the
	// ones always written (vLLM's --metric-percentiles and
	// --percentile-metrics).
	Percentiles       []float64 `json:"percentiles"`
	PercentileMetrics []string  `json:"percentile_metrics"`
	// ResultFilename names the result file in the output directory
	// ("" = <name>.json); the requests file is named after it.
	ResultFilename string `json:"result_filename,omitempty"`
	// SaveDetailed adds vLLM's per-request arrays to the result file.
	SaveDetailed bool      `json:"save_detailed"`
	SLA          []SLA     `json:"sla"`
	Goodput      Goodput   `json:"goodput"`
	Asserts      []*Assert `json:"asserts"`
	// MetricsAddr is where the run serves its live Prometheus metrics
	// ("" = nowhere; the run's -metrics-addr flag overrides it).
	MetricsAddr string `json:"metrics_addr,omitempty"`
	// Verdict says what a check judges: VerdictPoint (the measured figure)
	// or VerdictStrict (the whole confidence interval of a percentile).
	Verdict string `json:"verdict"`
	// MinSamples, when set, replaces the default minimum number of samples
	// of a percentile check (metrics.MinSamples: 10 beyond the percentile).
	MinSamples int `json:"min_samples,omitempty"`
	// AllowInconclusive lets a run whose checks are inconclusive (and none
	// failed) exit 0 instead of 3.
	AllowInconclusive bool `json:"allow_inconclusive"`
	// Validity bounds what the load generator itself may get wrong before
	// the run is invalid.
	Validity Validity `json:"validity"`
	// Baseline is a result file to compare the run with: conditions read
	// it as baseline.<metric>.<stat>, and the regression block's
	// tolerances judge the run against it. A relative path is resolved
	// against the scenario file's folder. BaselineOptional makes a
	// missing baseline file skip those checks instead of failing the run
	// (the first run on a branch has no baseline yet).
	Baseline         string `json:"baseline,omitempty"`
	BaselineOptional bool   `json:"baseline_optional,omitempty"`
	// Regression holds the regression block's tolerances, in the order
	// written: how much worse than the baseline each figure may get.
	Regression []RegressionRule `json:"regression,omitempty"`
	// RequireSameServerConfig (require_same_server_config in the
	// regression block) names the server settings that must be equal on
	// both sides of a comparison: a difference, or a side that did not
	// expose one, refuses it (-force compares with a warning).
	RequireSameServerConfig []string `json:"require_same_server_config,omitempty"`
	// Repeat runs the scenario this many times (0 or 1: once), Cooldown
	// apart; checks judge the runs pooled.
	Repeat   int           `json:"repeat,omitempty"`
	Cooldown time.Duration `json:"cooldown,omitempty"`
	// Budget limits an A/B run's blocks or a repeat's runs to what fits
	// in it (nil: none); StopEarly re-judges the regression block after
	// every block or run and stops the run once it is decided.
	Budget    *Budget `json:"budget,omitempty"`
	StopEarly bool    `json:"stop_early,omitempty"`
	// BaselineTarget, set by targets = { baseline = ..., candidate = ... },
	// makes the run an interleaved A/B: blocks of the schedule (Interleave)
	// go to each arm in turn; Target is then the candidate arm's.
	BaselineTarget *Target    `json:"-"`
	Interleave     Interleave `json:"interleave,omitzero"`
	// Sweep or Capacity (at most one) run the scenario at several loads.
	Sweep     *Sweep          `json:"sweep,omitempty"`
	Capacity  *CapacitySearch `json:"capacity,omitempty"`
	DeclRange hcl.Range       `json:"-"`
	File      string          `json:"file"` // the file that declares it

	resultRange *hcl.Range // result_filename's value, when set
	// Where repeat, targets and closed_loop were written, for refusals
	// that depend on command-line flags (CheckRunFlags).
	repeatRange, targetsRange, closedRange, requestsRange, variedRange *hcl.Range
	secrets                                                            *secret.Scrubber // the configuration's, for Resolved
}

// Verdict modes.
const (
	VerdictPoint  = "point"
	VerdictStrict = "strict"
)

// DefaultErrorRate is the error budget of a scenario whose sla block sets
// no error_rate: a run with failures never passes by accident.
const DefaultErrorRate = 0.01

// DefaultOutputDefectRate bounds, by default, the share of completed
// requests whose answers were blank, degenerate or bad text: a run where
// most answers say nothing fails, however fast (not with ignore_eos, where
// a real model may ramble past its end of sequence: reported only).
const DefaultOutputDefectRate = 0.5

// Validity holds the bounds past which a run is invalid: the load
// generator did not do what the scenario said.
type Validity struct {
	// MaxRateShortfall: an open loop at a finite rate must dispatch at
	// least (1 - MaxRateShortfall) of its own schedule's rate.
	MaxRateShortfall float64 `json:"max_rate_shortfall"`
	// MaxLagP99 bounds the P99 dispatch lag against a real schedule.
	MaxLagP99 time.Duration `json:"max_lag_p99"`
	// MaxClientCPU bounds the client's CPU use, as a fraction of its cores.
	MaxClientCPU float64 `json:"max_client_cpu"`
	// MaxTokenMismatch bounds the fraction of requests whose server and
	// client output token counts differ.
	MaxTokenMismatch float64 `json:"max_token_mismatch"`
	// MaxOtherModel bounds the fraction of completed requests answered
	// by another model than the target's; MaxOverMaxTokens those with
	// more output than their max_tokens. Both 0 by default: either means
	// the run measured another workload than the scenario's.
	MaxOtherModel    float64 `json:"max_other_model"`
	MaxOverMaxTokens float64 `json:"max_over_max_tokens"`
	// MaxClientOverhead bounds the P99 of TTFT outside the engine (the
	// client's TTFT less the engine's own, where the engine reports it):
	// over it, the engine was fast and the path to it (the network, a
	// gateway, the HTTP front end, the client) was not, so the latency
	// figures measure the path.
	MaxClientOverhead time.Duration `json:"max_client_overhead"`
}

// DefaultValidity is the validity block's default.
var DefaultValidity = Validity{
	MaxRateShortfall:  0.05,
	MaxLagP99:         10 * time.Millisecond,
	MaxClientCPU:      0.9,
	MaxTokenMismatch:  0.01,
	MaxClientOverhead: 100 * time.Millisecond,
}

// OpenLoop sends requests at a rate, whatever the server does.
type OpenLoop struct {
	// Rate is in requests/s; math.Inf(1) sends all at once (encoding/json
	// cannot marshal it: Scenario.Resolved writes "inf").
	Rate       float64 `json:"rate"`
	Arrival    string  `json:"arrival"`
	Burstiness float64 `json:"burstiness"` // gamma shape; 1 = Poisson
	// MaxConcurrency caps requests in flight (0 = no cap).
	MaxConcurrency int `json:"max_concurrency"`
}

// Replay sends a trace's requests at their recorded times, divided by
// Speed; Start and Window cut the slice of the trace it replays (Window 0:
// to the end).
type Replay struct {
	Speed  float64       `json:"speed"`
	Start  time.Duration `json:"start"`
	Window time.Duration `json:"window"`
	// MaxConcurrency caps requests in flight (0 = no cap).
	MaxConcurrency int `json:"max_concurrency"`
}

// ClosedLoop runs users that each send a request, wait for the reply, think,
// and send the next.
type ClosedLoop struct {
	// Users is the largest user count of any stage.
	Users int `json:"users"`
	// ThinkMin and ThinkMax bound a uniform think time between a reply and
	// the user's next request (equal for a fixed think time).
	ThinkMin time.Duration `json:"think_min"`
	ThinkMax time.Duration `json:"think_max"`
	// Duration is the sum of the stages' durations; 0 when the one stage is
	// open-ended (it runs until the scenario's requests or duration).
	Duration time.Duration `json:"duration"`
	// Stages run in order; never empty (the users/duration shorthand
	// becomes one stage).
	Stages []Stage `json:"stages"`
	// BackoffMin and BackoffMax bound the exponential wait of a user
	// after a failed request (both 0 with backoff = "off").
	BackoffMin time.Duration `json:"backoff_min"`
	BackoffMax time.Duration `json:"backoff_max"`
}

// AbortOn stops a run once more than ErrorRate of at least MinRequests
// finished requests failed.
type AbortOn struct {
	ErrorRate   float64   `json:"error_rate"`
	MinRequests int       `json:"min_requests"`
	DeclRange   hcl.Range `json:"-"`
}

// Abandon is the abandon block: Share of the measured requests are closed
// part-way, each after a number of output tokens drawn uniformly in
// AfterTokens or a time since it was sent drawn uniformly in After
// (exactly one is set).
type Abandon struct {
	Share       float64          `json:"share"`
	AfterTokens [2]int           `json:"after_tokens,omitzero"`
	After       [2]time.Duration `json:"after,omitzero"`
	DeclRange   hcl.Range        `json:"-"`
}

// Defaults of the fault handling.
const (
	DefaultBackoffMin         = 100 * time.Millisecond
	DefaultBackoffMax         = 5 * time.Second
	DefaultAbortOnMinRequests = 20
)

// Stage holds Users users for Duration, reaching them linearly over the
// first Ramp of it (0 = at once) from the previous stage's count.
type Stage struct {
	Users    int           `json:"users"`
	Duration time.Duration `json:"duration"` // 0 = open-ended (shorthand only)
	Ramp     time.Duration `json:"ramp"`
}

// Goodput holds the per-request objectives that make a request "good"
// (0 = no objective for that metric).
type Goodput struct {
	TTFT time.Duration `json:"ttft,omitempty"`
	TPOT time.Duration `json:"tpot,omitempty"`
	ITL  time.Duration `json:"itl,omitempty"`
	E2EL time.Duration `json:"e2el,omitempty"`
}

// IsZero reports whether no objective is set.
func (g Goodput) IsZero() bool { return g == Goodput{} }

// Assert is a named condition over the run's metrics, evaluated after the
// run by package assert.
type Assert struct {
	Name string `json:"name"`
	// Condition is a bool expression over `metrics`; it was checked at load
	// time against the metric catalogue.
	Condition hcl.Expression `json:"-"`
	// Source is the condition as written, for reports.
	Source       string    `json:"condition"`
	ErrorMessage string    `json:"error_message,omitempty"`
	DeclRange    hcl.Range `json:"-"`
}

// fileRef is a path the configuration refers to, for CheckFiles.
type fileRef struct {
	path string
	expr hcl.Expression // where it was written
	what string         // what the file is, for messages: "the tokenizer.json of dataset \"x\""
}

// RegressionRule is one tolerance of a regression block: ttft_p99 = "10%".
type RegressionRule struct {
	compare.Tolerance
	Range hcl.Range `json:"-"`
}

// Tolerances returns the regression block's tolerances.
func (s *Scenario) Tolerances() []compare.Tolerance {
	var out []compare.Tolerance
	for _, r := range s.Regression {
		out = append(out, r.Tolerance)
	}
	return out
}

// UsesBaseline reports whether the scenario's checks need a baseline: a
// regression block, or a condition that reads baseline.*.
func (s *Scenario) UsesBaseline() bool {
	if len(s.Regression) > 0 {
		return true
	}
	for _, a := range s.Asserts {
		if ReadsBaseline(a.Condition) {
			return true
		}
	}
	return false
}

// ReadsBaseline reports whether a condition refers to baseline.*.
func ReadsBaseline(expr hcl.Expression) bool {
	if expr == nil {
		return false
	}
	for _, tr := range expr.Variables() {
		if tr.RootName() == "baseline" {
			return true
		}
	}
	return false
}

// The distributions of turn_think_time.
const (
	ThinkUniform     = "uniform"
	ThinkExponential = "exponential"
	ThinkRecorded    = "recorded"
)

// FanOut is a scenario's fan_out block: after turn AfterTurn of every
// session (its answer and tool round trips), SubAgents sub-requests go at
// once, each a user message of Prompt, with at most OutputLen tokens;
// their replies are joined into the next turn's first user message (after
// the last turn, into a join request of its own). Context "shared" gives
// each sub-agent the session's history; "fresh" only the system messages
// and Prompt with the step's answer appended.
type FanOut struct {
	AfterTurn int    `json:"after_turn"`
	SubAgents int    `json:"sub_agents"`
	Prompt    string `json:"prompt"`
	OutputLen int    `json:"output_len"`
	Context   string `json:"context"`
}

// The contexts of a fan-out's sub-agents.
const (
	ContextFresh  = "fresh"
	ContextShared = "shared"
)
