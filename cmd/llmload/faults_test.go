package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/llmload/llmload/executor/executortest"
)

// The secrets testdata/faults.hcl plants, and the URL password the tests
// add to its base_url.
var planted = []string{
	"sk-PLANTED-api-key-0123456789",
	"tok-PLANTED-sensitive-var-42",
	"tenant-PLANTED-header-7",
	"PLANTED-url-pw",
	"PLANTED-metrics-pw",
	"PLANTED-t0k", // a token too short for the validation rule
}

// withPassword puts the planted URL password in a server's URL.
func withPassword(url string) string {
	return strings.Replace(url, "http://", "http://user:PLANTED-url-pw@", 1)
}

// noLeaks fails when any planted secret (or a 12-byte prefix of one) is in
// the outputs or in any file under dir.
func noLeaks(t *testing.T, dir string, outputs ...string) {
	t.Helper()
	texts := map[string]string{}
	for i, o := range outputs {
		texts[fmt.Sprintf("output %d", i)] = o
	}
	if dir != "" {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(path)
				texts[path] = string(b)
			}
			return nil
		})
	}
	for name, text := range texts {
		for _, s := range planted {
			if strings.Contains(text, s[:min(12, len(s))]) {
				t.Errorf("%s leaks %q:\n%s", name, s, text)
			}
		}
	}
}

// requestLines reads a requests file.
func requestMaps(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func errorCount(res map[string]any, kind string) float64 {
	errs, _ := res["summary"].(map[string]any)["errors"].(map[string]any)
	n, _ := errs[kind].(float64)
	return n
}

// Each fault of the fault server, end to end: the exit code, the failure
// kind counted in the result and what the requests file keeps of it.
func TestRunFaults(t *testing.T) {
	half := func(m executortest.Mode, after int) executortest.Config {
		return executortest.Config{Vary: func(i int, c *executortest.Config) {
			if i%2 == 1 {
				c.Mode, c.ModeAfter = m, after
			}
		}}
	}
	tests := []struct {
		name  string
		cfg   executortest.Config
		code  int
		kind  string
		n     float64 // failures of kind (0: only some)
		check func(t *testing.T, res map[string]any, lines []map[string]any)
	}{
		{name: "truncated", cfg: half(executortest.ModeTruncated, 2), code: exitCheckFailed, kind: "truncated_stream", n: 10,
			check: func(t *testing.T, _ map[string]any, lines []map[string]any) {
				for _, l := range lines {
					if l["error"] == "truncated_stream" && (l["bytes_received"] == float64(0) || l["output_events"] != float64(2)) {
						t.Errorf("a truncated request records what it received: %v", l)
					}
				}
			}},
		{name: "reset", cfg: half(executortest.ModeReset, 2), code: exitCheckFailed, kind: "stream_error", n: 10},
		{name: "crash", cfg: executortest.Config{Mode: executortest.ModeCrash, ModeAfter: 5}, code: exitCheckFailed, kind: "connect"},
		{name: "200 JSON", cfg: executortest.Config{Mode: executortest.ModeNotSSE}, code: exitNoResult, kind: "not_sse", n: 20,
			check: func(t *testing.T, res map[string]any, lines []map[string]any) {
				if !strings.Contains(lines[0]["error_message"].(string), "not streamed") {
					t.Errorf("the body is not kept: %v", lines[0]["error_message"])
				}
				// No sample: null, not 0 ms.
				if v, ok := res["p99_ttft_ms"]; !ok || v != nil {
					t.Errorf("p99_ttft_ms = %v (present %v), want null", v, ok)
				}
			}},
		// finish_reason "abort" or "error" (vLLM and SGLang abort so)
		// after a few tokens: a failure, not a completion.
		{name: "finish abort", cfg: executortest.Config{Vary: func(i int, c *executortest.Config) {
			if i%2 == 1 {
				c.FinishReason, c.Tokens = "abort", 3
			}
		}}, code: exitCheckFailed, kind: "server_abort", n: 10},
		{name: "finish error", cfg: executortest.Config{Vary: func(i int, c *executortest.Config) {
			if i%2 == 1 {
				c.FinishReason, c.Tokens = "error", 3
			}
		}}, code: exitCheckFailed, kind: "server_abort", n: 10},
		// Keep-alive comments are not progress: stall_timeout (2 s) ends
		// the request, not the whole-request timeout (5 s).
		{name: "keep-alive comments forever", cfg: half(executortest.ModeKeepAlive, 2), code: exitCheckFailed, kind: "stall", n: 10},
		// One event that never ends is cut at MaxEventBytes.
		{name: "huge event", cfg: half(executortest.ModeHugeEvent, 1), code: exitCheckFailed, kind: "oversized_event", n: 10},
		// A stream far past max_tokens (6 here) is cut at 70 events, in
		// bounded memory, not read to the whole-request timeout.
		{name: "ignores max_tokens", cfg: executortest.Config{Vary: func(i int, c *executortest.Config) {
			if i%2 == 1 {
				c.Tokens = 5000
			}
		}}, code: exitCheckFailed, kind: "oversized_event", n: 10,
			check: func(t *testing.T, _ map[string]any, lines []map[string]any) {
				for _, l := range lines {
					if l["error"] == "oversized_event" && l["output_events"] != float64(71) {
						t.Errorf("cut after %v events, want 71", l["output_events"])
					}
				}
			}},
		{name: "429", cfg: executortest.Config{Mode: executortest.ModeRateLimited}, code: exitNoResult, kind: "rate_limited", n: 20,
			check: func(t *testing.T, _ map[string]any, lines []map[string]any) {
				if lines[0]["retry_after"] != "2" {
					t.Errorf("retry_after = %v, want 2", lines[0]["retry_after"])
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := executortest.New(tt.cfg)
			defer srv.Close()
			out := t.TempDir()
			code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, "-scenario", "open",
				"-var", "base_url="+withPassword(srv.URL), "testdata/faults.hcl")
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			res := resultFile(t, filepath.Join(out, "open.json"))
			n := errorCount(res, tt.kind)
			if tt.n > 0 && n != tt.n || n == 0 {
				t.Errorf("errors.%s = %v, want %v (errors %v)", tt.kind, n, tt.n, res["summary"].(map[string]any)["errors"])
			}
			if !strings.Contains(stdout, tt.kind) {
				t.Errorf("the console does not name %s:\n%s", tt.kind, stdout)
			}
			if tt.check != nil {
				tt.check(t, res, requestMaps(t, filepath.Join(out, "open.requests.jsonl")))
			}
			noLeaks(t, out, stdout, stderr)
		})
	}
}

// The preflight probe meets a target that refuses it: exit 3 before any
// load, with the HTTP status and body, and no secret in them.
func TestRunPreflightRefused(t *testing.T) {
	srv := executortest.New(executortest.Config{Mode: executortest.ModeAuthEcho})
	defer srv.Close()
	out := t.TempDir()
	code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, "-scenario", "open",
		"-var", "base_url="+withPassword(srv.URL), "-var", "preflight=true", "testdata/faults.hcl")
	if code != exitNoResult || !strings.Contains(stderr, "HTTP 401") || !strings.Contains(stderr, "401 Unauthorized. Your request was:") {
		t.Fatalf("exit %d, want %d with the status and body\nstderr:\n%s", code, exitNoResult, stderr)
	}
	if srv.Count() != 1 {
		t.Errorf("the server saw %d requests; want the probe alone", srv.Count())
	}
	noLeaks(t, out, stdout, stderr)
}

