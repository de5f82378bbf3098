package results

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmload/llmload/metrics"
)

// Rate is a request rate in req/s that encodes +Inf as vLLM does ("inf")
// and 0 (closed loop, no rate) as null.
type Rate float64

// MarshalJSON implements json.Marshaler.
func (r Rate) MarshalJSON() ([]byte, error) {
	switch {
	case math.IsInf(float64(r), 1):
		return []byte(`"inf"`), nil
	case r == 0:
		return []byte("null"), nil
	}
	return json.Marshal(float64(r))
}

// UnmarshalJSON implements json.Unmarshaler.
func (r *Rate) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"inf"`:
		*r = Rate(math.Inf(1))
		return nil
	case "null":
		*r = 0
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("request rate: want a number, \"inf\" or null, got %s", b)
	}
	*r = Rate(f)
	return nil
}

// MarshalJSON writes the configured rate as a Rate ("inf" for +Inf).
func (s Schedule) MarshalJSON() ([]byte, error) {
	type plain Schedule
	return marshal(struct {
		ConfiguredRate Rate `json:"configured_rate"`
		plain
	}{Rate(s.ConfiguredRate), plain(s)})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (s *Schedule) UnmarshalJSON(b []byte) error {
	type plain Schedule
	var v struct {
		ConfiguredRate Rate `json:"configured_rate"`
		plain
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = Schedule(v.plain)
	s.ConfiguredRate = float64(v.ConfiguredRate)
	return nil
}

// marshal is json.Marshal without HTML escaping, so that thresholds such
// as "< 500 ms" stay readable in result files.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// DateFormat is the layout of Result.Date, vLLM's "%Y%m%d-%H%M%S".
const DateFormat = "20060102-150405"

// Result is a <scenario>.json result file: vLLM's benchmark result keys
// and units first (VLLMKeys, then the flat latency keys of VLLMLatencies),
// then llmload's own (Extras), which include every summary with its
// serialized HDR histograms so that results can be merged exactly.
type Result struct {
	VLLMKeys
	// VLLMLatencies holds vLLM's flat latency keys in milliseconds: mean_,
	// median_, std_, p50_, p90_, p95_, p99_ and p99.9_ followed by ttft_ms,
	// tpot_ms, itl_ms or e2el_ms, always; and pNN_ of any other percentile
	// the scenario asked for, for the metrics it chose. Median and
	// percentiles come from the HDR histograms.
	VLLMLatencies map[string]float64 `json:"-"`
	Extras
}

// VLLMKeys are the top-level keys of vLLM's benchmark result file.
type VLLMKeys struct {
	Date                  string   `json:"date"` // local time, DateFormat
	Backend               string   `json:"backend"`
	Label                 string   `json:"label"`
	ModelID               string   `json:"model_id"`
	TokenizerID           *string  `json:"tokenizer_id"`
	NumPrompts            int      `json:"num_prompts"` // measured requests sent
	RequestRate           Rate     `json:"request_rate"`
	Burstiness            float64  `json:"burstiness"`
	MaxConcurrency        *int     `json:"max_concurrency"`
	Duration              float64  `json:"duration"`
	Completed             int      `json:"completed"`
	Failed                int      `json:"failed"`
	TotalInputTokens      int      `json:"total_input_tokens"`
	TotalOutputTokens     int      `json:"total_output_tokens"`
	RequestThroughput     float64  `json:"request_throughput"`
	RequestGoodput        *float64 `json:"request_goodput"` // null without a goodput SLO
	OutputThroughput      float64  `json:"output_throughput"`
	TotalTokenThroughput  float64  `json:"total_token_throughput"`
	MaxOutputTokensPerS   float64  `json:"max_output_tokens_per_s"`
	MaxConcurrentRequests int      `json:"max_concurrent_requests"`
	// Detailed is vLLM's --save-detailed arrays, present only when the
	// scenario asked for them (save_detailed).
	*Detailed
}

// Detailed is vLLM's per-request arrays, one entry per measured request in
// the order they were dispatched, with vLLM's keys and units (seconds).
type Detailed struct {
	// InputLens is each request's prompt length by the dataset's count
	// (what total_input_tokens sums).
	InputLens []int `json:"input_lens"`
	// OutputLens is each request's output tokens (0 for a failed one).
	OutputLens []int `json:"output_lens"`
	// TTFTs is each request's time to first token in seconds (0 when none
	// came).
	TTFTs []float64 `json:"ttfts"`
	// ITLs is each request's inter-token gaps in seconds.
	ITLs [][]float64 `json:"itls"`
	// GeneratedTexts is each request's generated text.
	GeneratedTexts []string `json:"generated_texts"`
	// Errors is each request's error message ("" when it succeeded).
	Errors []string `json:"errors"`
}

// Extras are llmload's own keys of a result file.
type Extras struct {
	Scenario    string `json:"scenario"`
	ToolVersion string `json:"tool_version"`
	// ToolCommit is llmload's VCS revision, when the build knew it.
	ToolCommit string `json:"tool_commit,omitempty"`
	// ResultFormat is the version of this file's format (FormatVersion);
	// files written before it was recorded lack it, and are format 1.
	ResultFormat int    `json:"result_format,omitempty"`
	RunID        string `json:"run_id"`
	// Fingerprint identifies the configuration (resolved scenario, sampled
	// dataset, tool version): only results with equal fingerprints merge.
	Fingerprint string    `json:"fingerprint"`
	StartedAt   time.Time `json:"started_at"`
	EndedAt     time.Time `json:"ended_at"`
	// TimeZero is the wall-clock instant the run's monotonic offsets (the
	// requests file's *_ms fields) count from.
	TimeZero    time.Time `json:"time_zero"`
	TargetURL   string    `json:"target_url"`
	API         string    `json:"api"`
	Interrupted bool      `json:"interrupted"`
	Aborted     string    `json:"aborted,omitempty"` // why abort_on stopped the run
	// Sampled: the requests sampled (temperature above 0, no seed), so
	// their answers are not held against a baseline's.
	Sampled              bool             `json:"sampled,omitempty"`
	TokenizerApproximate bool             `json:"tokenizer_approximate"`
	Goodput              *SLOms           `json:"goodput_slo"` // null without a goodput SLO
	Summary              *metrics.Summary `json:"summary"`
	Stages               []Stage          `json:"stages"`
	Capacity             *Capacity        `json:"capacity,omitempty"`
	Sweep                *Sweep           `json:"sweep,omitempty"`
	Schedule             Schedule         `json:"schedule"`
	Checks               []Check          `json:"checks"`
	// Percentiles and PercentileMetrics are the scenario's choice of the
	// vLLM block's rows (absent: DefaultPercentiles and
	// DefaultPercentileMetrics).
	Percentiles       []float64 `json:"percentiles,omitempty"`
	PercentileMetrics []string  `json:"percentile_metrics,omitempty"`
	Validity          *Validity `json:"validity,omitempty"`
	Parts             []Part    `json:"parts,omitempty"`
	// Shard and Sync: a shard's identity and how it lined up with the
	// others; ShardCount and MissingShards: a merge of shards, and the
	// shards it lacks (the merged figures are then partial).
	Shard         *Shard `json:"shard,omitempty"`
	Sync          *Sync  `json:"sync,omitempty"`
	ShardCount    int    `json:"shard_count,omitempty"`
	MissingShards []int  `json:"missing_shards,omitempty"`
	// Workload identifies what the run sent, without its target, so that
	// runs against two servers can be compared (llmload compare);
	// ServerVersion is what the target said of its version, when it said
	// anything ("vllm 0.6.3 (/version)"). Comparison holds the deltas
	// against the scenario's baseline, when it has one.
	Workload      *Workload `json:"workload,omitempty"`
	ServerVersion string    `json:"server_version,omitempty"`
	// ServerConfig is what the target said of its configuration at the
	// start of the run (nil in results written before it was read).
	ServerConfig *ServerConfig `json:"server_config,omitempty"`
	Comparison   *Comparison   `json:"comparison,omitempty"`
	// Repeat holds a repeated run's runs and spread; AB an interleaved
	// A/B run's arms (nil otherwise).
	Repeat    *Repeats        `json:"repeat,omitempty"`
	AB        *AB             `json:"ab,omitempty"`
	Config    json.RawMessage `json:"config"`
	Dataset   json.RawMessage `json:"dataset"`
	Simulator json.RawMessage `json:"simulator,omitempty"`
}

// SLOms is a goodput SLO in milliseconds (absent = not set).
type SLOms struct {
	TTFT float64 `json:"ttft_ms,omitempty"`
	TPOT float64 `json:"tpot_ms,omitempty"`
	ITL  float64 `json:"itl_ms,omitempty"`
	E2EL float64 `json:"e2el_ms,omitempty"`
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// vllmLatencies are the latencies of vLLM's flat keys, in its order (the
// catalogue's).
var vllmLatencies = metrics.VLLMPercentileMetrics()

// PercentileKey names a percentile key as vLLM does:
// (99, "ttft") -> p99_ttft_ms, (99.9, "itl") -> p99.9_itl_ms.
func PercentileKey(p float64, metric string) string {
	return fmt.Sprintf("p%s_%s_ms", strconv.FormatFloat(p, 'f', -1, 64), metric)
}

// standardPercentiles are the percentile keys every result carries, for
// every latency, whatever the scenario chose.
var standardPercentiles = []float64{50, 90, 95, 99, 99.9}

// StandardPercentile returns a percentile the summary stores.
func StandardPercentile(l *metrics.Latency, p float64) (float64, bool) {
	switch p {
	case 50:
		return l.P50, true
	case 90:
		return l.P90, true
	case 95:
		return l.P95, true
	case 99:
		return l.P99, true
	case 99.9:
		return l.P999, true
	}
	return 0, false
}

// vllmLatencyFields returns the flat latency keys of s: for every metric,
// mean, median, std and the standard percentiles; for the selected
// metrics, also the other requested percentiles, read from the
// histograms.
func vllmLatencyFields(s *metrics.Summary, percentiles []float64, selected []string) ([]field, error) {
	var out []field
	for _, m := range vllmLatencies {
		l := s.LatencyOf(m)
		empty := l.Count == 0
		out = append(out,
			field{"mean_" + m + "_ms", l.Mean, empty},
			field{"median_" + m + "_ms", l.P50, empty},
			field{"std_" + m + "_ms", l.Stddev, empty},
		)
		for _, p := range standardPercentiles {
			v, _ := StandardPercentile(l, p)
			out = append(out, field{PercentileKey(p, m), v, empty})
		}
		if !slices.Contains(selected, m) {
			continue
		}
		for _, p := range percentiles {
			if _, std := StandardPercentile(l, p); std {
				continue
			}
			v, err := l.Percentile(p)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", m, err)
			}
			out = append(out, field{PercentileKey(p, m), v, empty})
		}
	}
	return out, nil
}

// latencyKey splits a flat latency key: "p99.9_itl_ms" is ("p", 99.9,
// "itl"), "mean_ttft_ms" is ("mean", 0, "ttft").
func latencyKey(key string) (stat string, p float64, metric string, ok bool) {
	rest, found := strings.CutSuffix(key, "_ms")
	if !found {
		return "", 0, "", false
	}
	i := strings.LastIndexByte(rest, '_')
	if i < 0 {
		return "", 0, "", false
	}
	stat, metric = rest[:i], rest[i+1:]
	if !slices.Contains(vllmLatencies, metric) {
		return "", 0, "", false
	}
	switch stat {
	case "mean", "median", "std":
		return stat, 0, metric, true
	}
	if num, isP := strings.CutPrefix(stat, "p"); isP {
		if f, err := strconv.ParseFloat(num, 64); err == nil && f >= 0 && f <= 100 {
			return "p", f, metric, true
		}
	}
	return "", 0, "", false
}

// orderedLatencyKeys orders flat latency keys as vLLM writes them: by
// metric (TTFT, TPOT, ITL, E2EL), then mean, median, std, then the
// percentiles in increasing order.
func orderedLatencyKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		if _, _, _, ok := latencyKey(k); ok {
			keys = append(keys, k)
		}
	}
	rank := func(k string) (int, int, float64) {
		stat, p, metric, _ := latencyKey(k)
		mi := slices.Index(vllmLatencies, metric)
		si := map[string]int{"mean": 0, "median": 1, "std": 2, "p": 3}[stat]
		return mi, si, p
	}
	slices.SortFunc(keys, func(a, b string) int {
		am, as, ap := rank(a)
		bm, bs, bp := rank(b)
		return cmp.Or(cmp.Compare(am, bm), cmp.Compare(as, bs), cmp.Compare(ap, bp))
	})
	return keys
}

// field is one key of a JSON object written in a fixed order; empty marks
// a statistic of a distribution without samples (written as null).
type field struct {
	key   string
	value float64
	empty bool
}

// scheduleRate is the configured rate the run's schedule is judged
// against: the open loop's, or over a sweep or search of the rate (which
// configures none of its own) the steps' rates over the run.
func scheduleRate(r *Run) float64 {
	if r.RequestRate == 0 && r.Sweep != nil {
		return r.Sweep.ConfiguredRate(r.Overall)
	}
	return r.RequestRate
}

// NewResult builds the result file's content from a run.
func NewResult(r *Run) (*Result, error) {
	s := r.Overall
	if s == nil {
		s = &metrics.Summary{}
	}
	res := &Result{
		VLLMKeys: VLLMKeys{
			Date:                  r.StartedAt.Format(DateFormat),
			Backend:               r.API,
			Label:                 r.Scenario,
			ModelID:               r.Model,
			NumPrompts:            s.Completed + s.Failed,
			RequestRate:           Rate(r.RequestRate),
			Burstiness:            r.Burstiness,
			Duration:              s.Duration,
			Completed:             s.Completed,
			Failed:                s.Failed,
			TotalInputTokens:      s.TotalInputTokens,
			TotalOutputTokens:     s.TotalOutputTokens,
			RequestThroughput:     s.RequestThroughput,
			OutputThroughput:      s.OutputThroughput,
			TotalTokenThroughput:  s.TotalTokenThroughput,
			MaxOutputTokensPerS:   s.PeakOutputThroughput,
			MaxConcurrentRequests: s.PeakConcurrency,
		},
		VLLMLatencies: map[string]float64{},
		Extras: Extras{
			Scenario:             r.Scenario,
			ToolVersion:          r.ToolVersion,
			ToolCommit:           r.ToolCommit,
			ResultFormat:         FormatVersion,
			RunID:                r.RunID,
			Fingerprint:          r.Fingerprint,
			StartedAt:            r.StartedAt,
			EndedAt:              r.EndedAt,
			TimeZero:             r.TimeZero,
			TargetURL:            r.TargetURL,
			API:                  r.API,
			Interrupted:          r.Interrupted,
			Aborted:              r.Aborted,
			Sampled:              r.Sampled,
			TokenizerApproximate: r.TokenizerApproximate,
			Summary:              s,
			Stages:               r.Stages,
			Capacity:             CapacityOf(r.Stages),
			Schedule:             ScheduleOf(scheduleRate(r), s),
			Checks:               r.Checks,
			Percentiles:          r.Percentiles,
			PercentileMetrics:    r.PercentileMetrics,
			Validity:             r.Validity,
			Parts:                r.Parts,
			Shard:                r.Shard,
			Sync:                 r.Sync,
			ShardCount:           r.ShardCount,
			MissingShards:        r.MissingShards,
			Workload:             r.Workload,
			ServerVersion:        r.ServerVersion,
			ServerConfig:         r.ServerConfig,
			Comparison:           r.Comparison,
			Repeat:               r.Repeat,
			AB:                   r.AB,
		},
	}
	res.Detailed = r.Detailed
	if r.Sweep != nil {
		sw := *r.Sweep
		sw.Finish(s)
		res.Sweep = &sw
	}
	if r.Tokenizer != "" {
		res.TokenizerID = &r.Tokenizer
	}
	if r.MaxConcurrency > 0 {
		res.MaxConcurrency = &r.MaxConcurrency
	}
	if g := r.Goodput; !g.Empty() {
		res.RequestGoodput = &s.RequestGoodput
		res.Goodput = &SLOms{TTFT: ms(g.TTFT), TPOT: ms(g.TPOT), ITL: ms(g.ITL), E2EL: ms(g.E2EL)}
	}
	fields, err := vllmLatencyFields(s, res.ChosenPercentiles(), res.ChosenPercentileMetrics())
	if err != nil {
		return nil, err
	}
	for _, f := range fields {
		res.VLLMLatencies[f.key] = f.value
	}
	if res.Config, err = marshal(r.Config); err != nil {
		return nil, fmt.Errorf("encoding the resolved scenario: %w", err)
	}
	if res.Dataset, err = marshal(r.Dataset); err != nil {
		return nil, fmt.Errorf("encoding the dataset statistics: %w", err)
	}
	if r.Simulator != nil {
		if res.Simulator, err = marshal(r.Simulator); err != nil {
			return nil, fmt.Errorf("encoding the simulator statistics: %w", err)
		}
	}
	return res, nil
}

// MarshalJSON writes vLLM's keys first, in vLLM's order, then ours.
func (res *Result) MarshalJSON() ([]byte, error) {
	head, err := marshal(res.VLLMKeys)
	if err != nil {
		return nil, err
	}
	tail, err := marshal(res.Extras)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Write(head[:len(head)-1])
	for _, k := range orderedLatencyKeys(res.VLLMLatencies) {
		if _, _, metric, _ := latencyKey(k); res.Summary != nil && res.Summary.LatencyOf(metric) != nil && res.Summary.LatencyOf(metric).Count == 0 {
			// No sample: null, as the summary's own statistics are (vLLM
			// writes 0 here, from its "or 0" fallbacks).
			fmt.Fprintf(&buf, ",%q:null", k)
			continue
		}
		b, err := json.Marshal(res.VLLMLatencies[k])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		fmt.Fprintf(&buf, ",%q:%s", k, b)
	}
	buf.WriteByte(',')
	buf.Write(tail[1:])
	return buf.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (res *Result) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &res.VLLMKeys); err != nil {
		return err
	}
	if err := json.Unmarshal(b, &res.Extras); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	res.VLLMLatencies = map[string]float64{}
	for k, raw := range all {
		if _, _, _, ok := latencyKey(k); !ok {
			continue
		}
		var v float64
		if err := json.Unmarshal(raw, &v); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		res.VLLMLatencies[k] = v
	}
	return nil
}

// ChosenPercentiles is the result's choice of percentiles, or the default.
func (res *Result) ChosenPercentiles() []float64 {
	if len(res.Percentiles) == 0 {
		return DefaultPercentiles
	}
	return res.Percentiles
}

// ChosenPercentileMetrics is the result's choice of metrics, or the
// default.
func (res *Result) ChosenPercentileMetrics() []string {
	if len(res.PercentileMetrics) == 0 {
		return DefaultPercentileMetrics
	}
	return res.PercentileMetrics
}

// WriteResult writes <dir>/<scenario>.json atomically (a temporary file in
// dir renamed into place), creating dir when needed, and returns its path.
func WriteResult(dir string, res *Result) (string, error) {
	if err := checkName(res.Scenario); err != nil {
		return "", err
	}
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(res); err != nil {
		return "", fmt.Errorf("encoding the result: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, res.Scenario+".json")
	return path, writeAtomic(path, body.Bytes())
}

// WriteResultFile writes res to path atomically.
func WriteResultFile(path string, res *Result) error {
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(res); err != nil {
		return fmt.Errorf("encoding the result: %w", err)
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return writeAtomic(path, body.Bytes())
}

// checkName refuses scenario names that cannot name a file.
func checkName(name string) error {
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return fmt.Errorf("scenario name %q cannot name a result file", name)
	}
	return nil
}

// writeAtomic writes data to a temporary file beside path and renames it
// into place, so a reader never sees a partial file.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// FormatVersion is the version of the result file's format, written as
// result_format. It is raised when a key changes its meaning or a figure is
// computed otherwise, so that a reader of one format would misread a file
// of another; adding a key does not raise it. compare and a run's baseline
// refuse results of different formats (runner.CheckFormats), while results
// of different llmload versions in one format compare with a warning.
const FormatVersion = 1

// Format is the result's format version: its result_format, or 1 for a
// file written before the format was recorded.
func (res *Result) Format() int {
	if res.ResultFormat == 0 {
		return 1
	}
	return res.ResultFormat
}

// ReadResult reads a <scenario>.json written by WriteFiles.
func ReadResult(path string) (*Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	res, err := ParseResult(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return res, nil
}

// ParseResult decodes the content of a result file. A syntax or type error
// names the line it is on.
func ParseResult(data []byte) (*Result, error) {
	var res Result
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, withLine(data, err)
	}
	if res.Summary == nil {
		return nil, errors.New("not an llmload result: no summary")
	}
	if f := res.Format(); f > FormatVersion {
		return nil, fmt.Errorf("result format %d, written by llmload %s; this llmload (format %d) would misread it: read it with that version or a later one", f, res.ToolVersion, FormatVersion)
	}
	if err := res.validate(); err != nil {
		return nil, fmt.Errorf("not a valid llmload result: %w", err)
	}
	return &res, nil
}

// validate checks every summary the result holds (metrics.Summary.
// Validate): the one loader of merge, compare, report and baselines
// refuses a result whose counts or histograms cannot be true.
func (r *Result) validate() error {
	type part struct {
		where string
		s     *metrics.Summary
	}
	parts := []part{{"summary", r.Summary}}
	for _, st := range r.Stages {
		parts = append(parts, part{fmt.Sprintf("stage %d", st.Stage), st.Summary})
	}
	if r.Sweep != nil {
		for _, st := range r.Sweep.Steps {
			parts = append(parts, part{fmt.Sprintf("sweep step %d", st.Step), st.Summary})
		}
	}
	for i, s := range r.Repeat.Summaries() {
		parts = append(parts, part{fmt.Sprintf("repeat run %d", i+1), s})
	}
	if r.AB != nil {
		parts = append(parts, part{"baseline arm", r.AB.Baseline.Summary})
	}
	for _, p := range parts {
		if p.s == nil {
			continue
		}
		if err := p.s.Validate(); err != nil {
			return fmt.Errorf("%s: %w", p.where, err)
		}
	}
	return nil
}

// withLine adds the line number to JSON decoding errors that carry an
// offset.
func withLine(data []byte, err error) error {
	var off int64 = -1
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		off = syn.Offset
	case errors.As(err, &typ):
		off = typ.Offset
	}
	if off < 0 || off > int64(len(data)) {
		return err
	}
	return fmt.Errorf("line %d: %w", bytes.Count(data[:off], []byte("\n"))+1, err)
}
