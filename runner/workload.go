package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/scenario"
	"github.com/llmload/llmload/tokenizer"
)

// workloadOf identifies what a run sends, without its target's address: the
// model and API, the resolved load shape, the dataset (source file hash,
// seed, sampling rules, the sampled requests' hash and length statistics),
// the tokenizer and llmload's version. compare refuses two runs whose
// workloads differ, and a baseline must share the run's.
func workloadOf(s *scenario.Scenario, ds *dataset.Dataset, tok tokenizer.Tokenizer, version string) *results.Workload {
	var resolved map[string]json.RawMessage
	raw, _ := json.Marshal(s.Resolved())
	_ = json.Unmarshal(raw, &resolved)
	load := map[string]any{}
	for _, k := range []string{"open_loop", "closed_loop", "requests", "duration", "warmup", "seed"} {
		if v, ok := resolved[k]; ok {
			load[k] = v
		}
	}
	if t := s.Target; t != nil {
		// What shapes each request's body beside its prompt: extra_body as
		// the resolved configuration shows it, with sensitive values
		// redacted (a result file never holds a secret).
		load["ignore_eos"] = t.IgnoreEOS
		var target struct {
			ExtraBody json.RawMessage `json:"extra_body"`
		}
		_ = json.Unmarshal(resolved["target"], &target)
		if len(t.ExtraBody) > 0 && len(target.ExtraBody) > 0 {
			load["extra_body"] = target.ExtraBody
		}
	}
	w := &results.Workload{ToolVersion: version}
	if t := s.Target; t != nil {
		w.Model, w.API = t.Model, t.API
	}
	w.Load, _ = json.Marshal(load)

	d := map[string]any{}
	if sd := s.Dataset; sd != nil {
		src := map[string]any{"kind": sd.Kind}
		var rules any
		var path string
		switch {
		case sd.ShareGPT != nil:
			c := *sd.ShareGPT
			path, c.Path = c.Path, ""
			rules = c
		case sd.Random != nil:
			rules = *sd.Random
		case sd.JSONL != nil:
			c := *sd.JSONL
			path, c.Path = c.Path, ""
			rules = c
		}
		src["rules"] = rules
		if path != "" {
			src["file"] = filepath.Base(path)
			src["file_sha256"] = fileHash(path)
		}
		d["source"] = src
	}
	if ds != nil {
		h := sha256.New()
		enc := json.NewEncoder(h)
		for _, r := range ds.Requests {
			_ = enc.Encode([]any{r.Prompt, r.Messages, r.OutputLen})
		}
		d["requests_sha256"] = hex.EncodeToString(h.Sum(nil))
		d["sampled"] = ds.Stats.Sampled
		d["prompt_len"] = ds.Stats.PromptLen
		d["output_len"] = ds.Stats.OutputLen
	}
	w.Dataset, _ = json.Marshal(d)
	if tok != nil {
		w.Tokenizer = s.Scrub(tok.Name())
	}
	body, _ := json.Marshal(w)
	sum := sha256.Sum256(body)
	w.Fingerprint = hex.EncodeToString(sum[:])
	return w
}

