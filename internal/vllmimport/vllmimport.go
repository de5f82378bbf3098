package vllmimport

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/llmload/llmload/internal/apis"
	"github.com/llmload/llmload/metrics"
)

// Untranslated is an argument the scenario does not carry, and why.
type Untranslated struct {
	Arg    string // as written, with its values: "--percentile-metrics ttft,tpot"
	Reason string
	// Same is set when the benchmark is the same without the argument: an
	// option about where vLLM writes its output, which llmload spells
	// otherwise (--save-result, --result-dir), or one vLLM itself ignores
	// with the command's dataset. Otherwise the scenario is not the
	// command's benchmark: it sends or measures something else (a dataset
	// llmload does not read, a value it could not read, an unknown option).
	Same bool
}

func (u Untranslated) String() string { return u.Arg + ": " + u.Reason }

// Result is a translation.
type Result struct {
	// HCL is the scenario file, canonically formatted. It starts with a
	// comment holding the command line and every untranslated argument.
	HCL []byte
	// Untranslated lists, in command-line order, the arguments the
	// scenario does not carry.
	Untranslated []Untranslated
}

// Changed lists the untranslated arguments that make the scenario another
// benchmark than the command's (those without Same). llmload import exits
// 1 when there are any, unless -lenient.
func (r *Result) Changed() []Untranslated {
	var out []Untranslated
	for _, u := range r.Untranslated {
		if !u.Same {
			out = append(out, u)
		}
	}
	return out
}

// Names of the blocks the scenario declares.
const (
	TargetName   = "server"
	ScenarioName = "benchmark_serving"
)

// settings are the benchmark's options after parsing, with vLLM's
// defaults.
type settings struct {
	backend, backendArg string
	baseURL, host, port string
	endpoint            string
	model, servedName   string
	tokenizer           string
	datasetName         string
	datasetPath         string
	numPrompts          int64
	rate                string
	burstiness          float64
	maxConcurrency      int64
	seed                *int64
	ignoreEOS           bool
	goodput             [][2]string // metric, duration
	extraBody           [][2]string // field, HCL literal
	headers             [][2]string
	warmups             int64
	sharegptOutputLen   int64
	randomInputLen      int64
	randomOutputLen     int64
	randomRangeRatio    string
	randomPrefixLen     int64
	customOutputLen     int64
	inputLen, outputLen int64 // --input-len and --output-len, which override the dataset's own
	insecure            bool
	noOversample        bool
	disableShuffle      bool
	skipChatTemplate    bool
	percentileMetrics   []string
	percentiles         []string // HCL number literals
	resultFilename      string
	saveDetailed        bool

	datasetOpts []option // dataset-specific options, checked once the dataset is known
	out         []Untranslated
}

// skip lists an argument the scenario does not carry, which changes the
// benchmark; note lists one without which the benchmark is the same.
func (s *settings) skip(o option, reason string) {
	s.out = append(s.out, Untranslated{Arg: o.text(), Reason: reason})
}

func (s *settings) note(o option, reason string) {
	s.out = append(s.out, Untranslated{Arg: o.text(), Reason: reason, Same: true})
}

// Translate turns a benchmark command line into a scenario. The program
// words before the first option (python3 benchmark_serving.py, vllm bench
// serve) are optional; they only choose the default dataset, which is
// sharegpt for benchmark_serving.py and random for vllm bench serve.
//
// An argument Translate cannot express is listed in the result, never
// dropped. It returns an error only when no scenario can be written: the
// model is missing, as vLLM's benchmark_serving.py requires it, or an
// option is an ambiguous abbreviation, which vLLM refuses too.
func Translate(args []string) (*Result, error) {
	program, opts, stray, err := parse(args)
	if err != nil {
		return nil, err
	}
	s := &settings{
		backend: "vllm", host: "127.0.0.1", port: "8000",
		datasetName: "random", numPrompts: 1000, rate: "inf", burstiness: 1,
		randomInputLen: 1024, randomOutputLen: 128, customOutputLen: 256,
	}
	for _, w := range program {
		if strings.Contains(w, "benchmark_serving") {
			s.datasetName = "sharegpt" // that script's default
		}
	}
	for _, o := range opts {
		s.apply(o)
	}
	for _, w := range stray {
		s.out = append(s.out, Untranslated{Arg: w, Reason: "unexpected argument: vLLM's benchmark takes no positional arguments"})
	}
	if s.servedName == "" && s.model == "" {
		return nil, errors.New("the command has no --model: llmload sends the model name in every request, so give --model NAME")
	}
	s.checkDataset()
	f, err := s.file(args)
	if err != nil {
		return nil, err
	}
	return &Result{HCL: f, Untranslated: s.out}, nil
}

