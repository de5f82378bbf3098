package sim

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Profile holds every engine parameter. Each field but Name carries its
// snake_case key (the `sim` tag) by which Set overrides it.
//
// A step's duration is
//
//	StepOverhead + sqrt(mem² + compute²)
//	mem     = WeightsReadTime + KVReadPerToken × (context tokens attended in the step)
//	compute = DecodeComputePerSeq × (decoding sequences) + PrefillComputePerToken × (prefill tokens)
//
// a smooth roofline: the larger term dominates when one is much larger, and
// the two blend near the ridge point.
type Profile struct {
	// Name is the profile's name ("a100-llama3-8b", ...).
	Name string
	// Model is the served model name (GET /v1/models, the "model" field).
	Model string `sim:"model" help:"served model name"`
	// MaxModelLen bounds prompt + output tokens of one request (tokens).
	MaxModelLen int `sim:"max_model_len" help:"max prompt + output tokens per request (tokens)"`
	// MaxNumSeqs bounds the running batch (sequences).
	MaxNumSeqs int `sim:"max_num_seqs" help:"max sequences in the running batch"`
	// MaxNumBatchedTokens is the per-step token budget: one per decoding
	// sequence (TokensPerEvent with speculative decoding) plus prefill chunks (tokens).
	MaxNumBatchedTokens int `sim:"max_num_batched_tokens" help:"per-step token budget, decodes plus prefill chunks (tokens)"`
	// KVCacheTokens is the KV-cache capacity (tokens). A sequence holds
	// prompt + generated tokens; when decoding needs more than is free, the
	// most recently admitted sequence is preempted and later recomputed.
	KVCacheTokens int `sim:"kv_cache_tokens" help:"KV-cache capacity (tokens)"`
	// WeightsReadTime is the time to stream the weights from memory once, the
	// floor of every step (model bytes / memory bandwidth).
	WeightsReadTime time.Duration `sim:"weights_read_time" help:"memory time to read the weights once, per step (duration)"`
	// KVReadPerToken is the memory time to read one context token's KV entries
	// (KV bytes per token / memory bandwidth).
	KVReadPerToken time.Duration `sim:"kv_read_per_token" help:"memory time to read one context token's KV, per step (duration)"`
	// DecodeComputePerSeq is the effective compute time of one decoding
	// sequence in a step.
	DecodeComputePerSeq time.Duration `sim:"decode_compute_per_seq" help:"compute time per decoding sequence, per step (duration)"`
	// PrefillComputePerToken is the compute time of one prefill token.
	PrefillComputePerToken time.Duration `sim:"prefill_compute_per_token" help:"compute time per prefill token (duration)"`
	// StepOverhead is the fixed per-step cost (scheduling, sampling, launch).
	StepOverhead time.Duration `sim:"step_overhead" help:"fixed cost of every step (duration)"`
	// EOSMeanTokens is the mean natural reply length (tokens, exponential)
	// of requests without ignore_eos; a reply shorter than max_tokens ends
	// with finish_reason "stop".
	EOSMeanTokens int `sim:"eos_mean_tokens" help:"mean natural reply length without ignore_eos (tokens)"`
	// TokensPerEvent is the most tokens each decoding sequence gains per
	// step and sends in one SSE event (> 1 models speculative decoding:
	// TokensPerEvent-1 draft tokens a step, then a bonus token).
	TokensPerEvent int `sim:"tokens_per_event" help:"tokens per decode step and SSE event (speculative decoding: drafts + 1)"`
	// SpecAcceptance is the fraction of draft tokens accepted when
	// TokensPerEvent > 1: a step gains its accepted drafts and the bonus
	// token, so a lower rate makes fewer tokens a step and slower answers.
	// Each sequence accepts the same share of its drafts, step after step
	// (no random draw), and reports them as vLLM's per-request metrics do.
	SpecAcceptance float64 `sim:"spec_acceptance" help:"fraction of draft tokens accepted, with tokens_per_event > 1 (1: every draft)"`
	// FaultHTTP500 is the probability that a request gets HTTP 500.
	FaultHTTP500 float64 `sim:"fault_http_500" help:"probability of an HTTP 500 answer"`
	// FaultHTTP429 is the probability that a request gets HTTP 429.
	FaultHTTP429 float64 `sim:"fault_http_429" help:"probability of an HTTP 429 answer"`
	// FaultHTTP503 is the probability that a request gets HTTP 503.
	FaultHTTP503 float64 `sim:"fault_http_503" help:"probability of an HTTP 503 answer"`
	// FaultDrop is the probability that the connection is closed mid-stream.
	FaultDrop float64 `sim:"fault_drop" help:"probability of closing the connection mid-stream"`
	// FaultStall is the probability that the stream stops for StallDuration
	// mid-stream, then resumes.
	FaultStall float64 `sim:"fault_stall" help:"probability of a mid-stream stall of stall_duration"`
	// FaultMalformed is the probability that one malformed data payload is
	// sent mid-stream.
	FaultMalformed float64 `sim:"fault_malformed" help:"probability of one malformed data payload mid-stream"`
	// FaultRepeatToken is the probability that a request's answer is one
	// word repeated (a degenerate loop), FaultGarbage that it is byte
	// fragments and replacement characters (a broken kernel or
	// detokenizer); either streams at the healthy speed and length.
	FaultRepeatToken float64 `sim:"fault_repeat_token" help:"probability of an answer that repeats one word, at the healthy speed"`
	FaultGarbage     float64 `sim:"fault_garbage_output" help:"probability of an answer of invalid bytes and replacement characters, at the healthy speed"`
	// FaultNeverStop is the probability that a request's answer never
	// reaches its end of sequence: it runs to max_tokens (finish_reason
	// length), as a model whose chat template or tokenizer changed so that
	// it no longer stops.
	FaultNeverStop float64 `sim:"fault_never_stop" help:"probability of an answer that never stops before max_tokens (no EOS), at the healthy speed"`
	// FaultSwapOutputs is the probability that a request is answered with
	// the text another request was given (the request before it): a
	// prefix-cache or batching bug that hands one request's tokens to
	// another, at the healthy speed and the request's own length.
	FaultSwapOutputs float64 `sim:"fault_swap_outputs" help:"probability of an answer with another request's text, at the healthy speed"`
	// ModelSeed stands for the model's weights: with greedy sampling
	// (temperature 0) or a request seed, the answer to a prompt (its text
	// and, without ignore_eos, its length) depends on the prompt and this
	// seed alone, so two simulators with one model_seed answer a prompt
	// alike and one with another seed (another model, a broken kernel)
	// differently.
	ModelSeed int `sim:"model_seed" help:"the simulated model: greedy answers to a prompt are the same for the same model_seed (integer)"`
	// StallDuration is how long a stalled stream sends nothing.
	StallDuration time.Duration `sim:"stall_duration" help:"how long a stall lasts (duration)"`
	// ReasoningTokens makes the model a reasoning one: a chat or Responses
	// reply streams its first ReasoningTokens tokens as reasoning
	// (delta.reasoning_content, response.reasoning_text.delta) before the
	// answer. They count in the output (usage, max_tokens); without
	// ignore_eos the natural answer length comes on top of them.
	ReasoningTokens int `sim:"reasoning_tokens" help:"tokens of reasoning streamed before the answer, chat, Responses and Messages APIs (tokens)"`
	// ImageTokens is what each image of a chat prompt (an image_url
	// content part) adds to the prompt, as a vision encoder's patches do
	// (LLaVA-1.5: 576): its prefill cost, in prompt tokens.
	ImageTokens int `sim:"image_tokens" help:"prompt tokens each image of a chat prompt adds, its prefill cost (tokens)"`
	// ToolCallShare is how often a chat answer calls a tool when the
	// request offers tools and lets the model choose (tool_choice "auto"
	// or unset), unless the last message is a tool's result (the model
	// then answers it): a share of prompts, each prompt always deciding
	// alike. tool_choice "required" or a named function always calls.
	ToolCallShare float64 `sim:"tool_call_share" help:"share of chat and Messages answers that call an offered tool when the model may choose (0-1)"`
	// LeakOnDisconnect is a fault of the engine: a sequence whose client
	// disconnects is never released. It stays in the running batch for
	// good, holding its place (max_num_seqs) and its KV cache, and
	// generates nothing more: a request stuck in an engine that missed
	// the abort. The running count and KV usage never return to idle.
	// PerRequestMetrics adds vLLM's per-request metrics object
	// (--enable-per-request-metrics) to the usage chunk: the engine's own
	// time to first token from the request's arrival, generation time,
	// mean ITL and tokens per second, as this simulator measured them.
	PerRequestMetrics bool `sim:"per_request_metrics" help:"send vLLM's per-request metrics object with the usage (true/false)"`
	// PrefixCaching turns on vLLM's automatic prefix caching: a prompt's
	// leading 16-token blocks that an earlier prompt computed are not
	// computed again (at least its last token always is), up to a cache
	// of the KV cache's size evicted least recently used first. Each
	// answer reports its cached tokens (usage.prompt_tokens_details), and
	// vllm:prefix_cache_hits_total counts them.
	PrefixCaching    bool `sim:"prefix_caching" help:"cache prompt prefixes in 16-token blocks, as vLLM's automatic prefix caching (true/false)"`
	LeakOnDisconnect bool `sim:"leak_on_disconnect" help:"fault: never release a sequence whose client went away (it stays running, holding its KV cache) (true/false)"`
}