// Four users against a dead port back off: a handful of requests in a
// second, where they sent 94,643 in 3 s without a backoff.
func TestRunClosedLoopDeadPort(t *testing.T) {
	dead := executortest.New(executortest.Config{})
	dead.Close()
	out := t.TempDir()
	code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, "-scenario", "closed",
		"-var", "base_url="+withPassword(dead.URL), "testdata/faults.hcl")
	if code != exitNoResult {
		t.Fatalf("exit %d, want %d\nstderr:\n%s", code, exitNoResult, stderr)
	}
	// Each user waits at least 50, 100, 200 and 400 ms after its first
	// failures: at most 5 tries each in 1 s.
	lines := requestMaps(t, filepath.Join(out, "closed.requests.jsonl"))
	if len(lines) == 0 || len(lines) > 20 {
		t.Errorf("%d requests in 1 s from 4 users; want at most 20", len(lines))
	}
	noLeaks(t, out, stdout, stderr)
}

// abort_on stops a run against a broken server, with a failed abort_on
// check (exit 1) and the reason in the console and the result.
func TestRunAbortOn(t *testing.T) {
	srv := executortest.New(executortest.Config{Status: 500, Body: "engine dead"})
	defer srv.Close()
	out := t.TempDir()
	code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, "-scenario", "abort",
		"-var", "base_url="+srv.URL, "testdata/faults.hcl")
	if code != exitCheckFailed {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitCheckFailed, stdout, stderr)
	}
	res := resultFile(t, filepath.Join(out, "abort.json"))
	if a, _ := res["aborted"].(string); !strings.Contains(a, "abort_on") {
		t.Errorf("aborted = %v, want the reason", res["aborted"])
	}
	if sent := srv.Count(); sent >= 400 {
		t.Errorf("the server saw %d requests: the run was not stopped", sent)
	}
	found := false
	for _, c := range res["checks"].([]any) {
		if c := c.(map[string]any); c["name"] == "abort_on" && c["verdict"] == "fail" {
			found = true
		}
	}
	if !found || !strings.Contains(stdout, "ABORTED") {
		t.Errorf("no failed abort_on check in the result (%v) or ABORTED in the console:\n%s", res["checks"], stdout)
	}
}

