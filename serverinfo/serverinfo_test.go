package serverinfo

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/llmload/llmload/results"
)

// The runner's probe fixtures (runner/workload_test.go): llama.cpp's
// llama-server b1-80fb11a, TGI 3.2.1 and vLLM's model list.
const (
	llamaProps = `{"default_generation_settings":{"id":0,"id_task":-1,"n_ctx":4096,"speculative":false,"is_processing":false,
"params":{"n_predict":-1,"seed":4294967295,"temperature":0.800000011920929,"top_k":40,"top_p":0.949999988079071}},
"total_slots":1,"model_alias":"tiny","model_path":"/models/tiny.gguf","modalities":{"vision":false,"audio":false},
"chat_template":"{%- for message in messages -%}<|im_start|>{{ message.role }}\n{{ message.content }}<|im_end|>\n{%- endfor -%}{%- if add_generation_prompt -%}<|im_start|>assistant\n{%- endif -%}",
"bos_token":"<|endoftext|>","eos_token":"<|im_end|>","build_info":"b1-80fb11a"}`
	tgiInfo = `{"model_id":"mistralai/Ministral-8B-Instruct-2410","model_sha":"4847e87e5975a573a2a190399ca62cd266c899ad",
"model_pipeline_tag":null,"max_concurrent_requests":128,"max_best_of":2,"max_stop_sequences":4,"max_input_tokens":32767,
"max_total_tokens":32768,"validation_workers":2,"max_client_batch_size":4,"router":"text-generation-router","version":"3.2.1",
"sha":"4d28897b4e345f4dfdd93d3434e50ac8afcdf9e1","docker_label":"sha-4d28897"}`
	vllmModels = `{"object":"list","data":[{"id":"meta-llama/Meta-Llama-3-8B-Instruct","object":"model","created":1772000000,
"owned_by":"vllm","root":"meta-llama/Meta-Llama-3-8B-Instruct","parent":null,"max_model_len":8192,"permission":[]}]}`
	ollamaShow = `{"license":"Apache 2.0 ...","modelfile":"FROM /root/.ollama/models/blobs/sha256-1","parameters":"stop \"<|im_end|>\"",
"template":"{{ .Prompt }}","details":{"parent_model":"","format":"gguf","family":"qwen2","families":["qwen2"],"parameter_size":"494.03M","quantization_level":"Q4_K_M"},
"model_info":{"general.architecture":"qwen2","general.parameter_count":494032768,"qwen2.context_length":32768,"tokenizer.ggml.tokens":null},
"capabilities":["completion"],"modified_at":"2026-01-01T00:00:00Z"}`
)

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// server answers each path with its body (404 otherwise), and counts the
// requests that carried the key.
type server struct {
	paths map[string]string
	key   string
}

func (s server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, ok := s.paths[r.Method+" "+r.URL.Path]
	if !ok {
		body, ok = s.paths[r.URL.Path]
		if ok && r.Method != http.MethodGet {
			ok = false
		}
	}
	if !ok || (s.key != "" && r.Header.Get("Authorization") != "Bearer "+s.key) {
		http.NotFound(w, r)
		return
	}
	io.WriteString(w, body)
}

func reads(c *results.ServerConfig) string {
	var out []string
	for _, r := range c.Reads {
		out = append(out, r.Path+" "+r.Outcome)
	}
	return strings.Join(out, ", ")
}