// Memory bandwidth and dense BF16 compute of the cards the profiles model,
// used to scale the H100 profile from the calibrated A100 one.
const (
	a100BandwidthTBs = 2.0
	h100BandwidthTBs = 3.35
	a100TFLOPS       = 312.0
	h100TFLOPS       = 989.0
)

func a100Llama3() Profile {
	return Profile{
		Name:                   "a100-llama3-8b",
		Model:                  "meta-llama/Meta-Llama-3-8B-Instruct",
		MaxModelLen:            8192,
		MaxNumSeqs:             256,
		MaxNumBatchedTokens:    2048,
		KVCacheTokens:          56000,
		WeightsReadTime:        8 * time.Millisecond,
		KVReadPerToken:         66 * time.Nanosecond,
		DecodeComputePerSeq:    280 * time.Microsecond,
		PrefillComputePerToken: 60 * time.Microsecond,
		StepOverhead:           500 * time.Microsecond,
		EOSMeanTokens:          250,
		TokensPerEvent:         1,
		SpecAcceptance:         1,
		StallDuration:          5 * time.Second,
		ToolCallShare:          0.5,
		ImageTokens:            576,
	}
}

func h100Llama3() Profile {
	p := a100Llama3()
	p.Name = "h100-llama3-8b"
	mem := a100BandwidthTBs / h100BandwidthTBs
	comp := a100TFLOPS / h100TFLOPS
	p.WeightsReadTime = scale(p.WeightsReadTime, mem)
	p.KVReadPerToken = scale(p.KVReadPerToken, mem)
	p.DecodeComputePerSeq = scale(p.DecodeComputePerSeq, comp)
	p.PrefillComputePerToken = scale(p.PrefillComputePerToken, comp)
	return p
}

