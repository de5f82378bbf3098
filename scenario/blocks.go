package scenario

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"golang.org/x/net/http/httpguts"

	"github.com/llmload/llmload/internal/apis"
	"github.com/llmload/llmload/internal/safehttp"
	"github.com/llmload/llmload/internal/secret"
)

var targetSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "base_url", Required: true}, {Name: "api"}, {Name: "model"}, {Name: "api_key"},
		{Name: "headers"}, {Name: "timeout"}, {Name: "stall_timeout"}, {Name: "ignore_eos"},
		{Name: "extra_body"}, {Name: "http2"}, {Name: "ca_file"}, {Name: "insecure_skip_verify"},
		{Name: "metrics_url"}, {Name: "scrape_interval"}, {Name: "scrape_metrics"}, {Name: "sensitive_headers"},
		{Name: "scrape_cooldown"},
		{Name: "new_connection_per_request"}, {Name: "prewarm_connections"}, {Name: "follow_redirects"},
		{Name: "trace_context"}, {Name: "prompt_cache"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "sim"}},
}

// reservedBody are the request body fields extra_body may not set, with
// why: what is measured (the prompt, the model, streaming and its usage
// chunk) and what shapes the workload behind llmload's back (the output's
// length and the number of answers).
var reservedBody = []struct{ key, why string }{
	{"model", "the prompt, the model and streaming are what the run measures (set the model with model, the prompts with a dataset)"},
	{"prompt", "the prompt, the model and streaming are what the run measures (set the model with model, the prompts with a dataset)"},
	{"messages", "the prompt, the model and streaming are what the run measures (set the model with model, the prompts with a dataset)"},
	{"input", "the prompt, the model and streaming are what the run measures (set the model with model, the prompts with a dataset)"},
	{"stream", "the prompt, the model and streaming are what the run measures (set the model with model, the prompts with a dataset)"},
	{"stream_options", "the prompt, the model and streaming are what the run measures (set the model with model, the prompts with a dataset)"},
	{"max_tokens", "each request's max_tokens is its dataset output length, which the results record (set the dataset's output_len)"},
	{"max_completion_tokens", "each request's max_tokens is its dataset output length, which the results record (set the dataset's output_len)"},
	{"n", "one answer per request is what is timed: several choices would stream as one"},
	{"best_of", "one answer per request is what is timed: several choices would stream as one"},
	{"ignore_eos", "the target's ignore_eos sets it, and the results judge truncation by it (set ignore_eos = true on the target)"},
}

