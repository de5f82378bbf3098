package serverinfo

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/llmload/llmload/internal/secret"
	"github.com/llmload/llmload/results"
)

// Bounds on what a server's answer may put in a result.
const (
	// RequestTimeout bounds each request.
	RequestTimeout = 2 * time.Second
	// MaxBody bounds a JSON answer; MaxMetrics a /metrics page.
	MaxBody    = 1 << 20
	MaxMetrics = 8 << 20
	// MaxSettings bounds the settings kept (the first by name).
	MaxSettings = 600
	// MaxKey bounds a setting's name; a longer one is left out.
	MaxKey = 128
	// MaxValue bounds a setting's value: a longer one (a chat template) is
	// kept as its SHA-256 and length, so that a change still shows.
	MaxValue = 200
)

// Options are what Read needs beside the client.
type Options struct {
	// Model is the model the run asks for: its /v1/models entry is read
	// (else the first), and Ollama's /api/show is asked about it.
	Model string
	// Scrub removes the target's secrets from text (nil: none).
	Scrub func(string) string
}

// Read asks the server at base what it says of its configuration, through
// client (the target's own: its TLS settings and credentials, no redirect
// followed). Every request has RequestTimeout. It never fails: a read that
// did not answer is recorded in Reads with its outcome.
func Read(ctx context.Context, client *http.Client, base string, opts Options) *results.ServerConfig {
	r := &reader{ctx: ctx, client: client, base: strings.TrimSuffix(base, "/"), opts: opts,
		cfg: &results.ServerConfig{}, settings: map[string]string{}}
	r.read()
	r.finish()
	return r.cfg
}

type reader struct {
	ctx      context.Context
	client   *http.Client
	base     string
	opts     Options
	cfg      *results.ServerConfig
	settings map[string]string
}

// read asks the endpoints in turn: the engines' own first (the first that
// answers names the engine, and the others are not asked), then the model
// list and the metrics page that any of them may serve.
func (r *reader) read() {
	if v := r.getJSON("/get_server_info"); v != nil {
		r.sglang(v)
	}
	if r.cfg.Engine == "" || r.cfg.Version == "" {
		// vLLM's version; SGLang's too, when its server info had none.
		if v := r.getJSON("/version"); v != nil {
			r.cfg.Version = str(v, "version")
		}
	}
	if r.cfg.Engine == "" {
		if v := r.getJSON("/info"); v != nil && (strings.HasPrefix(str(v, "router"), "text-generation") || str(v, "model_id") != "") {
			r.tgi(v)
		}
	}
	if r.cfg.Engine == "" && r.cfg.Version == "" {
		if v := r.getJSON("/props"); v != nil && (str(v, "build_info") != "" || v["default_generation_settings"] != nil) {
			r.llamacpp(v)
		}
	}
	if r.cfg.Engine == "" && r.cfg.Version == "" {
		if v := r.getJSON("/api/version"); v != nil && str(v, "version") != "" {
			r.cfg.Engine, r.cfg.Version = "ollama", str(v, "version")
			if r.opts.Model != "" {
				body, _ := json.Marshal(map[string]string{"model": r.opts.Model})
				if v := r.do(http.MethodPost, "/api/show", body); v != nil {
					r.ollama(v)
				}
			}
		}
	}
	if v := r.getJSON("/v1/models"); v != nil {
		r.models(v)
	}
	r.metrics()
	if r.cfg.Engine == "" && strings.HasPrefix(r.cfg.Version, "llmload-sim") {
		r.cfg.Engine = "llmload-sim"
	}
}

// sglang reads SGLang's server arguments (the simulator answers alike,
// with its profile; its version names it).
func (r *reader) sglang(v map[string]any) {
	r.cfg.Engine, r.cfg.Version = "sglang", str(v, "version")
	if strings.HasPrefix(r.cfg.Version, "llmload-sim") {
		r.cfg.Engine = "llmload-sim"
	}
	r.cfg.Model = firstOf(str(v, "served_model_name"), str(v, "model_path"), str(v, "model"))
	r.cfg.Revision = firstOf(str(v, "revision"), str(v, "model_path"))
	r.cfg.MaxModelLen = firstInt(v, "context_length", "max_model_len")
	delete(v, "version")
	r.flatten("", v)
}

// tgi reads TGI's /info.
func (r *reader) tgi(v map[string]any) {
	r.cfg.Engine, r.cfg.Version = "text-generation-inference", str(v, "version")
	r.cfg.Model, r.cfg.Revision = str(v, "model_id"), str(v, "model_sha")
	r.cfg.MaxModelLen = firstInt(v, "max_total_tokens")
	delete(v, "version")
	r.flatten("", v)
}

// llamacpp reads llama-server's /props.
func (r *reader) llamacpp(v map[string]any) {
	r.cfg.Engine, r.cfg.Version = "llama.cpp", str(v, "build_info")
	r.cfg.Model = firstOf(str(v, "model_alias"), str(v, "model_path"))
	r.cfg.Revision = str(v, "model_path")
	if d, ok := v["default_generation_settings"].(map[string]any); ok {
		r.cfg.MaxModelLen = firstInt(d, "n_ctx")
	}
	delete(v, "build_info")
	r.flatten("", v)
}

