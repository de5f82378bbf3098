// Package scenario parses, decodes and validates llmload's HCL scenario
// language.
//
// Load reads one or more files (or directories of *.hcl files) into a
// Config of plain Go values: targets, datasets and scenarios with their
// durations, paths and bounds already resolved. Every problem is reported as
// an hcl.Diagnostic with a source range, all of them in one pass; render
// them with Config.WriteDiagnostics.
//
// The one thing not evaluated at load time is an assert block's condition:
// it stays an hcl.Expression, checked at load time against the metric
// catalogue and evaluated after the run by package assert.
package scenario

import (
	"time"

	"github.com/hashicorp/hcl/v2"
)

// Target API kinds.
const (
	APICompletions = "openai"      // POST /v1/completions
	APIChat        = "openai-chat" // POST /v1/chat/completions
)

// Dataset kinds.
const (
	KindShareGPT = "sharegpt"
	KindRandom   = "random"
	KindJSONL    = "jsonl"
)

// Open-loop arrival processes.
const (
	ArrivalPoisson  = "poisson"
	ArrivalGamma    = "gamma"
	ArrivalConstant = "constant"
)

// TokenizerServer is the Dataset.Tokenizer value that asks the target's
// /tokenize endpoint to count tokens.
const TokenizerServer = "server"

// Target defaults.
const (
	DefaultAPI          = APIChat
	DefaultTimeout      = 600 * time.Second
	DefaultStallTimeout = 60 * time.Second
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
	Source    string    `json:"source"`
	DeclRange hcl.Range `json:"-"`
}

// Target is a server to send requests to.
type Target struct {
	Name string `json:"name"`
	// BaseURL is http(s)://host[:port][/path], or sim://<profile> for the
	// built-in simulator.
	BaseURL string `json:"base_url"`
	API     string `json:"api"` // APICompletions or APIChat
	Model   string `json:"model"`
	// APIKey is sent as a Bearer token. It never appears in output.
	APIKey  string            `json:"-"`
	Headers map[string]string `json:"headers,omitempty"`
	// Timeout bounds a whole request; StallTimeout the longest silence
	// inside a stream.
	Timeout      time.Duration `json:"timeout"`
	StallTimeout time.Duration `json:"stall_timeout"`
	IgnoreEOS    bool          `json:"ignore_eos"`
	// ExtraBody is merged into every request body (JSON numbers are
	// float64).
	ExtraBody          map[string]any `json:"extra_body,omitempty"`
	HTTP2              bool           `json:"http2"`
	CAFile             string         `json:"ca_file,omitempty"` // resolved path
	InsecureSkipVerify bool           `json:"insecure_skip_verify"`
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

// Dataset says where prompts come from. Exactly one of ShareGPT, Random
// and JSONL is set, matching Kind.
type Dataset struct {
	Name     string          `json:"name"`
	Kind     string          `json:"kind"` // KindShareGPT, KindRandom or KindJSONL
	ShareGPT *ShareGPTSource `json:"sharegpt,omitempty"`
	Random   *RandomSource   `json:"random,omitempty"`
	JSONL    *JSONLSource    `json:"jsonl,omitempty"`
	// Tokenizer is a resolved path to a tokenizer.json, TokenizerServer,
	// or "" for the approximate tokenizer.
	Tokenizer string    `json:"tokenizer,omitempty"`
	DeclRange hcl.Range `json:"-"`

	files []fileRef
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
}

// RandomSource generates prompts of given lengths.
type RandomSource struct {
	InputLen   int     `json:"input_len"`
	OutputLen  int     `json:"output_len"`
	RangeRatio float64 `json:"range_ratio"`
	PrefixLen  int     `json:"prefix_len"`
	NumPrompts int     `json:"num_prompts"`
	Seed       int64   `json:"seed"`
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
}

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
)

// Scenario is one load test: a target, a dataset, a load shape and checks.
// Exactly one of OpenLoop and ClosedLoop is set.
type Scenario struct {
	Name       string      `json:"name"`
	Target     *Target     `json:"-"`
	Dataset    *Dataset    `json:"-"`
	OpenLoop   *OpenLoop   `json:"open_loop,omitempty"`
	ClosedLoop *ClosedLoop `json:"closed_loop,omitempty"`
	// Requests stops the run after this many measured requests (0 = the
	// dataset's size); Duration stops it after this long (0 = no limit).
	// With both, the first reached stops the run.
	Requests int           `json:"requests"`
	Duration time.Duration `json:"duration"`
	// Warmup requests are sent first and not measured.
	Warmup  int       `json:"warmup"`
	Seed    int64     `json:"seed"` // arrival-time randomness
	SLA     []SLA     `json:"sla"`
	Goodput Goodput   `json:"goodput"`
	Asserts []*Assert `json:"asserts"`
	// Sweep or Capacity (at most one) run the scenario at several loads.
	Sweep     *Sweep          `json:"sweep,omitempty"`
	Capacity  *CapacitySearch `json:"capacity,omitempty"`
	DeclRange hcl.Range       `json:"-"`
	File      string          `json:"file"` // the file that declares it
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
}

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
	rng  hcl.Range
}