func tiny() Profile {
	return Profile{
		Name:                   "tiny",
		Model:                  "sim-tiny",
		MaxModelLen:            2048,
		MaxNumSeqs:             16,
		MaxNumBatchedTokens:    256,
		KVCacheTokens:          4096,
		WeightsReadTime:        time.Millisecond,
		KVReadPerToken:         100 * time.Nanosecond,
		DecodeComputePerSeq:    50 * time.Microsecond,
		PrefillComputePerToken: 5 * time.Microsecond,
		StepOverhead:           100 * time.Microsecond,
		EOSMeanTokens:          16,
		TokensPerEvent:         1,
		SpecAcceptance:         1,
		StallDuration:          200 * time.Millisecond,
		ToolCallShare:          0.5,
		ImageTokens:            576,
	}
}

func scale(d time.Duration, f float64) time.Duration {
	return time.Duration(math.Round(float64(d) * f))
}

var profiles = map[string]func() Profile{
	"a100-llama3-8b": a100Llama3,
	"h100-llama3-8b": h100Llama3,
	"tiny":           tiny,
}

// Profiles returns the names of the built-in profiles, sorted.
func Profiles() []string {
	names := make([]string, 0, len(profiles))
	for n := range profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// LookupProfile returns a copy of the named built-in profile.
func LookupProfile(name string) (Profile, error) {
	mk, ok := profiles[name]
	if !ok {
		return Profile{}, fmt.Errorf("unknown simulator profile %q (valid: %s)", name, strings.Join(Profiles(), ", "))
	}
	return mk(), nil
}

// field returns the settable field with the given key.
func (p *Profile) field(key string) (reflect.Value, bool) {
	v := reflect.ValueOf(p).Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).Tag.Get("sim") == key {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// Keys returns the snake_case keys Set accepts, in declaration order.
func (p *Profile) Keys() []string {
	t := reflect.TypeOf(*p)
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		if k := t.Field(i).Tag.Get("sim"); k != "" {
			keys = append(keys, k)
		}
	}
	return keys
}

// Help returns a one-line description of a key, with its unit, for flag
// help and docs ("" for an unknown key).
func (p *Profile) Help(key string) string {
	t := reflect.TypeOf(*p)
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).Tag.Get("sim") == key {
			return t.Field(i).Tag.Get("help")
		}
	}
	return ""
}