// ollama reads /api/show of the run's model.
func (r *reader) ollama(v map[string]any) {
	r.cfg.Model = r.opts.Model
	if info, ok := v["model_info"].(map[string]any); ok {
		arch := str(info, "general.architecture")
		if arch != "" {
			r.cfg.MaxModelLen = firstInt(info, arch+".context_length")
		}
	}
	for _, k := range []string{"license", "modelfile", "template", "tensors", "projector_info"} {
		delete(v, k)
	}
	r.flatten("", v)
}

// models reads the run's model in /v1/models: its name, root (the path
// or repository it was loaded from) and max_model_len.
func (r *reader) models(v map[string]any) {
	data, _ := v["data"].([]any)
	var card map[string]any
	for _, d := range data {
		m, ok := d.(map[string]any)
		if !ok {
			continue
		}
		if card == nil || (r.opts.Model != "" && str(m, "id") == r.opts.Model) {
			card = m
		}
	}
	if card == nil {
		return
	}
	if r.cfg.Model == "" {
		r.cfg.Model = str(card, "id")
	}
	if r.cfg.Revision == "" {
		r.cfg.Revision = str(card, "root")
	}
	if r.cfg.MaxModelLen == 0 {
		r.cfg.MaxModelLen = firstInt(card, "max_model_len")
	}
	if r.cfg.Engine == "" {
		switch str(card, "owned_by") {
		case "vllm":
			r.cfg.Engine = "vllm"
		case "sglang":
			r.cfg.Engine = "sglang"
		case "llamacpp":
			r.cfg.Engine = "llama.cpp"
		}
	}
}

// metrics reads the labels of the *_config_info gauges of the metrics page
// (vLLM's vllm:cache_config_info: block_size, num_gpu_blocks,
// enable_prefix_caching, ...). A label already known from another endpoint
// keeps that value; engine and model_name say where, not how.
func (r *reader) metrics() {
	body, outcome := r.fetch(http.MethodGet, "/metrics", nil, MaxMetrics)
	r.record("/metrics", outcome)
	if body == nil {
		return
	}
	found := false
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		name, rest, ok := strings.Cut(line, "{")
		if !ok || strings.HasPrefix(name, "#") || !strings.HasSuffix(name, "_config_info") {
			continue
		}
		labels, ok := parseLabels(rest)
		if !ok {
			continue
		}
		found = true
		for k, val := range labels {
			if k == "engine" || k == "model_name" {
				continue
			}
			if _, dup := r.settings[k]; !dup {
				r.put(k, val)
			}
		}
	}
	if found && r.cfg.Engine == "" && strings.Contains(string(body), "vllm:") {
		r.cfg.Engine = "vllm"
	}
}

// parseLabels reads `a="1",b="x\"y"} 1.0`: the label set up to its brace.
func parseLabels(s string) (map[string]string, bool) {
	out := map[string]string{}
	for {
		s = strings.TrimLeft(s, " ,")
		if strings.HasPrefix(s, "}") {
			return out, true
		}
		name, rest, ok := strings.Cut(s, "=\"")
		if !ok || name == "" || strings.ContainsAny(name, " {}\"") {
			return nil, false
		}
		var b strings.Builder
		i := 0
		for ; i < len(rest); i++ {
			c := rest[i]
			if c == '"' {
				break
			}
			if c == '\\' && i+1 < len(rest) {
				i++
				switch rest[i] {
				case 'n':
					b.WriteByte('\n')
				default:
					b.WriteByte(rest[i])
				}
				continue
			}
			b.WriteByte(c)
		}
		if i >= len(rest) {
			return nil, false
		}
		out[name] = b.String()
		s = rest[i+1:]
	}
}

// flatten keeps the scalars of v as settings, nested objects by their
// dotted path; lists are left out (their order and size are not settings).
func (r *reader) flatten(prefix string, v map[string]any) {
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		name := k
		if prefix != "" {
			name = prefix + "." + k
		}
		switch x := v[k].(type) {
		case map[string]any:
			if !ignored(k) {
				r.flatten(name, x)
			}
		case []any:
		case nil:
			r.put(name, "null")
		case json.Number:
			r.put(name, x.String())
		case bool:
			r.put(name, strconv.FormatBool(x))
		case string:
			r.put(name, x)
		}
	}
}

// put keeps one setting, unless its name says it holds a credential or a
// value that differs from one start to the next (a port, a status).
func (r *reader) put(name, value string) {
	if len(name) > MaxKey || ignored(lastSegment(name)) || sensitive(name) {
		return
	}
	r.settings[name] = value
}