// Every error path that could carry a secret, end to end: nothing planted
// reaches stdout, stderr or any output file.
func TestSecretsNeverLeak(t *testing.T) {
	// A gateway that echoes the request after some text, so that the key
	// falls across the old 200-byte cut and the new 1 KiB one.
	echo := func(pad int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, strings.Repeat("x", pad))
			r.Header.Write(w)
		}
	}
	type tc struct {
		name string
		h    http.Handler
		args []string
		env  map[string]string
		code int
	}
	tests := []tc{
		{name: "401 echo at preflight", h: echo(0), args: []string{"-scenario", "open", "-var", "preflight=true"}, code: exitNoResult},
		{name: "401 echo during the load", h: echo(0), args: []string{"-scenario", "open"}, code: exitNoResult},
		{name: "long error body, cut at 200", h: echo(150), args: []string{"-scenario", "open"}, code: exitNoResult},
		{name: "long error body, cut at 1 KiB", h: echo(990), args: []string{"-scenario", "open"}, code: exitNoResult},
		{name: "401 echo from /tokenize", h: echo(0), args: []string{"-scenario", "tokenize"}, code: exitNoResult},
		{name: "bad base_url from -var", args: []string{"-var", "base_url=http://user:PLANTED-url-pw@127.0.0.1:99999"}, code: exitInvalid},
		{name: "bad base_url from the environment", env: map[string]string{"LLMLOAD_VAR_base_url": "http://user:PLANTED-url-pw@127.0.0.1:99999"}, code: exitInvalid},
		{name: "failed validation from -var", args: []string{"-var", "token=PLANTED-t0k"}, code: exitInvalid},
		{name: "failed validation from the environment", env: map[string]string{"LLMLOAD_VAR_token": "PLANTED-t0k"}, code: exitInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			args := []string{"run", "-quiet", "-verbose"}
			if tt.h != nil {
				srv := httptest.NewServer(tt.h)
				defer srv.Close()
				args = append(args, "-var", "base_url="+withPassword(srv.URL))
			} else if _, ok := tt.env["LLMLOAD_VAR_base_url"]; !ok && !strings.Contains(strings.Join(tt.args, " "), "base_url") {
				args = append(args, "-var", "base_url=http://user:PLANTED-url-pw@127.0.0.1:1")
			}
			out := t.TempDir()
			args = append(append(args, "-out", out), tt.args...)
			code, stdout, stderr := call(t, context.Background(), append(args, "testdata/faults.hcl")...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			all := stdout + stderr
			if b, err := os.ReadFile(filepath.Join(out, "open.requests.jsonl")); err == nil {
				all += string(b)
			}
			if !strings.Contains(all, "[REDACTED]") && !strings.Contains(all, "xxxxx") && !strings.Contains(all, "sensitive") {
				t.Errorf("nothing was redacted: did the error path run?\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
			}
			noLeaks(t, out, stdout, stderr)
		})
	}
}

func TestValidateNoScenario(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.hcl")
	os.WriteFile(path, []byte("target \"t\" {\n  base_url = \"sim://tiny\"\n}\n"), 0o644)
	code, _, stderr := call(t, context.Background(), "validate", path)
	if code != exitInvalid || !strings.Contains(stderr, "no scenario") {
		t.Errorf("exit %d, stderr %q; want %d: run refuses it", code, stderr, exitInvalid)
	}
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds llmload once for the tests that need a process of its own.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "llmload-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "llmload")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Skipf("cannot build the binary: %v", buildErr)
	}
	return binPath
}

// Ctrl-C, SIGTERM or SIGHUP while a server tokenizer loads the dataset
// (its /tokenize hangs) stops the process at once with exit 130.
func TestSignalDuringTokenizerLoad(t *testing.T) {
	bin := binary(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			asked := make(chan struct{}, 16)
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				asked <- struct{}{}
				select {
				case <-release:
				case <-r.Context().Done():
				}
			}))
			defer func() { close(release); srv.Close() }()
			cmd := exec.Command(bin, "run", "-quiet", "-out", t.TempDir(), "-scenario", "tokenize",
				"-var", "base_url="+srv.URL, "testdata/faults.hcl")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			select {
			case <-asked:
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("the process never called /tokenize\nstderr:\n%s", stderr.String())
			}
			start := time.Now()
			cmd.Process.Signal(sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still running 5 s after %v\nstderr:\n%s", sig, stderr.String())
			}
			if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
				t.Errorf("exit %d after %v (in %v), want %d\nstderr:\n%s", code, sig, time.Since(start), exitInterrupted, stderr.String())
			}
		})
	}
}