func (l *loader) decodeTarget(d dec, b *hcl.Block) {
	name := b.Labels[0]
	if !l.checkName(b) {
		return
	}
	if first := l.targets[name]; first != nil {
		l.duplicate(b, first.DeclRange)
		return
	}
	t := &Target{
		Name:         name,
		API:          DefaultAPI,
		Timeout:      DefaultTimeout,
		StallTimeout: DefaultStallTimeout,
		DeclRange:    b.DefRange,

		MetricsURLDefault: true,
		ScrapeInterval:    DefaultScrapeInterval,
	}
	l.targets[name] = t
	l.cfg.Targets = append(l.cfg.Targets, t)

	content, diags := b.Body.Content(targetSchema)
	l.diags = append(l.diags, diags...)
	a := content.Attributes
	// Only a value that decoded is checked: an expression that did not
	// (a syntax error, a wrong type) has its own diagnostic already.
	if v, attr, ok := d.value(a, "base_url", cty.String); ok {
		t.BaseURL = v.AsString()
		if err := checkBaseURL(t.BaseURL); err != nil {
			d.invalid(attr, "%s", err)
		}
	}
	d.oneOf(a, "api", &t.API, apis.Names()...)
	d.str(a, "model", &t.Model)
	d.str(a, "api_key", &t.APIKey)
	if attr := d.stringMap(a, "headers", &t.Headers); attr != nil {
		for k, v := range t.Headers {
			switch {
			case !httpguts.ValidHeaderFieldName(k):
				d.invalid(attr, "headers: %q is not a valid header name (letters, digits and !#$%%&'*+-.^_`|~ only).", k)
			case !httpguts.ValidHeaderFieldValue(v):
				d.invalid(attr, "headers: the value of %q holds a control character (a line break, say); a header value cannot.", k)
			}
		}
	}
	d.stringList(a, "sensitive_headers", &t.SensitiveHeaders)
	d.duration(a, "timeout", &t.Timeout, true)
	d.duration(a, "stall_timeout", &t.StallTimeout, true)
	d.boolean(a, "ignore_eos", &t.IgnoreEOS)
	if attr := d.jsonObject(a, "extra_body", &t.ExtraBody); attr != nil {
		for _, r := range reservedBody {
			if _, ok := t.ExtraBody[r.key]; ok {
				d.invalid(attr, "extra_body sets %q, which llmload sets itself: %s.", r.key, r.why)
			}
		}
	}
	d.oneOf(a, "prompt_cache", &t.PromptCache, PromptCacheShared, PromptCacheIsolate, PromptCacheOff)
	if t.PromptCache == PromptCacheShared {
		t.PromptCache = ""
	}
	if t.PromptCache != "" {
		for _, k := range []string{"cache_salt", "cache_prompt"} {
			if _, ok := t.ExtraBody[k]; ok {
				d.invalid(a["prompt_cache"], "prompt_cache = %q sets %q where the engine takes it, and extra_body sets it too: keep one of them.", t.PromptCache, k)
			}
		}
	}
	d.boolean(a, "http2", &t.HTTP2)
	if attr := d.str(a, "ca_file", &t.CAFile); attr != nil {
		t.CAFile = resolvePath(filepath.Dir(b.DefRange.Filename), t.CAFile)
		t.files = append(t.files, fileRef{t.CAFile, attr.Expr, fmt.Sprintf("the CA file (PEM) of target %q", name)})
	}
	d.boolean(a, "insecure_skip_verify", &t.InsecureSkipVerify)
	d.boolean(a, "new_connection_per_request", &t.NewConnectionPerRequest)
	d.oneOf(a, "follow_redirects", &t.FollowRedirects, safehttp.Policies...)
	traceContext := true
	d.boolean(a, "trace_context", &traceContext)
	t.NoTraceContext = !traceContext
	if attr := d.integer(a, "prewarm_connections", &t.PrewarmConnections, 0); attr != nil && t.NewConnectionPerRequest && t.PrewarmConnections > 0 {
		d.invalid(attr, "prewarm_connections opens connections for the requests to reuse, and new_connection_per_request = true reuses none: set one of them.")
	}
	if v, attr, ok := d.value(a, "metrics_url", cty.String); ok { // null: the default
		t.MetricsURL, t.MetricsURLDefault = v.AsString(), false
		if t.MetricsURL != "" {
			if err := checkBaseURL(t.MetricsURL); err != nil || strings.HasPrefix(t.MetricsURL, "sim://") {
				d.invalid(attr, "metrics_url is the server's Prometheus endpoint, http(s)://host[:port]/path, or \"\" to scrape nothing; not %q.", t.MetricsURL)
			}
		}
	}
	d.duration(a, "scrape_interval", &t.ScrapeInterval, true)
	d.duration(a, "scrape_cooldown", &t.ScrapeCooldown, false)
	if v, attr, ok := d.value(a, "scrape_metrics", cty.List(cty.String)); ok {
		for _, e := range v.AsValueSlice() {
			if e.IsNull() || e.AsString() == "" {
				d.invalid(attr, "scrape_metrics lists metric names, such as \"vllm:request_queue_time_seconds\"; an empty name is not one.")
				continue
			}
			t.ScrapeMetrics = append(t.ScrapeMetrics, e.AsString())
		}
	}

	if _, ok := a["model"]; !ok && !t.IsSim() && t.BaseURL != "" {
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Missing required argument",
			Detail:   `The argument "model" is required for an http(s) target: servers route requests by model name.`,
			Subject:  b.Body.MissingItemRange().Ptr(),
		})
	}
	if sim := atMostOne(&l.diags, content.Blocks.OfType("sim"), "a target"); sim != nil {
		l.decodeSim(d, t, sim)
		if t.BaseURL != "" && !t.IsSim() {
			// The overrides of a simulator this target does not use: an
			// example written for the simulator, pointed at a real server
			// with -var base_url=..., runs as it is, and says so.
			l.diags = append(l.diags, &hcl.Diagnostic{
				Severity: hcl.DiagWarning,
				Summary:  "Simulator overrides ignored",
				Detail:   fmt.Sprintf("Target %q points at %s, not the built-in simulator: its sim block applies only to a base_url of the form sim://<profile>, and is ignored.", t.Name, secret.MaskURLPasswords(t.BaseURL)),
				Subject:  sim.DefRange.Ptr(),
			})
			t.Sim, t.SimRanges = nil, nil
		}
	}
}