// fileHash is the SHA-256 of a file ("" when it cannot be read).
func fileHash(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// probeServerVersion asks the target what it runs, the way each engine
// says it, and names the engine where its answer does:
//
//   - GET /version {"version": ...}: vLLM, SGLang and the simulator
//     ("0.6.3 (/version)": the two engines answer alike, so no name);
//   - GET /props {"build_info": "b1-80fb11a", ...}: llama.cpp's
//     llama-server ("llama.cpp b1-80fb11a (/props)");
//   - GET /api/version {"version": "0.17.4"}: Ollama ("ollama 0.17.4
//     (/api/version)");
//   - GET /info {"version": ..., "router": "text-generation-router"}: TGI
//     ("text-generation-inference 3.2.1 (/info)");
//
// the first that answers wins. Then the version and owner of the first
// model in GET /v1/models, unless /props or /api/version named the engine:
// llama-server's owner is "llamacpp" again and Ollama's is the model's
// namespace ("library"), not an engine. Last, the Server response header.
// The requests go through the target's HTTPClient: its TLS settings and
// credentials, no redirect followed, no credential to another host. It
// never fails a run: "" when the target says nothing. It also returns the
// other names the server gives the model asked for (modelAliases), from
// the same /v1/models answer.
func probeServerVersion(ctx context.Context, lt *liveTarget) (version string, aliases []string) {
	client, err := setupClient(lt)
	if err != nil {
		return "", nil
	}
	defer client.CloseIdleConnections()
	return probeServerVersionWith(ctx, lt, client)
}

// setupClient is the client of the requests a run makes to its target
// before the load (the version and configuration probes): the target's
// (its TLS settings and credentials, no redirect followed, no credential
// to another host), a 2 s timeout per request, and its connection kept
// alive from one probe to the next even when the load opens one per
// request, so that the probes open one connection, not one each.
func setupClient(lt *liveTarget) (*http.Client, error) {
	t := lt.target
	t.NewConnectionPerRequest = false
	client, err := t.HTTPClient(1)
	if err != nil {
		return nil, err
	}
	client.Timeout = 2 * time.Second
	return client, nil
}

// probeServerVersionWith is probeServerVersion through client.
func probeServerVersionWith(ctx context.Context, lt *liveTarget, client *http.Client) (version string, aliases []string) {
	base := strings.TrimSuffix(lt.target.BaseURL, "/")
	var header string
	get := func(path string) map[string]any {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
		if err != nil {
			return nil
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil
		}
		defer resp.Body.Close()
		// A body read to its end (a short one) leaves the connection to
		// the next probe.
		defer io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		if header == "" {
			header = resp.Header.Get("Server")
		}
		if resp.StatusCode != http.StatusOK {
			return nil
		}
		var v map[string]any
		if json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&v) != nil {
			return nil
		}
		return v
	}
	str := func(v map[string]any, key string) string {
		s, _ := v[key].(string)
		return strings.TrimSpace(s)
	}
	var parts []string
	named := false // the engine's own endpoint named it
	for _, e := range []struct{ path, key string }{{"/version", "version"}, {"/props", "build_info"}, {"/api/version", "version"}, {"/info", "version"}} {
		v := get(e.path)
		s := str(v, e.key)
		if s == "" {
			continue
		}
		switch e.path {
		case "/props":
			s, named = "llama.cpp "+s, true
		case "/api/version":
			s, named = "ollama "+s, true
		case "/info":
			if strings.HasPrefix(str(v, "router"), "text-generation") {
				s = "text-generation-inference " + s
			}
		}
		parts = append(parts, s+" ("+e.path+")")
		break
	}
	// The model list: who owns the model (when no engine endpoint named
	// the server), and the other names the server gives the model asked
	// for (modelAliases).
	var cards []modelCard
	if data, ok := get("/v1/models")["data"].([]any); ok && len(data) > 0 {
		for _, d := range data {
			if m, ok := d.(map[string]any); ok {
				cards = append(cards, modelCard{ID: str(m, "id"), Root: str(m, "root")})
			}
		}
		if m, ok := data[0].(map[string]any); ok && !named {
			if s := str(m, "version"); s != "" {
				parts = append(parts, "model version "+s)
			}
			if s := str(m, "owned_by"); s != "" {
				parts = append(parts, "owned by "+s)
			}
		}
	}
	if lt.target.Model != "" {
		aliases = modelAliases(lt.target.Model, cards)
	}
	if header != "" {
		parts = append(parts, "Server: "+header)
	}
	return strings.Join(parts, "; "), aliases
}

// modelCard is an entry of /v1/models: its name and, on vLLM, the path
// of the model it serves.
type modelCard struct {
	ID   string `json:"id"`
	Root string `json:"root"`
}

// modelAliases picks the other names a server gives the model asked for
// from its /v1/models list, so that an answer under one of them is not
// counted as another model's: the one model a server lists when it lists
// one (llama.cpp's is its file path, whatever the request named), and the
// names that share the asked model's root (vLLM lists each served name
// with the model's path as root, and answers with the first).
func modelAliases(asked string, cards []modelCard) []string {
	var out []string
	add := func(name string) {
		if name != "" && name != asked && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	if len(cards) == 1 {
		add(cards[0].ID)
		add(cards[0].Root)
		return out
	}
	root := ""
	for _, c := range cards {
		if c.ID == asked {
			root = c.Root
		}
	}
	if root == "" {
		return nil
	}
	for _, c := range cards {
		if c.Root == root {
			add(c.ID)
		}
	}
	add(root)
	return out
}

// CheckWorkloads refuses results of different workloads unless forced; a
// forced comparison prints every difference loudly. Results of different
// llmload versions are no different workloads: they compare, with a
// warning. It returns the differences (nil when the workloads are equal)
// and false when refused.
func CheckWorkloads(log io.Writer, what string, base, cand *results.Workload, force bool) ([]string, bool) {
	if v := base.VersionDifference(cand); v != "" {
		fmt.Fprintf(log, "llmload: warning: %s: the two runs were made by different llmload versions (%s); compared all the same, in one result format, but a change in how llmload measures would show as a change of the server\n", what, v)
	}
	diffs := base.Differences(cand)
	if len(diffs) == 0 {
		return nil, true
	}
	if !force {
		fmt.Fprintf(log, "llmload: %s: the two runs sent different workloads, so comparing them compares more than the servers:\n", what)
		for _, d := range diffs {
			fmt.Fprintf(log, "  %s\n", d)
		}
		fmt.Fprintln(log, "llmload: refusing; -force compares them anyway")
		return diffs, false
	}
	fmt.Fprintf(log, "llmload: WARNING: -force: %s: the workloads differ; the comparison below is NOT of the servers alone:\n", what)
	for _, d := range diffs {
		fmt.Fprintf(log, "  WARNING: %s\n", d)
	}
	return diffs, true
}

// CheckFormats refuses to compare results of two result formats
// (results.FormatVersion), which -force does not override: a key would be
// read in two meanings. It returns false when refused.
func CheckFormats(log io.Writer, what string, base, cand int) bool {
	if base == cand {
		return true
	}
	fmt.Fprintf(log, "llmload: %s: the results are of two result formats (%d and %d), whose figures do not compare; refusing: make both with one llmload\n", what, base, cand)
	return false
}
