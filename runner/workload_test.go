package runner

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/llmload/llmload/executor"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/scenario"
)

// The engines' answers, as each engine writes them (shortened where only
// the length differs): llama.cpp's llama-server b1-80fb11a (/props, its
// OpenAI model list, its JSON 404), Ollama 0.17.4 (/api/version, its
// OpenAI model list, Go's plain 404), TGI 3.2.1 (/info) and vLLM.
const (
	llamaProps = `{"default_generation_settings":{"id":0,"id_task":-1,"n_ctx":4096,"speculative":false,"is_processing":false,
"params":{"n_predict":-1,"seed":4294967295,"temperature":0.800000011920929,"top_k":40,"top_p":0.949999988079071}},
"total_slots":1,"model_alias":"tiny","model_path":"/models/tiny.gguf","modalities":{"vision":false,"audio":false},
"chat_template":"{%- for message in messages -%}<|im_start|>{{ message.role }}\n{{ message.content }}<|im_end|>\n{%- endfor -%}",
"bos_token":"<|endoftext|>","eos_token":"<|im_end|>","build_info":"b1-80fb11a"}`
	llamaModels = `{"models":[{"name":"tiny","model":"tiny","modified_at":"","size":"","digest":"","type":"model","description":"",
"tags":[""],"capabilities":["completion"],"parameters":"","details":{"parent_model":"","format":"gguf","family":"","families":[""],
"parameter_size":"","quantization_level":""}}],"object":"list","data":[{"id":"tiny","object":"model","created":1772000000,
"owned_by":"llamacpp","meta":{"vocab_type":2,"n_vocab":151936,"n_ctx_train":4096,"n_embd":64,"n_params":19476544,"size":77906176}}]}`
	llama404      = `{"error":{"code":404,"message":"File Not Found","type":"not_found_error"}}`
	ollamaVersion = `{"version":"0.17.4"}`
	ollamaModels  = `{"object":"list","data":[{"id":"tiny:latest","object":"model","created":1772000000,"owned_by":"library"}]}`
	tgiInfo       = `{"model_id":"mistralai/Ministral-8B-Instruct-2410","model_sha":"4847e87e5975a573a2a190399ca62cd266c899ad",
"model_pipeline_tag":null,"max_concurrent_requests":128,"max_best_of":2,"max_stop_sequences":4,"max_input_tokens":32767,
"max_total_tokens":32768,"validation_workers":2,"max_client_batch_size":4,"router":"text-generation-router","version":"3.2.1",
"sha":"4d28897b4e345f4dfdd93d3434e50ac8afcdf9e1","docker_label":"sha-4d28897"}`
	tgiModels   = `{"object":"list","data":[{"id":"mistralai/Ministral-8B-Instruct-2410","object":"model","created":0,"owned_by":"mistralai/Ministral-8B-Instruct-2410"}]}`
	vllmVersion = `{"version":"0.6.3"}`
	vllmModels  = `{"object":"list","data":[{"id":"meta-llama/Meta-Llama-3-8B-Instruct","object":"model","created":1772000000,
"owned_by":"vllm","root":"meta-llama/Meta-Llama-3-8B-Instruct","parent":null,"max_model_len":8192,"permission":[]}]}`
)

// engine is a fake server: a JSON body per path, and how it says "not
// found" for the others.
type engine struct {
	paths    map[string]string
	notFound func(w http.ResponseWriter)
	server   string // the Server header, "" for none
	key      string // a Bearer key every request must carry, "" for none
}