// checkBaseURL accepts http(s)://host[:port][/path] and sim://<profile>.
func checkBaseURL(s string) error {
	// The URL may hold a password: every message shows it masked.
	shown := secret.MaskURLPasswords(s)
	if !strings.Contains(s, "://") {
		return fmt.Errorf("base_url must start with http://, https:// or sim://; got %q", shown)
	}
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("base_url %q is not a URL: %v", shown, secret.MaskURLPasswords(err.Error()))
	}
	s = shown
	switch u.Scheme {
	case "sim":
		if u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
			return fmt.Errorf("a simulator base_url is sim://<profile>, such as \"sim://llama3-8b-a100\"; got %q", s)
		}
	case "http", "https":
		if u.Hostname() == "" {
			return fmt.Errorf("base_url %q has no host", s)
		}
		if p := u.Port(); p != "" {
			if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
				return fmt.Errorf("base_url %q has an invalid port", s)
			}
		}
		if u.RawQuery != "" || u.Fragment != "" {
			return fmt.Errorf("base_url %q may not have a query or fragment", s)
		}
	default:
		return fmt.Errorf("base_url must start with http://, https:// or sim://; got %q", s)
	}
	return nil
}

// decodeSim turns the sim block's attributes into strings.
func (l *loader) decodeSim(d dec, t *Target, b *hcl.Block) {
	attrs, diags := b.Body.JustAttributes()
	l.diags = append(l.diags, diags...)
	t.Sim = map[string]string{}
	t.SimRanges = map[string]hcl.Range{}
	for _, attr := range sortedAttrs(attrs) {
		v, ok := d.eval(attr.Expr)
		if !ok {
			continue
		}
		var s string
		switch {
		case v.IsNull():
			continue
		case v.Type() == cty.String:
			s = v.AsString()
		case v.Type() == cty.Bool:
			s = strconv.FormatBool(v.True())
		case v.Type() == cty.Number:
			s = formatNumber(v)
		default:
			d.add(&hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid simulator override",
				Detail:   fmt.Sprintf("A simulator override is a string, number or bool, not %s.", v.Type().FriendlyName()),
				Subject:  attr.Expr.Range().Ptr(),
			})
			continue
		}
		t.Sim[attr.Name] = s
		t.SimRanges[attr.Name] = attr.Expr.Range()
	}
}

// formatNumber writes whole numbers in full and others in shortest form.
func formatNumber(v cty.Value) string {
	bf := v.AsBigFloat()
	if bf.IsInt() {
		return bf.Text('f', 0)
	}
	f, _ := bf.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

var datasetSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "tokenizer"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: KindShareGPT}, {Type: KindRandom}, {Type: KindJSONL}, {Type: KindTrace}},
}

var sharegptSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "path", Required: true}, {Name: "num_prompts"}, {Name: "seed"}, {Name: "output_len"},
		{Name: "min_prompt_tokens"}, {Name: "max_prompt_tokens"}, {Name: "max_total_tokens"}, {Name: "oversample"},
		{Name: "multi_turn"}, {Name: "max_turns"}, {Name: "allow_empty_prompts"},
	},
}

var randomSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "input_len"}, {Name: "output_len"}, {Name: "range_ratio"}, {Name: "prefix_len"},
		{Name: "num_prompts"}, {Name: "seed"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "prefix"}},
}

var traceSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "path", Required: true}, {Name: "format", Required: true}, {Name: "seed"}, {Name: "block_size"},
		{Name: "model"}, {Name: "log_type"}, {Name: "multi_turn"}, {Name: "max_turns"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "prefix"}},
}

var prefixSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "shared_prefix_len", Required: true}, {Name: "num_prefixes", Required: true}},
}

var jsonlSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "path", Required: true}, {Name: "prompt_field"}, {Name: "output_len_field"},
		{Name: "output_len"}, {Name: "num_prompts"}, {Name: "seed"}, {Name: "shuffle"},
		{Name: "multi_turn"}, {Name: "max_turns"},
	},
}