func TestRead(t *testing.T) {
	cases := []struct {
		name   string
		paths  map[string]string
		model  string
		want   results.ServerConfig // Settings: only those listed are checked
		absent []string             // settings that must not be there
		reads  string
	}{
		{"sglang", map[string]string{"/get_server_info": fixture(t, "sglang-get_server_info.json")}, "",
			results.ServerConfig{Engine: "sglang", Version: "0.5.9", Model: "qwen/qwen2.5-0.5b-instruct", Revision: "qwen/qwen2.5-0.5b-instruct",
				Settings: map[string]string{"max_running_requests": "128", "chunked_prefill_size": "8192", "quantization": "null",
					"disable_radix_cache": "false", "mem_fraction_static": "0.907", "schedule_policy": "fcfs", "max_total_num_tokens": "20480"}},
			[]string{"api_key", "admin_api_key", "ssl_keyfile_password", "ssl_keyfile", "port", "host", "status", "random_seed", "internal_states", "cuda_graph_bs", "version"},
			"/get_server_info ok, /v1/models http 404, /metrics http 404"},
		{"sglang without a version in its server info", map[string]string{"/get_server_info": `{"model_path":"m","max_running_requests":8}`, "/version": `{"version":"0.5.9"}`}, "",
			results.ServerConfig{Engine: "sglang", Version: "0.5.9", Model: "m", Revision: "m", Settings: map[string]string{"max_running_requests": "8"}}, nil,
			"/get_server_info ok, /version ok, /v1/models http 404, /metrics http 404"},
		{"tgi", map[string]string{"/info": tgiInfo}, "",
			results.ServerConfig{Engine: "text-generation-inference", Version: "3.2.1", Model: "mistralai/Ministral-8B-Instruct-2410",
				Revision: "4847e87e5975a573a2a190399ca62cd266c899ad", MaxModelLen: 32768,
				Settings: map[string]string{"max_concurrent_requests": "128", "max_batch_total_tokens": "", "model_pipeline_tag": "null"}},
			[]string{"max_batch_total_tokens"},
			"/get_server_info http 404, /version http 404, /info ok, /v1/models http 404, /metrics http 404"},
		{"llama.cpp", map[string]string{"/props": llamaProps}, "",
			results.ServerConfig{Engine: "llama.cpp", Version: "b1-80fb11a", Model: "tiny", Revision: "/models/tiny.gguf", MaxModelLen: 4096,
				Settings: map[string]string{"total_slots": "1", "default_generation_settings.n_ctx": "4096",
					"default_generation_settings.params.top_k": "40", "chat_template": "{%- for"}},
			[]string{"default_generation_settings.id_task", "default_generation_settings.is_processing", "build_info"},
			"/get_server_info http 404, /version http 404, /info http 404, /props ok, /v1/models http 404, /metrics http 404"},
		{"vllm", map[string]string{"/version": `{"version":"0.11.2"}`, "/v1/models": vllmModels, "/metrics": fixture(t, "vllm.metrics")}, "meta-llama/Meta-Llama-3-8B-Instruct",
			results.ServerConfig{Engine: "vllm", Version: "0.11.2", Model: "meta-llama/Meta-Llama-3-8B-Instruct", Revision: "meta-llama/Meta-Llama-3-8B-Instruct", MaxModelLen: 8192,
				Settings: map[string]string{"block_size": "16", "num_gpu_blocks": "27152", "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9"}},
			[]string{"engine", "model_name"},
			"/get_server_info http 404, /version ok, /info http 404, /v1/models ok, /metrics ok"},
		{"ollama", map[string]string{"/api/version": `{"version":"0.17.4"}`, "POST /api/show": ollamaShow}, "qwen2.5:0.5b",
			results.ServerConfig{Engine: "ollama", Version: "0.17.4", Model: "qwen2.5:0.5b", MaxModelLen: 32768,
				Settings: map[string]string{"details.quantization_level": "Q4_K_M", "model_info.general.parameter_count": "494032768"}},
			[]string{"license", "modelfile", "template", "modified_at"},
			"/get_server_info http 404, /version http 404, /info http 404, /props http 404, /api/version ok, /api/show ok, /v1/models http 404, /metrics http 404"},
		{"nothing but the chat endpoint", map[string]string{"POST /v1/chat/completions": `{}`}, "m",
			results.ServerConfig{}, nil,
			"/get_server_info http 404, /version http 404, /info http 404, /props http 404, /api/version http 404, /v1/models http 404, /metrics http 404"},
		{"not json, an /info of another server", map[string]string{"/get_server_info": "<html>", "/info": `{"version":"1.2"}`, "/props": `[]`}, "",
			results.ServerConfig{}, nil,
			"/get_server_info not json, /version http 404, /info ok, /props not json, /api/version http 404, /v1/models http 404, /metrics http 404"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(server{paths: c.paths})
			defer srv.Close()
			got := Read(context.Background(), srv.Client(), srv.URL+"/", Options{Model: c.model})
			if got.Engine != c.want.Engine || got.Version != c.want.Version || got.Model != c.want.Model || got.Revision != c.want.Revision || got.MaxModelLen != c.want.MaxModelLen {
				t.Errorf("got engine %q version %q model %q revision %q max_model_len %d, want %q %q %q %q %d",
					got.Engine, got.Version, got.Model, got.Revision, got.MaxModelLen, c.want.Engine, c.want.Version, c.want.Model, c.want.Revision, c.want.MaxModelLen)
			}
			for k, v := range c.want.Settings {
				g, ok := got.Settings[k]
				switch {
				case v == "" && ok:
					t.Errorf("setting %s = %q, want none", k, g)
				case v != "" && (!ok || !strings.HasPrefix(g, v)):
					t.Errorf("setting %s = %q (present %v), want %q", k, g, ok, v)
				}
			}
			for _, k := range c.absent {
				if v, ok := got.Settings[k]; ok {
					t.Errorf("setting %s = %q is kept; it must be left out", k, v)
				}
			}
			if r := reads(got); r != c.reads {
				t.Errorf("reads:\n got %s\nwant %s", r, c.reads)
			}
			if c.want.Engine == "" && got.Exposed() {
				t.Errorf("a server that says nothing of itself exposed %+v", got)
			}
		})
	}
}