func (e engine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if e.server != "" {
		w.Header().Set("Server", e.server)
	}
	if e.key != "" && r.Header.Get("Authorization") != "Bearer "+e.key {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"code":401,"message":"Invalid API Key","type":"authentication_error"}}`)
		return
	}
	body, ok := e.paths[r.URL.Path]
	if !ok || r.Method != http.MethodGet {
		e.notFound(w)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	io.WriteString(w, body)
}

func jsonNotFound(body string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, body)
	}
}

func plainNotFound(w http.ResponseWriter) { http.Error(w, "404 page not found", http.StatusNotFound) }

// TestProbeServerVersion: each engine is named from what it exposes, an
// Ollama model's namespace is not taken for an engine, and vLLM's and the
// simulator's records are what they were.
func TestProbeServerVersion(t *testing.T) {
	tests := []struct {
		name   string
		engine engine
		want   string
	}{
		{"llama.cpp", engine{paths: map[string]string{"/props": llamaProps, "/v1/models": llamaModels, "/models": llamaModels, "/health": `{"status":"ok"}`},
			notFound: jsonNotFound(llama404)}, "llama.cpp b1-80fb11a (/props)"},
		{"llama.cpp with an API key", engine{paths: map[string]string{"/props": llamaProps, "/v1/models": llamaModels},
			notFound: jsonNotFound(llama404), key: "sk-probe"}, "llama.cpp b1-80fb11a (/props)"},
		{"ollama", engine{paths: map[string]string{"/api/version": ollamaVersion, "/v1/models": ollamaModels, "/": "Ollama is running"},
			notFound: plainNotFound}, "ollama 0.17.4 (/api/version)"},
		{"tgi", engine{paths: map[string]string{"/info": tgiInfo, "/v1/models": tgiModels}, notFound: plainNotFound},
			"text-generation-inference 3.2.1 (/info); owned by mistralai/Ministral-8B-Instruct-2410"},
		{"vllm", engine{paths: map[string]string{"/version": vllmVersion, "/v1/models": vllmModels}, notFound: jsonNotFound(`{"detail":"Not Found"}`), server: "uvicorn"},
			"0.6.3 (/version); owned by vllm; Server: uvicorn"},
		{"an /info that is not TGI's", engine{paths: map[string]string{"/info": `{"version":"1.2"}`}, notFound: plainNotFound}, "1.2 (/info)"},
		{"a llama.cpp too old for build_info", engine{paths: map[string]string{"/props": `{"total_slots":1}`, "/v1/models": llamaModels},
			notFound: jsonNotFound(llama404)}, "owned by llamacpp"},
		{"nothing but a Server header", engine{notFound: plainNotFound, server: "nginx/1.27"}, "Server: nginx/1.27"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.engine)
			defer srv.Close()
			lt := &liveTarget{target: executor.Target{BaseURL: srv.URL, APIKey: tt.engine.key}}
			if got, _ := probeServerVersion(context.Background(), lt); got != tt.want {
				t.Errorf("probeServerVersion = %q, want %q", got, tt.want)
			}
		})
	}

	// The same answer names the model's other names: llama.cpp's one
	// model, whatever was asked.
	t.Run("aliases", func(t *testing.T) {
		srv := httptest.NewServer(engine{paths: map[string]string{"/props": llamaProps, "/v1/models": llamaModels}, notFound: jsonNotFound(llama404)})
		defer srv.Close()
		lt := &liveTarget{target: executor.Target{BaseURL: srv.URL, Model: "asked"}}
		if _, aliases := probeServerVersion(context.Background(), lt); !slices.Equal(aliases, []string{"tiny"}) {
			t.Errorf("aliases = %q, want [tiny]", aliases)
		}
	})

	t.Run("simulator", func(t *testing.T) {
		lt, diags := startTarget(&scenario.Target{BaseURL: "sim://tiny", API: "openai", Model: "tiny"}, 1)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		defer lt.sim.Close()
		if got, _ := probeServerVersion(context.Background(), lt); got != "llmload-sim tiny (/version); owned by vllm" {
			want := "llmload-sim tiny (/version); owned by vllm"
			t.Errorf("probeServerVersion = %q, want %q", got, want)
		}
	})
}

// A target whose /props redirects to another host: the redirect is not
// followed, the other host sees nothing (no request, no credential), and
// the probe goes on to the next engine's endpoint.
func TestProbeServerVersionRedirect(t *testing.T) {
	var mu sync.Mutex
	var stolen []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		stolen = append(stolen, r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		io.WriteString(w, llamaProps)
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/props":
			http.Redirect(w, r, other.URL+"/props", http.StatusFound)
		case "/api/version":
			io.WriteString(w, ollamaVersion)
		default:
			plainNotFound(w)
		}
	}))
	defer srv.Close()
	lt := &liveTarget{target: executor.Target{BaseURL: srv.URL, APIKey: "sk-probe"}}
	if got, _ := probeServerVersion(context.Background(), lt); got != "ollama 0.17.4 (/api/version)" {
		want := "ollama 0.17.4 (/api/version)"
		t.Errorf("probeServerVersion = %q, want %q", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(stolen) > 0 {
		t.Errorf("the other host received %q", stolen)
	}
}

func TestModelAliases(t *testing.T) {
	tests := []struct {
		name  string
		asked string
		cards []modelCard
		want  []string
	}{
		{"llama.cpp: one model, named by its file", "tiny", []modelCard{{ID: "/models/tiny.gguf"}}, []string{"/models/tiny.gguf"}},
		{"one model, the name asked", "m", []modelCard{{ID: "m", Root: "m"}}, nil},
		{"vLLM: served names share a root", "b", []modelCard{{ID: "a", Root: "/m/llama"}, {ID: "b", Root: "/m/llama"}, {ID: "lora", Root: "/m/lora"}},
			[]string{"a", "/m/llama"}},
		{"several models, the asked one absent", "x", []modelCard{{ID: "a", Root: "r"}, {ID: "b", Root: "r"}}, nil},
		{"Ollama: several models, no root", "tiny", []modelCard{{ID: "tiny:latest"}, {ID: "other:latest"}}, nil},
	}
	for _, tt := range tests {
		if got := modelAliases(tt.asked, tt.cards); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestFitPromptCache: the prompt cache policy in the fields the engine
// the probe named takes, or a refusal that says what to do instead.
func TestFitPromptCache(t *testing.T) {
	for _, tc := range []struct {
		version, policy string
		flag            bool   // cache_prompt = false instead of cache_salt
		refused         string // in the error, "" for none
	}{
		{"vllm 0.12.0 (/version)", executor.PromptCacheIsolate, false, ""},
		{"vllm 0.12.0 (/version)", executor.PromptCacheOff, false, ""},
		{"", executor.PromptCacheOff, false, ""},
		{"llama.cpp b1-80fb11a (/props)", executor.PromptCacheOff, true, ""},
		{"llama.cpp b1-80fb11a (/props)", executor.PromptCacheIsolate, false, `prompt_cache = "off" turns its cache off`},
		{"llama.cpp b1-80fb11a (/props)", "", false, ""},
		{"ollama 0.17.4 (/api/version)", executor.PromptCacheOff, false, "no per-request control"},
		{"ollama 0.17.4 (/api/version)", executor.PromptCacheIsolate, false, "no per-request control"},
		{"ollama 0.17.4 (/api/version)", "", false, ""},
	} {
		lt := &liveTarget{target: executor.Target{PromptCache: tc.policy}}
		err := fitPromptCache(lt, tc.version)
		if tc.refused == "" && err != nil || tc.refused != "" && (err == nil || !strings.Contains(err.Error(), tc.refused)) {
			t.Errorf("%q, %q: error %v, want one saying %q", tc.version, tc.policy, err, tc.refused)
		}
		if lt.target.CachePromptFlag != tc.flag {
			t.Errorf("%q, %q: cache_prompt flag %v, want %v", tc.version, tc.policy, lt.target.CachePromptFlag, tc.flag)
		}
	}
}

// TestWarnPromptCache: a run whose target turned the engine's cache off,
// yet got prompt tokens served from it, says so; nothing otherwise.
func TestWarnPromptCache(t *testing.T) {
	for _, tc := range []struct {
		policy string
		flag   bool
		cached int
		want   string
	}{
		{executor.PromptCacheOff, false, 96, "served 96 of 200 prompt tokens from its cache: it ignored the per-request cache_salt"},
		{executor.PromptCacheOff, true, 96, "it ignored cache_prompt = false"},
		{executor.PromptCacheOff, false, 0, ""},
		{executor.PromptCacheIsolate, false, 96, ""},
		{"", false, 96, ""},
	} {
		var log strings.Builder
		lt := &liveTarget{target: executor.Target{PromptCache: tc.policy, CachePromptFlag: tc.flag}}
		warnPromptCache(&log, lt, &metrics.Summary{CachedTokens: tc.cached, CacheReportedPrompt: 200})
		if got := log.String(); tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%q (flag %v), %d cached: %q, want %q", tc.policy, tc.flag, tc.cached, got, tc.want)
		}
	}
}