func (l *loader) decodeDataset(d dec, b *hcl.Block) {
	name := b.Labels[0]
	if !l.checkName(b) {
		return
	}
	if first := l.datasets[name]; first != nil {
		l.duplicate(b, first.DeclRange)
		return
	}
	ds := &Dataset{Name: name, DeclRange: b.DefRange}
	l.datasets[name] = ds
	l.cfg.Datasets = append(l.cfg.Datasets, ds)
	dir := filepath.Dir(b.DefRange.Filename)

	content, diags := b.Body.Content(datasetSchema)
	l.diags = append(l.diags, diags...)
	if attr := d.str(content.Attributes, "tokenizer", &ds.Tokenizer); attr != nil && ds.Tokenizer != TokenizerServer {
		if ds.Tokenizer == "" {
			d.invalid(attr, `tokenizer is a path to a tokenizer.json or "server"; leave it out for the approximate tokenizer.`)
		} else {
			ds.Tokenizer = resolvePath(dir, ds.Tokenizer)
			ds.files = append(ds.files, fileRef{ds.Tokenizer, attr.Expr, fmt.Sprintf("the tokenizer.json of dataset %q", name)})
		}
	}

	var src *hcl.Block
	for _, sb := range content.Blocks {
		if src != nil {
			l.diags = append(l.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Conflicting dataset sources",
				Detail:   fmt.Sprintf("A dataset has exactly one source; a %s block was already declared at %s.", src.Type, src.DefRange),
				Subject:  sb.DefRange.Ptr(),
			})
			continue
		}
		src = sb
	}
	if src == nil {
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Missing dataset source",
			Detail:   "A dataset needs one source block: sharegpt, random, jsonl or trace.",
			Subject:  b.DefRange.Ptr(),
		})
		return
	}
	ds.Kind = src.Type
	path := func(attr *hcl.Attribute, p *string, what string) {
		if attr != nil {
			*p = resolvePath(dir, *p)
			ds.files = append(ds.files, fileRef{*p, attr.Expr, fmt.Sprintf("the %s of dataset %q", what, name)})
		}
	}
	switch src.Type {
	case KindShareGPT:
		s := &ShareGPTSource{
			NumPrompts:      DefaultNumPrompts,
			MinPromptTokens: DefaultMinPromptTokens,
			MaxPromptTokens: DefaultMaxPromptTokens,
			MaxTotalTokens:  DefaultMaxTotalTokens,
			Oversample:      true,
		}
		ds.ShareGPT = s
		c, diags := src.Body.Content(sharegptSchema)
		l.diags = append(l.diags, diags...)
		a := c.Attributes
		path(d.str(a, "path", &s.Path), &s.Path, "ShareGPT-format JSON file")
		d.integer(a, "num_prompts", &s.NumPrompts, 1)
		ds.seedSet = d.int64(a, "seed", &s.Seed, minInt64) != nil
		d.integer(a, "output_len", &s.OutputLen, 1)
		d.integer(a, "min_prompt_tokens", &s.MinPromptTokens, 0)
		maxPrompt := d.integer(a, "max_prompt_tokens", &s.MaxPromptTokens, 1)
		d.integer(a, "max_total_tokens", &s.MaxTotalTokens, 1)
		d.boolean(a, "oversample", &s.Oversample)
		s.MultiTurn, s.MaxTurns = l.decodeMultiTurn(d, ds, a)
		if maxPrompt != nil && s.MinPromptTokens > s.MaxPromptTokens {
			d.invalid(maxPrompt, "max_prompt_tokens (%d) is below min_prompt_tokens (%d).", s.MaxPromptTokens, s.MinPromptTokens)
		}
	case KindRandom:
		s := &RandomSource{
			InputLen:   DefaultRandomInputLen,
			OutputLen:  DefaultRandomOutputLen,
			NumPrompts: DefaultNumPrompts,
		}
		ds.Random = s
		c, diags := src.Body.Content(randomSchema)
		l.diags = append(l.diags, diags...)
		a := c.Attributes
		d.integer(a, "input_len", &s.InputLen, 1)
		d.integer(a, "output_len", &s.OutputLen, 1)
		if attr := d.float(a, "range_ratio", &s.RangeRatio); attr != nil && (s.RangeRatio < 0 || s.RangeRatio >= 1) {
			d.invalid(attr, "range_ratio must be in [0, 1), not %g.", s.RangeRatio)
		}
		d.integer(a, "prefix_len", &s.PrefixLen, 0)
		d.integer(a, "num_prompts", &s.NumPrompts, 1)
		ds.seedSet = d.int64(a, "seed", &s.Seed, minInt64) != nil
		s.Prefix = l.decodePrefix(d, c.Blocks)
		if p := s.Prefix; p != nil && p.NumPrefixes > s.NumPrompts {
			d.add(&hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid prefix block",
				Detail:   fmt.Sprintf("num_prefixes (%d) is more than num_prompts (%d): every prefix group needs a prompt.", p.NumPrefixes, s.NumPrompts),
				Subject:  c.Blocks.OfType("prefix")[0].DefRange.Ptr(),
			})
		}
	case KindTrace:
		s := &TraceSource{BlockSize: DefaultBlockSize}
		ds.Trace = s
		c, diags := src.Body.Content(traceSchema)
		l.diags = append(l.diags, diags...)
		a := c.Attributes
		path(d.str(a, "path", &s.Path), &s.Path, "trace file")
		d.oneOf(a, "format", &s.Format, TraceMooncake, TraceAzure, TraceBurstGPT)
		ds.seedSet = d.int64(a, "seed", &s.Seed, minInt64) != nil
		d.integer(a, "block_size", &s.BlockSize, 1)
		for _, f := range []struct {
			name string
			dst  *string
		}{{"model", &s.Model}, {"log_type", &s.LogType}} {
			if attr := d.str(a, f.name, f.dst); attr != nil && s.Format != TraceBurstGPT {
				d.invalid(attr, "%s keeps the BurstGPT records of one %s; a %s trace has no such column.", f.name, strings.ReplaceAll(f.name, "_", " "), s.Format)
			}
		}
		s.MultiTurn, s.MaxTurns = l.decodeMultiTurn(d, ds, a)
		if s.MultiTurn && s.Format != TraceMooncake {
			d.invalid(a["multi_turn"], "multi_turn replays the sessions of a mooncake trace (rows sharing a session_id, with their messages, tools and delays, as AIPerf writes them); format %q has no sessions.", s.Format)
		}
		s.Prefix = l.decodePrefix(d, c.Blocks)
		if pb := c.Blocks.OfType("prefix"); s.Prefix != nil && s.Format == TraceMooncake {
			d.add(&hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid prefix block",
				Detail:   "A Mooncake trace's hash_ids already say which prompts share blocks; a prefix block is for traces without them (azure, burstgpt).",
				Subject:  pb[0].DefRange.Ptr(),
			})
		}
	case KindJSONL:
		s := &JSONLSource{PromptField: DefaultPromptField, OutputLen: DefaultJSONLOutputLen, Shuffle: true}
		ds.JSONL = s
		c, diags := src.Body.Content(jsonlSchema)
		l.diags = append(l.diags, diags...)
		a := c.Attributes
		path(d.str(a, "path", &s.Path), &s.Path, "JSONL prompts file")
		if attr := d.str(a, "prompt_field", &s.PromptField); attr != nil && s.PromptField == "" {
			d.invalid(attr, "prompt_field may not be empty.")
		}
		d.str(a, "output_len_field", &s.OutputLenField)
		d.integer(a, "output_len", &s.OutputLen, 1)
		d.integer(a, "num_prompts", &s.NumPrompts, 0)
		ds.seedSet = d.int64(a, "seed", &s.Seed, minInt64) != nil
		d.boolean(a, "shuffle", &s.Shuffle)
		d.boolean(a, "allow_empty_prompts", &s.AllowEmptyPrompts)
		s.MultiTurn, s.MaxTurns = l.decodeMultiTurn(d, ds, a)
	}
}

// decodeMultiTurn reads multi_turn and max_turns.
func (l *loader) decodeMultiTurn(d dec, ds *Dataset, a hcl.Attributes) (on bool, maxTurns int) {
	if v, attr, ok := d.value(a, "multi_turn", cty.Bool); ok && v.True() {
		on = true
		ds.multiTurn = attr.Range.Ptr()
	}
	if attr := d.integer(a, "max_turns", &maxTurns, 1); attr != nil && !on {
		d.invalid(attr, "max_turns caps the turns of a multi-turn session: set multi_turn = true to replay conversations as sessions.")
	}
	return on, maxTurns
}

// decodePrefix reads a source's prefix block.
func (l *loader) decodePrefix(d dec, blocks hcl.Blocks) *PrefixSource {
	b := atMostOne(&l.diags, blocks.OfType("prefix"), "a dataset source")
	if b == nil {
		return nil
	}
	p := &PrefixSource{}
	c, diags := b.Body.Content(prefixSchema)
	l.diags = append(l.diags, diags...)
	d.integer(c.Attributes, "shared_prefix_len", &p.SharedPrefixLen, 1)
	d.integer(c.Attributes, "num_prefixes", &p.NumPrefixes, 1)
	return p
}

const minInt64 = -1 << 63