// Defaults renders a parameter's value in each built-in profile, for flag
// help: "a100-llama3-8b 256, h100-llama3-8b 256, tiny 4", or "0 in each
// profile" when they agree ("" for an unknown key).
func Defaults(key string) string {
	var each []string
	same := true
	first := ""
	for i, n := range Profiles() {
		p, _ := LookupProfile(n)
		v, err := p.Get(key)
		if err != nil {
			return ""
		}
		if i == 0 {
			first = v
		}
		same = same && v == first
		each = append(each, n+" "+v)
	}
	if same {
		return first + " in each profile"
	}
	return strings.Join(each, ", ")
}

// Get returns a parameter's value in the syntax Set accepts.
func (p *Profile) Get(key string) (string, error) {
	f, ok := p.field(key)
	if !ok {
		return "", fmt.Errorf("unknown simulator parameter %q (valid: %s)", key, strings.Join(p.Keys(), ", "))
	}
	switch {
	case f.Type() == durationType:
		return time.Duration(f.Int()).String(), nil
	case f.Kind() == reflect.Int:
		return strconv.FormatInt(f.Int(), 10), nil
	case f.Kind() == reflect.Float64:
		return strconv.FormatFloat(f.Float(), 'g', -1, 64), nil
	case f.Kind() == reflect.Bool:
		return strconv.FormatBool(f.Bool()), nil
	}
	return f.String(), nil
}

var durationType = reflect.TypeOf(time.Duration(0))

// Set overrides one parameter by its snake_case key. Durations take Go
// syntax ("8ms", "250us"), probabilities a number in [0, 1]. The profile
// is validated afterwards, so an override that breaks a constraint is
// rejected and leaves the profile unchanged.
func (p *Profile) Set(key, value string) error {
	f, ok := p.field(key)
	if !ok {
		// A target's sim block also takes replicas (not a profile field).
		return fmt.Errorf("unknown simulator parameter %q (valid: %s)", key, strings.Join(append(p.Keys(), ReplicasKey), ", "))
	}
	old := reflect.ValueOf(*p)
	value = strings.TrimSpace(value)
	switch {
	case f.Type() == durationType:
		d, err := time.ParseDuration(value)
		if err != nil {
			return fmt.Errorf("simulator parameter %s: %q is not a duration (e.g. 8ms): %v", key, value, err)
		}
		f.SetInt(int64(d))
	case f.Kind() == reflect.Int:
		n, err := strconv.Atoi(value)
		if err != nil {
			return fmt.Errorf("simulator parameter %s: %q is not an integer", key, value)
		}
		f.SetInt(int64(n))
	case f.Kind() == reflect.Float64:
		x, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return fmt.Errorf("simulator parameter %s: %q is not a number", key, value)
		}
		f.SetFloat(x)
	case f.Kind() == reflect.Bool:
		b, err := strconv.ParseBool(value)
		if err != nil {
			return fmt.Errorf("simulator parameter %s: %q is not true or false", key, value)
		}
		f.SetBool(b)
	default:
		f.SetString(value)
	}
	if err := p.Validate(); err != nil {
		reflect.ValueOf(p).Elem().Set(old)
		return fmt.Errorf("simulator parameter %s = %q: %w", key, value, err)
	}
	return nil
}

