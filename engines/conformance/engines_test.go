package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmload/llmload/engines/tinymodel"
	"github.com/llmload/llmload/internal/testshared"
)

// requireEnv, when set (CI sets it), turns a missing engine into a
// failure instead of a skip.
const requireEnv = "LLMLOAD_REQUIRE_ENGINES"

// scratch holds what the tests share: the llmload binary and the model.
var scratch string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "llmload-conformance-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	scratch = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// missing skips, or fails when engines are required.
func missing(t *testing.T, format string, args ...any) {
	t.Helper()
	if v := os.Getenv(requireEnv); v != "" && v != "0" {
		t.Fatalf(format+" (%s is set: the engines must be there; build them with bash .ci/engines.sh)", append(args, requireEnv)...)
	}
	t.Skipf(format+" (build them with bash .ci/engines.sh)", args...)
}

// engine returns the path of an engine binary (see the package's doc).
func engine(t *testing.T, env, name string) string {
	t.Helper()
	if p := os.Getenv(env); p != "" {
		return p
	}
	dir := os.Getenv("LLMLOAD_ENGINES")
	if dir == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				missing(t, "%s: no home folder to find the engines' cache in (%v)", name, err)
			}
			cache = filepath.Join(home, ".cache")
		}
		dir = filepath.Join(cache, "llmload", "engines")
	}
	p := filepath.Join(dir, "bin", name)
	if _, err := os.Stat(p); err != nil {
		missing(t, "%s is not built: %v", name, err)
	}
	return p
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// llmload builds the binary once for the package's tests.
func llmload(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		root, err := testshared.Root()
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(scratch, "llmload")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/llmload")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

var (
	modelMu sync.Mutex
	models  = map[string]modelFile{}
)

// modelFile is a model written into scratch, or why it could not be.
type modelFile struct {
	path string
	err  error
}

// model writes the tiny model once (seed 1, Qwen3's tokenizer from
// ../shared): it never emits EOS, so every answer runs to max_tokens.
func model(t *testing.T) string {
	t.Helper()
	return writeModel(t, "tiny.gguf", tinymodel.Default())
}

// stopModel writes the stop model once: the tiny model but that every
// word it reads makes EOS its next token (tinymodel's Stop), so a chat
// answer is one word and then EOS.
func stopModel(t *testing.T) string {
	t.Helper()
	cfg := tinymodel.Default()
	cfg.Stop = true
	return writeModel(t, "tiny-stop.gguf", cfg)
}

// otherModel writes the tiny model of another seed once: the same
// architecture, vocabulary and speed, other weights, so other greedy
// answers.
func otherModel(t *testing.T) string {
	t.Helper()
	cfg := tinymodel.Default()
	cfg.Seed = 2
	return writeModel(t, "tiny-seed2.gguf", cfg)
}

// piecesModel writes the pieces model once: the tiny model but that it
// writes any whole piece of text (tinymodel's Pieces), so its answers
// re-tokenize to other counts than it generated.
func piecesModel(t *testing.T) string {
	t.Helper()
	cfg := tinymodel.Default()
	cfg.Pieces = true
	return writeModel(t, "tiny-pieces.gguf", cfg)
}

// writeModel writes a model into scratch under name, once per name.
func writeModel(t *testing.T, name string, cfg tinymodel.Config) string {
	t.Helper()
	dir := testshared.Path(t, "data", "tokenizers", "qwen3")
	modelMu.Lock()
	defer modelMu.Unlock()
	m, ok := models[name]
	if !ok {
		m.path = filepath.Join(scratch, name)
		m.err = func() error {
			tok, err := tinymodel.LoadTokenizer(dir)
			if err != nil {
				return err
			}
			f, err := os.Create(m.path)
			if err != nil {
				return err
			}
			defer f.Close()
			if err := tinymodel.Write(f, cfg, tok); err != nil {
				return err
			}
			return f.Close()
		}()
		models[name] = m
	}
	if m.err != nil {
		t.Fatal(m.err)
	}
	return m.path
}

// freePort returns a loopback port nothing listens on.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// tail keeps the last bytes a process wrote, for a failure's message.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (w *tail) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if len(w.buf) > 16<<10 {
		w.buf = append([]byte(nil), w.buf[len(w.buf)-8<<10:]...)
	}
	return len(p), nil
}

func (w *tail) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.buf)
}