// apply reads one option into the settings.
func (s *settings) apply(o option) {
	one := func() (string, bool) {
		if len(o.vals) != 1 {
			s.skip(o, fmt.Sprintf("takes one value, got %d", len(o.vals)))
			return "", false
		}
		return o.vals[0], true
	}
	switch0 := func() bool {
		if len(o.vals) != 0 {
			s.skip(o, "takes no value")
			return false
		}
		return true
	}
	integer := func(min int64, dst *int64) {
		if v, ok := one(); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < min {
				s.skip(o, fmt.Sprintf("want a whole number of at least %d, got %q", min, v))
				return
			}
			*dst = n
		}
	}
	// Options that set one string, as given.
	strs := map[string]*string{
		"base-url":          &s.baseURL,
		"host":              &s.host,
		"port":              &s.port,
		"endpoint":          &s.endpoint,
		"model":             &s.model,
		"served-model-name": &s.servedName,
		"tokenizer":         &s.tokenizer,
		"dataset-name":      &s.datasetName,
		"dataset-path":      &s.datasetPath,
	}
	if dst, ok := strs[o.name]; ok {
		if v, ok := one(); ok {
			*dst = v
		}
		return
	}
	switch o.name {
	case "backend", "endpoint-type":
		if v, ok := one(); ok {
			s.backend, s.backendArg = v, o.text()
		}
	case "dataset": // benchmark_serving.py's old spelling of a ShareGPT path
		if v, ok := one(); ok {
			s.datasetName, s.datasetPath = "sharegpt", v
		}
	case "num-prompts":
		integer(1, &s.numPrompts)
	case "input-len":
		integer(1, &s.inputLen)
	case "output-len":
		integer(1, &s.outputLen)
	case "insecure":
		if switch0() {
			s.insecure = true
		}
	case "request-rate":
		if v, ok := one(); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil && f > 0 && !isInf(v) {
				s.rate = v
			} else if isInf(v) {
				s.rate = "inf"
			} else {
				s.skip(o, fmt.Sprintf(`want a number of requests per second above 0, or inf, got %q`, v))
			}
		}
	case "burstiness":
		if v, ok := one(); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil && f > 0 {
				s.burstiness = f
			} else {
				s.skip(o, fmt.Sprintf("want a number above 0, got %q", v))
			}
		}
	case "max-concurrency":
		integer(1, &s.maxConcurrency)
	case "seed":
		if v, ok := one(); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				s.skip(o, fmt.Sprintf("want a whole number, got %q", v))
				return
			}
			s.seed = &n
		}
	case "ignore-eos":
		if switch0() {
			s.ignoreEOS = true
		}
	case "goodput":
		s.goodputs(o)
	case "temperature", "top-p", "min-p", "repetition-penalty", "frequency-penalty", "presence-penalty":
		if v, ok := one(); ok {
			if _, err := strconv.ParseFloat(v, 64); err != nil {
				s.skip(o, fmt.Sprintf("want a number, got %q", v))
				return
			}
			s.extraBody = append(s.extraBody, [2]string{strings.ReplaceAll(o.name, "-", "_"), v})
		}
	case "top-k", "logprobs":
		if v, ok := one(); ok {
			if _, err := strconv.ParseInt(v, 10, 64); err != nil {
				s.skip(o, fmt.Sprintf("want a whole number, got %q", v))
				return
			}
			s.extraBody = append(s.extraBody, [2]string{strings.ReplaceAll(o.name, "-", "_"), v})
		}
	case "header":
		for _, kv := range o.vals {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				s.skip(o, fmt.Sprintf("want KEY=VALUE, got %q", kv))
				continue
			}
			s.headers = append(s.headers, [2]string{k, v})
			if credential(k) {
				s.out = append(s.out, Untranslated{Arg: "--header " + k + "=<redacted>", Same: true,
					Reason: fmt.Sprintf("a credential is not written into the file: the scenario reads it from $%s", envName(k))})
			}
		}
	case "num-warmups":
		integer(0, &s.warmups)
	case "sharegpt-output-len", "random-input-len", "random-output-len", "random-range-ratio",
		"random-prefix-len", "custom-output-len":
		s.datasetOpts = append(s.datasetOpts, o)
	case "no-oversample":
		if switch0() {
			s.noOversample = true
		}
	case "disable-shuffle":
		if switch0() {
			s.disableShuffle = true
		}
	case "percentile-metrics":
		if v, ok := one(); ok {
			s.percentileMetrics = nil
			for _, m := range strings.Split(v, ",") {
				m = strings.TrimSpace(m)
				switch known := metrics.VLLMPercentileMetrics(); {
				case slices.Contains(known, m):
					s.percentileMetrics = append(s.percentileMetrics, m)
				default:
					s.out = append(s.out, Untranslated{Arg: "--percentile-metrics " + m, Reason: "llmload's percentile_metrics are " + strings.Join(known, ", ")})
				}
			}
		}
	case "metric-percentiles":
		if v, ok := one(); ok {
			s.percentiles = nil
			for _, p := range strings.Split(v, ",") {
				p = strings.TrimSpace(p)
				if f, err := strconv.ParseFloat(p, 64); err != nil || f < 0 || f > 100 {
					s.out = append(s.out, Untranslated{Arg: "--metric-percentiles " + p, Reason: "a percentile is a number from 0 to 100"})
					continue
				}
				s.percentiles = append(s.percentiles, p)
			}
		}
	case "result-filename":
		if v, ok := one(); ok {
			if v == "" || strings.ContainsAny(v, `/\`) {
				s.note(o, "llmload's result_filename is a file name; the directory is llmload run -out DIR")
				return
			}
			s.resultFilename = v
		}
	case "save-detailed":
		if switch0() {
			s.saveDetailed = true
		}
	case "custom-skip-chat-template", "skip-chat-template":
		if switch0() {
			s.skipChatTemplate = true
		}
	default:
		if dataset := familyDataset(o.name); dataset != "" {
			s.datasetOpts = append(s.datasetOpts, o) // judged once the dataset is known
			return
		}
		if _, same := sameReasons[o.name]; same {
			s.note(o, sameReasons[o.name])
			return
		}
		s.skip(o, reasonFor(o.name))
	}
}

func isInf(v string) bool {
	v = strings.ToLower(v)
	return v == "inf" || v == "+inf" || v == "infinity"
}

// sameReasons explains the options llmload does not translate without
// which the benchmark is the same: where and how vLLM writes its output,
// and what only vLLM's own client needs.
var sameReasons = map[string]string{
	"save-result":             "llmload always writes the result JSON: llmload run -out DIR writes DIR/<scenario>.json (default llmload-results/)",
	"result-dir":              "a run flag in llmload: llmload run -out DIR",
	"append-result":           "llmload has no equivalent: each run writes its own result file",
	"metadata":                "llmload has no equivalent yet: the result JSON records the resolved scenario instead",
	"label":                   "llmload has no equivalent: results are named after the scenario",
	"disable-tqdm":            "a run flag in llmload: llmload run -quiet",
	"plot-timeline":           "llmload's plots are llmload run -html FILE",
	"plot-dataset-stats":      "llmload's plots are llmload run -html FILE; llmload plan prints the dataset's lengths",
	"timeline-itl-thresholds": "llmload's plots are llmload run -html FILE",
	"request-id-prefix":       "llmload names requests itself; the requests file holds each one",
	"trust-remote-code":       "llmload runs no model code; nothing to trust",
	"tokenizer-mode":          "llmload reads a tokenizer.json (or asks the server); it has no tokenizer modes",
	"ready-check-timeout-sec": "llmload does not wait for the server to come up: start the run once it answers",
	"no-stream":               "llmload reads dataset files whole; there is no streaming mode to turn off",
}

// reasons explains the options llmload knows but does not translate, which
// change the benchmark.
var reasons = map[string]string{
	"profile":             "llmload does not drive vLLM's profiler",
	"use-beam-search":     "llmload has no equivalent: add the server's beam-search fields to extra_body",
	"best-of":             "llmload has no equivalent: add best_of to extra_body",
	"ramp-up-strategy":    "llmload has no request-rate ramp for open loops yet (closed_loop stages ramp users)",
	"ramp-up-start-rps":   "llmload has no request-rate ramp for open loops yet (closed_loop stages ramp users)",
	"ramp-up-end-rps":     "llmload has no request-rate ramp for open loops yet (closed_loop stages ramp users)",
	"extra-body":          "not translated yet: copy its fields into the target's extra_body",
	"help":                "prints vLLM's help and runs no benchmark",
	"probe-request-rate":  "llmload sends no probe requests beside the load",
	"self-timed":          "applies to vLLM's timed_trace dataset: llmload replays traces with a replay block",
	"no-self-timed":       "applies to vLLM's timed_trace dataset: llmload replays traces with a replay block",
	"skip-tokenizer-init": "llmload counts tokens as the dataset's tokenizer says; it has no switch to skip it",
}

func reasonFor(name string) string {
	if r, ok := reasons[name]; ok {
		return r
	}
	if strings.HasPrefix(name, "-") && !strings.HasPrefix(name, "--") {
		return "one dash: vLLM's benchmark options take two (--model), and it has none of that name"
	}
	if strings.HasPrefix(name, "lora-") || name == "chat-template-kwargs" {
		return "belongs to a feature llmload does not have"
	}
	return "unknown option: not one of vLLM's benchmark options that llmload knows"
}

// familyDataset is the dataset (vLLM's --dataset-name) whose options start
// as name does ("hf" for --hf-split), or "" for an option of no dataset
// llmload lacks.
func familyDataset(name string) string {
	for _, f := range [][2]string{{"hf-", "hf"}, {"blazedit-", "hf"}, {"sonnet-", "sonnet"}, {"burstgpt-", "burstgpt"},
		{"random-mm-", "random-mm"}, {"prefix-repetition-", "prefix_repetition"}, {"spec-bench-", "spec_bench"},
		{"random-batch-size", "random-rerank"}, {"no-reranker", "random-rerank"}} {
		if strings.HasPrefix(name, f[0]) {
			return f[1]
		}
	}
	return ""
}

// goodputs reads --goodput ttft:500 tpot:50 (milliseconds).
func (s *settings) goodputs(o option) {
	if len(o.vals) == 0 {
		s.skip(o, "takes one or more KEY:MILLISECONDS values")
		return
	}
	for _, kv := range o.vals {
		k, v, ok := strings.Cut(kv, ":")
		f, err := strconv.ParseFloat(v, 64)
		switch {
		case !ok || err != nil || f < 0:
			s.out = append(s.out, Untranslated{Arg: "--goodput " + kv, Reason: "want KEY:MILLISECONDS, as ttft:500"})
		case k != "ttft" && k != "tpot" && k != "e2el":
			s.out = append(s.out, Untranslated{Arg: "--goodput " + kv, Reason: fmt.Sprintf("vLLM's goodput keys are ttft, tpot and e2el, not %q", k)})
		default:
			s.goodput = append(s.goodput, [2]string{k, v + "ms"})
		}
	}
}

// checkDataset applies the dataset-specific options that fit the dataset
// and lists the others.
func (s *settings) checkDataset() {
	fits := map[string]string{
		"sharegpt-output-len": "sharegpt", "random-input-len": "random", "random-output-len": "random",
		"random-range-ratio": "random", "random-prefix-len": "random", "custom-output-len": "custom",
	}
	for _, o := range s.datasetOpts {
		if d := familyDataset(o.name); d != "" {
			// An option of a dataset llmload does not read: vLLM ignores
			// it with another dataset; with its own, the dataset change is
			// listed already, and this goes with it.
			reason := "belongs to a dataset llmload does not read"
			if d != s.datasetName {
				s.note(o, fmt.Sprintf("applies to --dataset-name %s, and the command uses %s (vLLM ignores it too)", d, s.datasetName))
			} else {
				s.skip(o, reason)
			}
			continue
		}
		if fits[o.name] != s.datasetName {
			s.note(o, fmt.Sprintf("applies to --dataset-name %s, and the command uses %s (vLLM ignores it too)", fits[o.name], s.datasetName))
			continue
		}
		if len(o.vals) != 1 {
			s.skip(o, fmt.Sprintf("takes one value, got %d", len(o.vals)))
			continue
		}
		v := o.vals[0]
		if o.name == "random-range-ratio" {
			if f, err := strconv.ParseFloat(v, 64); err != nil || f < 0 || f >= 1 {
				s.skip(o, fmt.Sprintf("llmload's range_ratio is in [0, 1) (lengths uniform in [L(1-r), L(1+r)], as vLLM 0.9 and later), got %q", v))
			} else {
				s.randomRangeRatio = v
			}
			continue
		}
		min := int64(1)
		if o.name == "random-prefix-len" {
			min = 0
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < min {
			s.skip(o, fmt.Sprintf("want a whole number of at least %d, got %q", min, v))
			continue
		}
		switch o.name {
		case "sharegpt-output-len":
			s.sharegptOutputLen = n
		case "random-input-len":
			s.randomInputLen = n
		case "random-output-len":
			s.randomOutputLen = n
		case "random-prefix-len":
			s.randomPrefixLen = n
		case "custom-output-len":
			s.customOutputLen = n
		}
	}
	// vllm bench serve's --input-len and --output-len override the
	// dataset's own lengths, wherever they stand.
	if s.inputLen > 0 {
		s.randomInputLen = s.inputLen
	}
	if s.outputLen > 0 {
		s.randomOutputLen, s.sharegptOutputLen, s.customOutputLen = s.outputLen, s.outputLen, s.outputLen
	}
}

// api returns llmload's api for the backend and endpoint (a name of the
// API table, internal/apis: vLLM's backends speak its completions and
// chat APIs), and the base URL (the endpoint's URL without the API's
// path).
func (s *settings) api() (api, base string) {
	switch s.backend {
	case "openai-chat":
		api = apis.Chat
	case "vllm", "openai", "sglang", "lmdeploy", "scalellm", "llama.cpp":
		// These use vLLM's OpenAI completions client.
		api = apis.Completions
	default:
		s.out = append(s.out, Untranslated{Arg: s.backendArg, Reason: fmt.Sprintf("llmload speaks the OpenAI completions (%q) and chat (%q) APIs only; the scenario uses %q", apis.Completions, apis.Chat, apis.Completions)})
		api = apis.Completions
	}
	endpoint := s.endpoint
	if endpoint == "" {
		endpoint = apis.PathCompletions
		if api == apis.Chat {
			endpoint = apis.PathChat
		}
	}
	root := s.baseURL
	if root == "" {
		root = "http://" + s.host + ":" + s.port
	}
	full := strings.TrimRight(root, "/") + "/" + strings.TrimLeft(endpoint, "/")
	switch {
	case strings.HasSuffix(full, apis.PathChat):
		base = strings.TrimSuffix(full, apis.PathChat)
		if api != apis.Chat {
			s.out = append(s.out, Untranslated{Arg: "--endpoint " + endpoint, Reason: fmt.Sprintf("the chat endpoint needs the chat API: the scenario uses api = %q (vLLM would send a completions body there)", apis.Chat)})
			api = apis.Chat
		}
	case strings.HasSuffix(full, apis.PathCompletions):
		base = strings.TrimSuffix(full, apis.PathCompletions)
		if api == apis.Chat {
			s.out = append(s.out, Untranslated{Arg: "--endpoint " + endpoint, Reason: fmt.Sprintf("%s needs %s: the scenario uses api = %q on that path", apis.Chat, apis.PathChat, apis.Chat)})
		}
	default:
		base = strings.TrimSuffix(root, "/")
		s.out = append(s.out, Untranslated{Arg: "--endpoint " + endpoint, Reason: fmt.Sprintf("llmload posts to <base_url>%s or %s; the scenario uses %s", apis.PathCompletions, apis.PathChat, base)})
	}
	if u, err := url.Parse(base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		s.out = append(s.out, Untranslated{Arg: "--base-url " + root, Same: true, Reason: fmt.Sprintf("not an http(s) URL; the scenario uses it as written (%q) and llmload validate will say what is wrong", base)})
	}
	return api, base
}

// file writes the scenario.
func (s *settings) file(args []string) ([]byte, error) {
	api, base := s.api()
	f := hclwrite.NewEmptyFile()
	root := f.Body()
	model := s.model
	if s.servedName != "" {
		model = s.servedName // what vLLM puts in the request's model field
	}

	// The server and the model are variables, so that the scenario runs
	// against another server with -var base_url=... -var model=...
	for _, v := range [][3]string{
		{"base_url", "The server: http(s)://host:port (the command's), or sim://<profile> for the built-in simulator.", base},
		{"model", "The model name sent in every request (the command's).", model},
	} {
		b := root.AppendNewBlock("variable", []string{v[0]}).Body()
		b.SetAttributeValue("description", cty.StringVal(v[1]))
		b.SetAttributeValue("default", cty.StringVal(v[2]))
		root.AppendNewline()
	}

	// target
	t := root.AppendNewBlock("target", []string{TargetName}).Body()
	t.SetAttributeTraversal("base_url", hcl.Traversal{hcl.TraverseRoot{Name: "var"}, hcl.TraverseAttr{Name: "base_url"}})
	t.SetAttributeValue("api", cty.StringVal(api))
	t.SetAttributeTraversal("model", hcl.Traversal{hcl.TraverseRoot{Name: "var"}, hcl.TraverseAttr{Name: "model"}})
	if s.insecure {
		comment(t, "vLLM's --insecure: the server's TLS certificate is not verified.")
		t.SetAttributeValue("insecure_skip_verify", cty.True)
	}
	comment(t, "vLLM's client sends $OPENAI_API_KEY as a Bearer token when it is set.")
	t.SetAttributeRaw("api_key", hclwrite.TokensForFunctionCall("env",
		hclwrite.TokensForValue(cty.StringVal("OPENAI_API_KEY")), hclwrite.TokensForValue(cty.StringVal(""))))
	if len(s.headers) > 0 {
		var attrs []hclwrite.ObjectAttrTokens
		for _, h := range dedupe(s.headers) {
			value := hclwrite.TokensForValue(cty.StringVal(h[1]))
			if credential(h[0]) {
				// A secret stays out of the file: it is read from the
				// environment, as api_key is.
				name := envName(h[0])
				value = hclwrite.TokensForFunctionCall("env",
					hclwrite.TokensForValue(cty.StringVal(name)), hclwrite.TokensForValue(cty.StringVal("")))
			}
			attrs = append(attrs, hclwrite.ObjectAttrTokens{Name: hclwrite.TokensForValue(cty.StringVal(h[0])), Value: value})
		}
		t.SetAttributeRaw("headers", hclwrite.TokensForObject(attrs))
	}
	switch {
	case s.ignoreEOS:
		t.SetAttributeValue("ignore_eos", cty.True)
	case s.datasetName == "random":
		comment(t, "vLLM's benchmark ignores EOS on random datasets (--ignore-eos is implied).")
		t.SetAttributeValue("ignore_eos", cty.True)
	}
	if len(s.extraBody) > 0 {
		var attrs []hclwrite.ObjectAttrTokens
		for _, kv := range dedupe(s.extraBody) {
			n, err := cty.ParseNumberVal(kv[1])
			if err != nil {
				return nil, err
			}
			attrs = append(attrs, hclwrite.ObjectAttrTokens{Name: hclwrite.TokensForIdentifier(kv[0]), Value: hclwrite.TokensForValue(n)})
		}
		t.SetAttributeRaw("extra_body", hclwrite.TokensForObject(attrs))
	}
	root.AppendNewline()

	// dataset
	dsName := s.datasetBlockName()
	d := root.AppendNewBlock("dataset", []string{dsName}).Body()
	s.datasetSource(d)
	tokenizerRef := s.tokenizer
	if tokenizerRef == "" {
		tokenizerRef = s.model
	}
	if strings.HasSuffix(tokenizerRef, "tokenizer.json") {
		d.SetAttributeValue("tokenizer", cty.StringVal(tokenizerRef))
	} else {
		comment(d, fmt.Sprintf("vLLM counts tokens with the tokenizer of %s.", tokenizerRef))
		comment(d, "\"server\" asks the target's /tokenize, which uses the same one;")
		comment(d, "a path to a tokenizer.json works offline.")
		d.SetAttributeValue("tokenizer", cty.StringVal("server"))
	}
	root.AppendNewline()

	// scenario
	sc := root.AppendNewBlock("scenario", []string{ScenarioName}).Body()
	sc.SetAttributeTraversal("target", hcl.Traversal{hcl.TraverseRoot{Name: "target"}, hcl.TraverseAttr{Name: TargetName}})
	sc.SetAttributeTraversal("dataset", hcl.Traversal{hcl.TraverseRoot{Name: "dataset"}, hcl.TraverseAttr{Name: dsName}})
	if s.seed != nil {
		comment(sc, "vLLM's --seed seeds both the prompts and the arrival times.")
		sc.SetAttributeValue("seed", cty.NumberIntVal(*s.seed))
	}
	sc.SetAttributeValue("requests", cty.NumberIntVal(s.numPrompts))
	if len(s.percentiles) > 0 {
		var toks hclwrite.Tokens
		var elems []hclwrite.Tokens
		for _, p := range s.percentiles {
			n, err := cty.ParseNumberVal(p)
			if err != nil {
				return nil, err
			}
			elems = append(elems, hclwrite.TokensForValue(n))
		}
		toks = hclwrite.TokensForTuple(elems)
		sc.SetAttributeRaw("percentiles", toks)
	}
	if len(s.percentileMetrics) > 0 {
		var vals []cty.Value
		for _, m := range s.percentileMetrics {
			vals = append(vals, cty.StringVal(m))
		}
		sc.SetAttributeValue("percentile_metrics", cty.TupleVal(vals))
	}
	if s.resultFilename != "" {
		sc.SetAttributeValue("result_filename", cty.StringVal(s.resultFilename))
	}
	if s.saveDetailed {
		sc.SetAttributeValue("save_detailed", cty.True)
	}
	sc.AppendNewline()
	ol := sc.AppendNewBlock("open_loop", nil).Body()
	if s.rate == "inf" {
		ol.SetAttributeValue("rate", cty.StringVal("inf"))
	} else {
		n, err := cty.ParseNumberVal(s.rate)
		if err != nil {
			return nil, err
		}
		ol.SetAttributeValue("rate", n)
	}
	if s.burstiness != 1 {
		ol.SetAttributeValue("arrival", cty.StringVal("gamma"))
		ol.SetAttributeValue("burstiness", cty.NumberFloatVal(s.burstiness))
	} else {
		ol.SetAttributeValue("arrival", cty.StringVal("poisson"))
	}
	if s.maxConcurrency > 0 {
		ol.SetAttributeValue("max_concurrency", cty.NumberIntVal(s.maxConcurrency))
	}
	if s.warmups > 0 {
		sc.AppendNewline()
		w := sc.AppendNewBlock("warmup", nil).Body()
		w.SetAttributeValue("requests", cty.NumberIntVal(s.warmups))
	}
	if len(s.goodput) > 0 {
		sc.AppendNewline()
		g := sc.AppendNewBlock("goodput", nil).Body()
		for _, kv := range dedupe(s.goodput) {
			g.SetAttributeValue(kv[0], cty.StringVal(kv[1]))
		}
	}

	var b strings.Builder
	b.WriteString("# Translated by llmload import vllm from:\n#\n")
	for _, line := range commandLines(args) {
		b.WriteString("#   " + line + "\n")
	}
	for _, part := range []struct {
		same  bool
		title string
	}{
		{false, "Not translated, so this scenario is NOT the command's benchmark (llmload import exits 1 unless -lenient)"},
		{true, "Not translated, without effect on the benchmark"},
	} {
		title := "#\n# " + part.title + ":\n#\n"
		for _, u := range s.out {
			if u.Same == part.same {
				b.WriteString(title + "#   " + u.String() + "\n")
				title = ""
			}
		}
	}
	b.WriteString("\n")
	b.Write(hclwrite.Format(f.Bytes()))
	return []byte(b.String()), nil
}

func (s *settings) datasetBlockName() string {
	switch s.datasetName {
	case "sharegpt", "random", "custom":
		return s.datasetName
	}
	return "random"
}

// datasetSource writes the dataset's source block.
func (s *settings) datasetSource(d *hclwrite.Body) {
	name := s.datasetName
	switch name {
	case "sharegpt", "custom":
	case "random":
	default:
		s.out = append(s.out, Untranslated{Arg: "--dataset-name " + name,
			Reason: "llmload reads sharegpt, random and custom (JSONL) datasets; the scenario uses a random dataset in its place"})
		name = "random"
	}
	path := s.datasetPath
	if (name == "sharegpt" || name == "custom") && path == "" {
		path = "ShareGPT_V3_unfiltered_cleaned_split.json"
		if name == "custom" {
			path = "data.jsonl"
		}
		s.out = append(s.out, Untranslated{Arg: "--dataset-name " + name, Reason: fmt.Sprintf("the command names no --dataset-path; the scenario reads %q", path)})
	}
	if name == "random" && s.datasetPath != "" {
		reason := "a random dataset reads no file"
		if s.datasetName != "random" {
			reason = "the file of the " + s.datasetName + " dataset, which llmload does not read"
		}
		// With random, vLLM reads no file either; with another dataset,
		// the dataset's change is listed already.
		s.out = append(s.out, Untranslated{Arg: "--dataset-path " + s.datasetPath, Reason: reason, Same: true})
	}
	if s.disableShuffle && name != "custom" {
		s.out = append(s.out, Untranslated{Arg: "--disable-shuffle", Reason: "llmload samples " + name + " datasets in vLLM's shuffled order; only custom (JSONL) datasets can keep the file's order"})
	}
	if s.noOversample && name != "sharegpt" {
		s.out = append(s.out, Untranslated{Arg: "--no-oversample", Reason: "applies to sharegpt datasets only (vLLM ignores it too)", Same: true})
	}
	switch name {
	case "sharegpt":
		b := d.AppendNewBlock("sharegpt", nil).Body()
		b.SetAttributeValue("path", cty.StringVal(path))
		b.SetAttributeValue("num_prompts", cty.NumberIntVal(s.numPrompts))
		s.datasetSeed(b)
		if s.sharegptOutputLen > 0 {
			b.SetAttributeValue("output_len", cty.NumberIntVal(s.sharegptOutputLen))
		}
		if s.noOversample {
			b.SetAttributeValue("oversample", cty.False)
		}
	case "random":
		b := d.AppendNewBlock("random", nil).Body()
		b.SetAttributeValue("input_len", cty.NumberIntVal(s.randomInputLen))
		b.SetAttributeValue("output_len", cty.NumberIntVal(s.randomOutputLen))
		if s.randomRangeRatio != "" {
			n, _ := cty.ParseNumberVal(s.randomRangeRatio)
			b.SetAttributeValue("range_ratio", n)
		}
		if s.randomPrefixLen > 0 {
			b.SetAttributeValue("prefix_len", cty.NumberIntVal(s.randomPrefixLen))
		}
		b.SetAttributeValue("num_prompts", cty.NumberIntVal(s.numPrompts))
		s.datasetSeed(b)
	case "custom":
		b := d.AppendNewBlock("jsonl", nil).Body()
		b.SetAttributeValue("path", cty.StringVal(path))
		b.SetAttributeValue("output_len", cty.NumberIntVal(s.customOutputLen))
		b.SetAttributeValue("num_prompts", cty.NumberIntVal(s.numPrompts))
		s.datasetSeed(b)
		if s.disableShuffle {
			b.SetAttributeValue("shuffle", cty.False)
		}
		if !s.skipChatTemplate && s.backend != "openai-chat" {
			s.out = append(s.out, Untranslated{Arg: "--dataset-name custom", Reason: "vLLM applies the model's chat template to each prompt unless --custom-skip-chat-template is given; llmload sends prompts as written"})
		}
	}
}

// datasetSeed leaves the dataset's seed to the scenario: one seed samples
// the prompts and draws the arrivals, as vLLM's --seed does.
func (s *settings) datasetSeed(*hclwrite.Body) {}

// comment appends a whole-line comment to a body.
func comment(b *hclwrite.Body, text string) {
	b.AppendUnstructuredTokens(hclwrite.Tokens{{Type: hclsyntax.TokenComment, Bytes: []byte("# " + text + "\n")}})
}

// dedupe keeps the last value of each key, in the order keys first appear
// (argparse keeps the last of a repeated option).
func dedupe(kvs [][2]string) [][2]string {
	last := map[string]string{}
	var order []string
	for _, kv := range kvs {
		if _, ok := last[kv[0]]; !ok {
			order = append(order, kv[0])
		}
		last[kv[0]] = kv[1]
	}
	out := make([][2]string, len(order))
	for i, k := range order {
		out[i] = [2]string{k, last[k]}
	}
	return out
}

// commandLines renders the command one option per line, as a shell
// continuation, with header values that look like credentials redacted.
func commandLines(args []string) []string {
	program, opts, stray, _ := parse(args)
	var lines []string
	head := strings.Join(quoteAll(program), " ")
	for _, o := range opts {
		if o.name == "header" {
			o.vals = redactHeaders(o.vals)
		}
		lines = append(lines, o.text())
	}
	lines = append(lines, quoteAll(stray)...)
	if head != "" {
		lines = append([]string{head}, lines...)
	}
	for i := range lines {
		if i > 0 {
			lines[i] = "  " + lines[i]
		}
		if i < len(lines)-1 {
			lines[i] += " \\"
		}
	}
	return lines
}

func quoteAll(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = shellQuote(w)
	}
	return out
}

func redactHeaders(kvs []string) []string {
	out := make([]string, len(kvs))
	for i, kv := range kvs {
		if k, _, ok := strings.Cut(kv, "="); ok && credential(k) {
			kv = k + "=<redacted>"
		}
		out[i] = kv
	}
	return out
}

// credential reports whether a header's value is a secret, by the rule
// result files use to redact headers.
func credential(header string) bool {
	h := strings.ToLower(header)
	for _, w := range []string{"authorization", "key", "token", "secret", "cookie", "password"} {
		if strings.Contains(h, w) {
			return true
		}
	}
	return false
}

// envName is the environment variable a credential header is read from:
// X-Api-Key -> X_API_KEY.
func envName(header string) string {
	return strings.ToUpper(strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, header))
}