// Validate reports the first parameter that is out of range.
func (p *Profile) Validate() error {
	positive := []struct {
		key string
		v   int64
	}{
		{"max_model_len", int64(p.MaxModelLen)},
		{"max_num_seqs", int64(p.MaxNumSeqs)},
		{"max_num_batched_tokens", int64(p.MaxNumBatchedTokens)},
		{"kv_cache_tokens", int64(p.KVCacheTokens)},
		{"eos_mean_tokens", int64(p.EOSMeanTokens)},
		{"tokens_per_event", int64(p.TokensPerEvent)},
	}
	for _, c := range positive {
		if c.v <= 0 {
			return fmt.Errorf("%s must be positive, got %d", c.key, c.v)
		}
	}
	if p.ImageTokens < 0 {
		return fmt.Errorf("image_tokens must not be negative, got %d", p.ImageTokens)
	}
	if p.ToolCallShare < 0 || p.ToolCallShare > 1 {
		return fmt.Errorf("tool_call_share must be between 0 and 1, got %g", p.ToolCallShare)
	}
	if p.ReasoningTokens < 0 {
		return fmt.Errorf("reasoning_tokens must not be negative, got %d", p.ReasoningTokens)
	}
	if p.Model == "" {
		return fmt.Errorf("model must not be empty")
	}
	for _, d := range []time.Duration{p.WeightsReadTime, p.KVReadPerToken, p.DecodeComputePerSeq, p.PrefillComputePerToken, p.StepOverhead, p.StallDuration} {
		if d < 0 {
			return fmt.Errorf("durations must not be negative, got %v", d)
		}
	}
	if p.stepTime(1, 0, 0) <= 0 {
		return fmt.Errorf("a decode step must take some time: set weights_read_time, decode_compute_per_seq or step_overhead")
	}
	if p.MaxNumBatchedTokens < p.MaxNumSeqs*p.TokensPerEvent {
		return fmt.Errorf("max_num_batched_tokens (%d) must be at least max_num_seqs × tokens_per_event (%d)", p.MaxNumBatchedTokens, p.MaxNumSeqs*p.TokensPerEvent)
	}
	if p.KVCacheTokens < p.MaxModelLen+p.TokensPerEvent {
		return fmt.Errorf("kv_cache_tokens (%d) must hold one max_model_len (%d) request plus tokens_per_event", p.KVCacheTokens, p.MaxModelLen)
	}
	if !(p.SpecAcceptance >= 0 && p.SpecAcceptance <= 1) {
		return fmt.Errorf("spec_acceptance must be a fraction in [0, 1], got %v", p.SpecAcceptance)
	}
	sum := 0.0
	for _, f := range p.faults() {
		if f.p < 0 || f.p > 1 || math.IsNaN(f.p) {
			return fmt.Errorf("fault_%s must be a probability in [0, 1], got %v", f.kind, f.p)
		}
		sum += f.p
	}
	if sum > 1+1e-9 {
		return fmt.Errorf("fault probabilities add up to %v, more than 1", sum)
	}
	return nil
}

// stepTime is the duration of one engine step that decodes `decodes`
// sequences, prefills `prefill` tokens and attends over `ctx` context tokens.
func (p *Profile) stepTime(decodes, prefill, ctx int) time.Duration {
	mem := float64(p.WeightsReadTime) + float64(p.KVReadPerToken)*float64(ctx)
	comp := float64(p.DecodeComputePerSeq)*float64(decodes) + float64(p.PrefillComputePerToken)*float64(prefill)
	return p.StepOverhead + time.Duration(math.Hypot(mem, comp))
}