// start runs an engine until the test ends, and waits until ready answers
// 200 (at most two minutes: a cold model load on a busy machine).
func start(t *testing.T, env []string, ready string, name string, args ...string) *tail {
	t.Helper()
	out := &tail{}
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	deadline := time.Now().Add(2 * time.Minute)
	for {
		select {
		case <-exited:
			t.Fatalf("%s exited before it was ready:\n%s", filepath.Base(name), out)
		default:
		}
		if resp, err := http.Get(ready); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return out
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not ready after 2 minutes (%s):\n%s", filepath.Base(name), ready, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// llamaServer starts llama-server on the model m (model, stopModel) with
// its defaults but for what a two-core machine needs: one thread, eight
// slots (the largest closed loop) of 2,048 tokens each, and its /metrics
// endpoint. It returns the base URL; the server stops when the test ends.
func llamaServer(t *testing.T, m string) string {
	bin := engine(t, "LLMLOAD_LLAMA_SERVER", "llama-server")
	port := freePort(t)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	start(t, nil, base+"/health", bin, "-m", m, "-t", "1", "-np", "8", "-c", "16384", "--metrics",
		"--host", "127.0.0.1", "--port", strconv.Itoa(port))
	return base
}

// ollamaServer is an Ollama server of the test's own.
type ollamaServer struct {
	base, bin string
	env       []string
	out       *tail
	dir       string
}

// ollama starts Ollama with a models folder and home of its own, creates
// the model "tiny" from the tiny model (one thread), and returns the
// server.
func ollama(t *testing.T) *ollamaServer {
	bin := engine(t, "LLMLOAD_OLLAMA", "ollama")
	m := model(t)
	port := freePort(t)
	host := "127.0.0.1:" + strconv.Itoa(port)
	dir := t.TempDir()
	env := []string{"OLLAMA_HOST=" + host, "OLLAMA_MODELS=" + filepath.Join(dir, "models"), "HOME=" + dir, "OLLAMA_NOPRUNE=1"}
	o := &ollamaServer{base: "http://" + host, bin: bin, env: env, dir: dir}
	o.out = start(t, env, o.base+"/api/version", bin, "serve")
	o.create(t, "tiny", m)
	return o
}

// create makes the model name on the server from the GGUF file m, with
// one thread.
func (o *ollamaServer) create(t *testing.T, name, m string) {
	t.Helper()
	mf := filepath.Join(o.dir, "Modelfile."+name)
	if err := os.WriteFile(mf, []byte("FROM "+m+"\nPARAMETER num_thread 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	create := exec.CommandContext(ctx, o.bin, "create", name, "-f", mf)
	create.Env = append(os.Environ(), o.env...)
	if b, err := create.CombinedOutput(); err != nil {
		t.Fatalf("ollama create %s: %v\n%s\nserver:\n%s", name, err, b, o.out)
	}
}

// result is what one llmload run gave.
type result struct {
	code           int
	stdout, stderr string
	res            map[string]any
	out, scenario  string // the results folder, the scenario's name
}

// summary returns a summary figure (0 when absent).
func (r result) summary(key string) float64 {
	s, _ := r.res["summary"].(map[string]any)
	v, _ := s[key].(float64)
	return v
}

// run runs one scenario of testdata/conformance.hcl against base.
func run(t *testing.T, base, model, api, scenario string, extra ...string) result {
	t.Helper()
	out := t.TempDir()
	tok := testshared.Path(t, "data", "tokenizers", "qwen3", "tokenizer.json")
	args := append([]string{"run", "-quiet", "-out", out, "-overwrite", "-scenario", scenario,
		"-var", "base_url=" + base, "-var", "model=" + model, "-var", "api=" + api, "-var", "tokenizer=" + tok}, extra...)
	args = append(args, "../testdata/conformance.hcl")
	cmd := exec.Command(llmload(t), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String(), out: out, scenario: scenario}
	if err != nil && r.code < 0 {
		t.Fatalf("llmload %s: %v", strings.Join(args, " "), err)
	}
	if b, err := os.ReadFile(filepath.Join(out, scenario+".json")); err == nil {
		if err := json.Unmarshal(b, &r.res); err != nil {
			t.Fatalf("the result of %s: %v", scenario, err)
		}
	}
	return r
}

// answer is what one request's line of requests.jsonl says of its answer.
type answer struct {
	FinishReason string `json:"finish_reason"`
	OutputTokens int    `json:"output_tokens"`
	Source       string `json:"output_tokens_source"`
	OutputEvents int    `json:"output_events"`
	IgnoreEOS    bool   `json:"ignore_eos"`
	ShortOutput  bool   `json:"short_output"`
	// TokenizerOutput is the client's own count of the answer's text.
	TokenizerOutput int `json:"tokenizer_output_tokens"`
}

// answers reads the run's requests, one line each.
func (r result) answers(t *testing.T) []answer {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.out, r.scenario+".requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []answer
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var a answer
		if err := json.Unmarshal(line, &a); err != nil {
			t.Fatalf("%s.requests.jsonl: %v", r.scenario, err)
		}
		out = append(out, a)
	}
	return out
}

// statOf is one statistic of a latency in the result's summary (0 when
// absent).
func statOf(r result, metric, stat string) float64 {
	s, _ := r.res["summary"].(map[string]any)
	l, _ := s[metric].(map[string]any)
	v, _ := l[stat].(float64)
	return v
}

// serverDelta is a scraped server figure's increase over the run (0 when
// absent).
func serverDelta(r result, figure string) float64 {
	s, _ := r.res["summary"].(map[string]any)
	srv, _ := s["server"].(map[string]any)
	figs, _ := srv["figures"].(map[string]any)
	f, _ := figs[figure].(map[string]any)
	v, _ := f["delta"].(float64)
	return v
}