func lastSegment(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// volatile are settings that change from one start of a server to the
// next without changing what it does: where it listens, its state, its
// random seed when none was set.
var volatile = map[string]bool{
	"host": true, "port": true, "status": true, "nccl_port": true, "dist_init_addr": true,
	"random_seed": true, "is_sleeping": true, "is_processing": true, "id": true, "id_task": true,
	"internal_states": true, "metrics_http_port": true, "created": true, "modified_at": true,
}

func ignored(name string) bool { return volatile[name] }

// tokenizerToken are settings named like credentials that hold a
// vocabulary's special tokens (llama.cpp's /props, tokenizer configs).
var tokenizerToken = map[string]bool{
	"bos_token": true, "eos_token": true, "pad_token": true, "unk_token": true, "sep_token": true,
	"cls_token": true, "mask_token": true, "eot_token": true, "eom_token": true,
}

// sensitive reports whether a setting's name says it holds a credential:
// api_key, admin_api_key, ssl_keyfile_password, hf_token, a secret, in
// any segment of a dotted name (credentials.value, auth.header.value).
func sensitive(name string) bool {
	for _, n := range strings.Split(strings.ToLower(name), ".") {
		for _, w := range []string{"password", "secret", "credential", "api_key", "apikey", "auth", "keyfile", "certfile", "cookie"} {
			if strings.Contains(n, w) {
				return true
			}
		}
		if tokenizerToken[n] {
			continue // a vocabulary token (llama.cpp /props bos_token), not a credential
		}
		if n == "key" || n == "token" || strings.HasSuffix(n, "_key") || strings.HasSuffix(n, "_token") {
			return true
		}
	}
	return false
}

// finish bounds, escapes and scrubs what was read.
func (r *reader) finish() {
	clean := func(s string) string {
		if r.opts.Scrub != nil {
			s = r.opts.Scrub(s)
		}
		// A setting's value may be a URL with a password in it (a
		// database, a remote tokenizer, a proxy).
		return secret.Printable(maskQueryTokens(secret.MaskURLPasswords(s)))
	}
	c := r.cfg
	c.Engine, c.Version, c.Model, c.Revision = bound(clean(c.Engine)), bound(clean(c.Version)), bound(clean(c.Model)), bound(clean(c.Revision))
	if len(r.settings) == 0 {
		return
	}
	keys := make([]string, 0, len(r.settings))
	for k := range r.settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	c.Settings = map[string]string{}
	for _, k := range keys {
		if len(c.Settings) >= MaxSettings {
			break
		}
		c.Settings[clean(k)] = bound(clean(r.settings[k]))
	}
}

// bound keeps a value of at most MaxValue bytes; a longer one becomes its
// SHA-256 and length.
func bound(s string) string {
	if len(s) <= MaxValue {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	return fmt.Sprintf("sha256:%s (%d bytes)", hex.EncodeToString(sum[:8]), len(s))
}

// getJSON GETs path and decodes a JSON object (nil when it did not
// answer one).
func (r *reader) getJSON(path string) map[string]any {
	return r.do(http.MethodGet, path, nil)
}

func (r *reader) do(method, path string, body []byte) map[string]any {
	raw, outcome := r.fetch(method, path, body, MaxBody)
	if raw != nil {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v map[string]any
		if dec.Decode(&v) != nil || v == nil {
			outcome, raw = "not json", nil
		} else {
			r.record(path, outcome)
			return v
		}
	}
	r.record(path, outcome)
	return nil
}

func (r *reader) record(path, outcome string) {
	r.cfg.Reads = append(r.cfg.Reads, results.ServerRead{Path: path, Outcome: outcome})
}

// fetch asks for path: the body of a 200 answer of at most limit bytes,
// and the outcome in a word or two.
func (r *reader) fetch(method, path string, body []byte, limit int64) ([]byte, string) {
	ctx, cancel := context.WithTimeout(r.ctx, RequestTimeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.base+path, rd)
	if err != nil {
		return nil, "error"
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, errorKind(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, "http " + strconv.Itoa(resp.StatusCode)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	switch {
	case err != nil:
		return nil, errorKind(err)
	case int64(len(raw)) > limit:
		return nil, "too large"
	}
	return raw, "ok"
}

// errorKind names a failed request's cause without its text (which may
// hold the address).
func errorKind(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed"
	}
	return "error"
}

func str(v map[string]any, key string) string {
	switch x := v[key].(type) {
	case string:
		return strings.TrimSpace(x)
	case json.Number:
		return x.String()
	}
	return ""
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// firstInt is the first of keys that holds a positive whole number.
func firstInt(v map[string]any, keys ...string) int {
	for _, k := range keys {
		if n, ok := v[k].(json.Number); ok {
			if i, err := n.Int64(); err == nil && i > 0 && i < 1<<40 {
				return int(i)
			}
		}
	}
	return 0
}

// queryToken matches a credential passed in a URL's query (?token=...,
// &api_key=..., &access_token=...).
var queryToken = regexp.MustCompile(`(?i)([?&](?:[a-z_]*token|api[_-]?key|key|secret|password|sig|signature)=)[^&\s"'<>]+`)

// maskQueryTokens masks the credentials a setting's URL carries in its
// query.
func maskQueryTokens(s string) string {
	if !strings.ContainsAny(s, "?&") {
		return s
	}
	return queryToken.ReplaceAllString(s, "${1}xxxxx")
}