// A hostile server: a body over the bound is refused, text is escaped and
// the target's secrets scrubbed, values are bounded, settings are bounded
// in count, and a redirect is not followed (nor its credential sent on).
func TestReadHostile(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the redirect was followed to another host (Authorization %q)", r.Header.Get("Authorization"))
	}))
	defer other.Close()
	var many strings.Builder
	many.WriteString(`{"version":"x\u001b[31mred","model_path":"/m/sk-live-123456","a_path":"/m/sk-live-123456","a_url":"postgres://u:hunter2@db/x","b_url":"https://hub.example/m?revision=main&token=hf_abc123&x=1","chat_template":"` + strings.Repeat("a", 5000) + `"`)
	for i := range 2 * MaxSettings {
		fmt.Fprintf(&many, `,"k%04d":1`, i)
	}
	many.WriteString(`}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/get_server_info":
			io.WriteString(w, many.String())
		case "/v1/models":
			io.WriteString(w, `{"data":[{"id":"`+strings.Repeat("x", MaxBody)+`"}]}`)
		case "/metrics":
			http.Redirect(w, r, other.URL+"/metrics", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	got := Read(context.Background(), client, srv.URL, Options{Scrub: func(s string) string { return strings.ReplaceAll(s, "sk-live-123456", "[REDACTED]") }})
	if got.Version != `x\x1b[31mred` {
		t.Errorf("version %q, want the escape escaped", got.Version)
	}
	if got.Revision != "/m/[REDACTED]" || got.Settings["a_path"] != "/m/[REDACTED]" {
		t.Errorf("revision %q, setting %q: the secret was not scrubbed", got.Revision, got.Settings["a_path"])
	}
	if v := got.Settings["a_url"]; v != "postgres://u:xxxxx@db/x" {
		t.Errorf("a URL's password is kept as %q, want it masked", v)
	}
	if v := got.Settings["b_url"]; v != "https://hub.example/m?revision=main&token=xxxxx&x=1" {
		t.Errorf("a URL's query token is kept as %q, want it masked", v)
	}
	if v := got.Settings["chat_template"]; !strings.HasPrefix(v, "sha256:") || !strings.HasSuffix(v, "(5000 bytes)") {
		t.Errorf("a long value is kept as %q, want its hash and length", v)
	}
	if len(got.Settings) != MaxSettings {
		t.Errorf("%d settings kept, want the bound %d", len(got.Settings), MaxSettings)
	}
	want := "/get_server_info ok, /v1/models too large, /metrics http 302"
	if r := reads(got); r != want {
		t.Errorf("reads %s, want %s", r, want)
	}
}

func TestParseLabels(t *testing.T) {
	cases := []struct {
		in   string
		want map[string]string
		ok   bool
	}{
		{`a="1",b="x"} 1.0`, map[string]string{"a": "1", "b": "x"}, true},
		{`a="q\"uote\\",n="l\nf"} 1`, map[string]string{"a": `q"uote\`, "n": "l\nf"}, true},
		{`} 1`, map[string]string{}, true},
		{`a="unterminated`, nil, false},
		{`bad name="1"}`, nil, false},
	}
	for _, c := range cases {
		got, ok := parseLabels(c.in)
		if ok != c.ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseLabels(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestSensitive(t *testing.T) {
	for name, want := range map[string]bool{
		"api_key": true, "admin_api_key": true, "ssl_keyfile_password": true, "hf_token": true, "token": true, "x.client_secret": true,
		"credentials.value": true, "auth.header.value": true, "hf.token.path": true,
		"bos_token": false, "eos_token": false, "default_generation_settings.pad_token": false,
		"max_total_tokens": false, "kv_cache_dtype": false, "tokenizer_path": false, "max_prefill_tokens": false, "block_size": false,
	} {
		if got := sensitive(name); got != want {
			t.Errorf("sensitive(%q) = %v, want %v", name, got, want)
		}
	}
}
