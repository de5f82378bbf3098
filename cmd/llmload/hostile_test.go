package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmload/llmload/executor/executortest"
	"github.com/llmload/llmload/internal/testshared"
)

// TestRedirects: a target that redirects. By default no redirect is
// followed (each request fails as a redirect, and the run has no valid
// result); follow_redirects = "same-host" follows the target's own. In no
// case does another host receive a request, a credential, a configured
// header or a body: not from the load, the version probe, the tokenizer
// or the metrics scrape.
func TestRedirects(t *testing.T) {
	var mu sync.Mutex
	var stolen []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		stolen = append(stolen, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization")+" "+r.Header.Get("X-Auth"))
		mu.Unlock()
		http.Error(w, "not here", http.StatusNotFound)
	}))
	defer other.Close()
	engine := executortest.New(executortest.Config{})
	defer engine.Close()
	eu, _ := url.Parse(engine.URL)
	proxy := httputil.NewSingleHostReverseProxy(eu)

	for _, tc := range []struct {
		name, policy string
		// to is where the target redirects its API paths: "other" (another
		// host) or "self" (its own /moved/ prefix).
		to        string
		status    int
		code      int
		redirects float64
	}{
		{name: "307 elsewhere, default", policy: "never", to: "other", status: http.StatusTemporaryRedirect, code: exitNoResult, redirects: 20},
		{name: "302 elsewhere, default", policy: "never", to: "other", status: http.StatusFound, code: exitNoResult, redirects: 20},
		{name: "307 elsewhere, same-host", policy: "same-host", to: "other", status: http.StatusTemporaryRedirect, code: exitNoResult, redirects: 20},
		{name: "308 to itself, default", policy: "never", to: "self", status: http.StatusPermanentRedirect, code: exitNoResult, redirects: 20},
		{name: "307 to itself, same-host", policy: "same-host", to: "self", status: http.StatusTemporaryRedirect, code: exitOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var target *httptest.Server
			target = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if rest, ok := strings.CutPrefix(r.URL.Path, "/moved"); ok {
					r.URL.Path = rest
					proxy.ServeHTTP(w, r)
					return
				}
				base := other.URL
				if tc.to == "self" {
					base = target.URL + "/moved"
				}
				http.Redirect(w, r, base+r.URL.Path, tc.status)
			}))
			defer target.Close()
			out := t.TempDir()
			code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, "-scenario", "open",
				"-var", "base_url="+withPassword(target.URL), "-var", "follow_redirects="+tc.policy, "-var", "preflight=true", "testdata/faults.hcl")
			if tc.redirects > 0 {
				// The preflight probe meets the redirect first: no load.
				if code != tc.code || !strings.Contains(stderr, "redirect") {
					t.Fatalf("exit %d, want %d naming the redirect\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
				}
			} else if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			mu.Lock()
			if len(stolen) > 0 {
				t.Errorf("another host received %d requests: %q", len(stolen), stolen)
			}
			stolen = nil
			mu.Unlock()
			noLeaks(t, out, stdout, stderr)
		})
	}

	// Without the preflight probe, every request of the load meets the
	// redirect and fails as one, with where it pointed (scrubbed: the
	// Location carries the API key), under either policy; the metrics
	// scrape (the default <base_url>/metrics) meets it too.
	for _, policy := range []string{"never", "same-host"} {
		t.Run("the load's requests, "+policy, func(t *testing.T) {
			target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other.URL+r.URL.Path+"?key=sk-PLANTED-api-key-0123456789", http.StatusTemporaryRedirect)
			}))
			defer target.Close()
			out := t.TempDir()
			code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, "-scenario", "open",
				"-var", "base_url="+withPassword(target.URL), "-var", "follow_redirects="+policy, "testdata/faults.hcl")
			if code != exitNoResult {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitNoResult, stdout, stderr)
			}
			res := resultFile(t, filepath.Join(out, "open.json"))
			if n := errorCount(res, "redirect"); n != 20 {
				t.Errorf("errors.redirect = %v, want 20 (errors %v)", n, res["summary"].(map[string]any)["errors"])
			}
			lines := requestMaps(t, filepath.Join(out, "open.requests.jsonl"))
			if msg, _ := lines[0]["error_message"].(string); !strings.Contains(msg, "HTTP 307 redirect to") || !strings.Contains(msg, other.URL) {
				t.Errorf("the message does not say where the redirect pointed: %q", msg)
			}
			if !strings.Contains(stdout, "redirect") {
				t.Errorf("the console does not name the redirects:\n%s", stdout)
			}
			mu.Lock()
			if len(stolen) > 0 {
				t.Errorf("another host received %d requests: %q", len(stolen), stolen)
			}
			stolen = nil
			mu.Unlock()
			noLeaks(t, out, stdout, stderr)
		})
	}

	// The server tokenizer's /tokenize meets a redirect elsewhere: the
	// dataset cannot load, and nothing reaches the other host.
	for _, policy := range []string{"never", "same-host"} {
		t.Run("the tokenizer, "+policy, func(t *testing.T) {
			target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
			}))
			defer target.Close()
			out := t.TempDir()
			code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, "-scenario", "tokenize",
				"-var", "base_url="+withPassword(target.URL), "-var", "follow_redirects="+policy, "testdata/faults.hcl")
			if code == exitOK || code == exitCheckFailed || !strings.Contains(stderr, "redirect") {
				t.Fatalf("exit %d, want no result naming the redirect\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			mu.Lock()
			if len(stolen) > 0 {
				t.Errorf("another host received %d requests: %q", len(stolen), stolen)
			}
			stolen = nil
			mu.Unlock()
			noLeaks(t, out, stdout, stderr)
		})
	}
}

// TestHoldAfterDone: a server that ends every stream with [DONE] but holds
// the body open. The request is complete at [DONE]: a closed loop's users
// go on at once, where they used to wait for stall_timeout (2 s here)
// after every answer (4 requests a second instead of hundreds).
func TestHoldAfterDone(t *testing.T) {
	srv := executortest.New(executortest.Config{Mode: executortest.ModeHoldAfterDone, Tokens: 4})
	defer srv.Close()
	out := t.TempDir()
	code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, "-scenario", "closed",
		"-var", "base_url="+withPassword(srv.URL), "testdata/faults.hcl")
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	res := resultFile(t, filepath.Join(out, "closed.json"))
	// 4 users for 1 s: had each waited for stall_timeout, at most 4
	// requests would have finished.
	if n, _ := res["completed"].(float64); n < 20 {
		t.Errorf("%v requests completed in 1 s by 4 users; each waited for the body's end", n)
	}
	if n, _ := res["failed"].(float64); n != 0 {
		t.Errorf("%v requests failed", n)
	}
}

// TestUsageContradictsStream: a server whose usage block claims ten times
// the tokens it streamed (or none) would make TPOT and output throughput,
// which rest on usage, look better (or break them). What it streamed
// outranks what it claims: the run is invalid (token_mismatch), exit 3.
func TestUsageContradictsStream(t *testing.T) {
	for _, tc := range []struct {
		name  string
		usage int
		code  int
	}{
		{"honest", 0, exitOK},
		{"ten times the streamed tokens", 60, exitNoResult},
		{"none", -1, exitNoResult},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := executortest.New(executortest.Config{Tokens: 6, Text: "word ", UsageTokens: tc.usage})
			defer srv.Close()
			out := t.TempDir()
			code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, "-scenario", "open",
				"-var", "base_url="+withPassword(srv.URL), "testdata/faults.hcl")
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			if tc.code == exitOK {
				return
			}
			if !strings.Contains(stdout, "INVALID (token_mismatch)") || !strings.Contains(stderr, "token_mismatch") {
				t.Errorf("the report does not name token_mismatch:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
			}
			res := resultFile(t, filepath.Join(out, "open.json"))
			if n, _ := res["summary"].(map[string]any)["token_count_mismatches"].(float64); n != 20 {
				t.Errorf("token_count_mismatches = %v, want 20", n)
			}
		})
	}
}

// TestOffSpecAnswers: servers that stream well but not what was asked.
// A proxy that flushes four events at a time (true gap 20 ms) shows an
// ITL p50 of 0 ms: the ITL check is inconclusive, not a pass. An answer
// from another model, or longer than max_tokens, measured another
// workload: the run is invalid. Exit 3 for each; their honest twins
// pass.
func TestOffSpecAnswers(t *testing.T) {
	for _, tc := range []struct {
		name, scenario string
		cfg            executortest.Config
		code           int
		says           string // in stdout
		figure         string // the summary's count, 20 when the run is off
	}{
		{"paced stream", "itl", executortest.Config{TTFT: 10 * time.Millisecond, ITL: 20 * time.Millisecond}, exitOK, "", "coalesced_streams"},
		{"four events per flush", "itl", executortest.Config{TTFT: 10 * time.Millisecond, ITL: 20 * time.Millisecond, Coalesce: 4}, exitNoResult,
			"came in bursts", "coalesced_streams"},
		{"the model asked for, tagged", "open", executortest.Config{Model: "m:latest"}, exitOK, "", "other_model"},
		{"another model", "open", executortest.Config{Model: "gpt-\x1b[2Jevil"}, exitNoResult, "INVALID (other_model)", "other_model"},
		{"twice max_tokens", "open", executortest.Config{Tokens: 12}, exitNoResult, "INVALID (over_max_tokens)", "over_max_tokens"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := executortest.New(tc.cfg)
			defer srv.Close()
			out := t.TempDir()
			code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, "-scenario", tc.scenario,
				"-var", "base_url="+withPassword(srv.URL), "testdata/faults.hcl")
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			if !strings.Contains(stdout, tc.says) {
				t.Errorf("stdout does not say %q:\n%s", tc.says, stdout)
			}
			res := resultFile(t, filepath.Join(out, tc.scenario+".json"))
			n, _ := res["summary"].(map[string]any)[tc.figure].(float64)
			if want := map[bool]float64{true: 0, false: 20}[tc.code == exitOK]; n != want {
				t.Errorf("%s = %v, want %v", tc.figure, n, want)
			}
			if strings.Contains(stdout+stderr, "\x1b") {
				t.Errorf("a server's model name reached the terminal raw")
			}
			if tc.figure == "other_model" && tc.code != exitOK {
				if l := requestMaps(t, filepath.Join(out, tc.scenario+".requests.jsonl")); l[0]["served_model"] != tc.cfg.Model {
					t.Errorf("served_model = %q, want %q", l[0]["served_model"], tc.cfg.Model)
				}
			}
			noLeaks(t, out, stdout, stderr)
		})
	}
}

// TestHostileText: a server's words reach the terminal, the log and the
// Markdown report escaped. Its /version forges a heading, an image and
// HTML; its error bodies carry ANSI escapes and a newline that would
// start a forged "llmload: all checks passed" line.
func TestHostileText(t *testing.T) {
	const forged = "llmload: all checks passed"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/version" {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"version":"1.0\n## ALL CHECKS PASSED\n![x](http://evil.example/i.png) <script>alert(1)</script> `+"`code`"+` \u001b[2J"}`)
			return
		}
		http.Error(w, "bad request\x1b[2J\x1b[32m\n"+forged+"\n", http.StatusBadRequest)
	}))
	defer srv.Close()
	out := t.TempDir()
	md := filepath.Join(out, "report.md")
	code, stdout, stderr := call(t, context.Background(), "run", "-out", out, "-scenario", "open", "-markdown", md,
		"-var", "base_url="+withPassword(srv.URL), "testdata/faults.hcl")
	if code != exitNoResult {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitNoResult, stdout, stderr)
	}
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"stdout": stdout, "stderr": stderr, "the Markdown report": string(b)} {
		if strings.Contains(text, "\x1b") {
			t.Errorf("%s carries a raw escape:\n%q", name, text)
		}
		for _, line := range strings.Split(text, "\n") {
			if strings.TrimSpace(line) == forged || strings.HasPrefix(line, "## ALL CHECKS PASSED") {
				t.Errorf("%s has a line the server forged: %q", name, line)
			}
			// What the server wrote is inside a code span, where Markdown
			// and HTML are inert.
			if i := strings.Index(line, "<script>"); name == "the Markdown report" && i >= 0 && !strings.Contains(line[:i], "`` ") {
				t.Errorf("%s renders the server's HTML: %q", name, line)
			}
		}
	}
	if !strings.Contains(string(b), "<script>") {
		t.Errorf("the Markdown report does not show the server's version at all:\n%s", b)
	}
}

// TestClientFileLimit: the client's own file-descriptor limit (ulimit -n
// 40, hard and soft, for 200 streams at once) is the client's failure,
// not the server's: the requests it could not open fail as client_limit,
// the run is invalid (exit 3), and the warning says the limit could not
// be raised rather than that it was.
func TestClientFileLimit(t *testing.T) {
	bin := binary(t)
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash to set the limit with")
	}
	srv := executortest.New(executortest.Config{TTFT: 300 * time.Millisecond})
	defer srv.Close()
	out := t.TempDir()
	cmd := exec.Command("bash", "-c", `ulimit -n 40 && exec "$0" "$@"`, bin, "run", "-quiet", "-out", out, "-scenario", "many",
		"-var", "base_url="+withPassword(srv.URL), "testdata/faults.hcl")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != exitNoResult {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitNoResult, stdout.String(), stderr.String())
	}
	if !strings.Contains(stderr.String(), "hard limit is 40 (the soft limit is already there)") || strings.Contains(stderr.String(), "raised") {
		t.Errorf("the warning does not say the limit stayed:\n%s", stderr.String())
	}
	t.Logf("stderr:\n%s", stderr.String())
	res := resultFile(t, filepath.Join(out, "many.json"))
	if n := errorCount(res, "client_limit"); n == 0 || errorCount(res, "connect") != 0 {
		t.Errorf("errors %v: want client_limit failures and no connect failure", res["summary"].(map[string]any)["errors"])
	}
	if !strings.Contains(stdout.String(), "INVALID (client_limit)") {
		t.Errorf("the report does not name client_limit:\n%s", stdout.String())
	}
	noLeaks(t, out, stdout.String(), stderr.String())
}

// TestPlantedSecretsEveryOutput plants a secret in every place a value
// can come from (testdata/planted.hcl: the environment, sensitive
// variables in a header, extra_body, the metrics URL and the tokenizer's
// folder, a sensitive header, the base URL's password) and greps every
// output a run and its reports make: stdout and stderr (with GitHub's
// annotations, and -format json), the result, the requests file, the
// saved baseline, the HTML report, JUnit, Markdown, the step summary, the
// live metrics endpoint while the run goes, and report and compare on
// the result. A quarter of the requests meet a 401 that echoes the
// request's headers, so error messages carry the secrets too.
func TestPlantedSecretsEveryOutput(t *testing.T) {
	shared := testshared.Path(t, "data", "tokenizers", "qwen3", "tokenizer.json")
	tokDir := filepath.Join(t.TempDir(), "tok-PLANTED-sensitive-var-42")
	if err := os.MkdirAll(tokDir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(shared)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tokDir, "tokenizer.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := executortest.New(executortest.Config{TTFT: 50 * time.Millisecond, Vary: func(i int, c *executortest.Config) {
		if i%4 == 1 {
			c.Mode = executortest.ModeAuthEcho
		}
	}})
	defer srv.Close()

	dir := t.TempDir()
	out, baseline := filepath.Join(dir, "out"), filepath.Join(dir, "baseline")
	summary := filepath.Join(dir, "step-summary.md")
	t.Setenv("LLMLOAD_TEST_PLANTED_KEY", "sk-PLANTED-api-key-0123456789")
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	live := l.Addr().String()
	l.Close()
	// The live endpoint, read while the run goes.
	var scraped []string
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if resp, err := http.Get("http://" + live + "/metrics"); err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				scraped = append(scraped, string(b))
			}
		}
	}()
	vars := []string{"-var", "base_url=" + withPassword(srv.URL), "-var", "tokenizer_dir=" + tokDir,
		"-var", "metrics_url=" + strings.Replace(srv.URL, "http://", "http://scraper:PLANTED-metrics-pw@", 1) + "/metrics", "testdata/planted.hcl"}
	code, stdout, stderr := call(t, context.Background(), append([]string{"run", "-quiet", "-verbose", "-out", out, "-overwrite",
		"-format", "json", "-html", filepath.Join(dir, "report.html"), "-junit", filepath.Join(dir, "junit.xml"),
		"-markdown", filepath.Join(dir, "report.md"), "-save-baseline", baseline, "-metrics-addr", live}, vars...)...)
	close(stop)
	<-done
	if code != exitCheckFailed {
		t.Fatalf("exit %d, want %d (the checks fail)\nstdout:\n%s\nstderr:\n%s", code, exitCheckFailed, stdout, stderr)
	}
	if len(scraped) == 0 || !strings.Contains(strings.Join(scraped, ""), "llmload_") {
		t.Errorf("the live endpoint was never read (%d reads)", len(scraped))
	}
	if !strings.Contains(stderr, "::error") {
		t.Errorf("no GitHub annotation on stderr (stdout has the JSON):\n%s", stderr)
	}
	outputs := append([]string{stdout, stderr}, scraped...)
	result := filepath.Join(out, "planted.json")
	for _, args := range [][]string{
		append([]string{"plan", "-show-request"}, vars...),
		append([]string{"validate"}, vars...),
		{"report", "-format", "markdown", result},
		{"report", "-html", filepath.Join(dir, "report2.html"), result},
		{"compare", "-markdown", filepath.Join(dir, "compare.md"), result, result},
	} {
		code, o, e := call(t, context.Background(), args...)
		if code == exitInvalid {
			t.Errorf("%s: exit %d, so its output proves nothing\n%s%s", args[0], code, o, e)
		}
		outputs = append(outputs, o, e)
	}
	// Every file written must exist (else the grep proves nothing).
	for _, f := range []string{result, filepath.Join(out, "planted.requests.jsonl"), filepath.Join(baseline, "planted.json"),
		filepath.Join(dir, "report.html"), filepath.Join(dir, "junit.xml"), filepath.Join(dir, "report.md"), summary,
		filepath.Join(dir, "report2.html"), filepath.Join(dir, "compare.md")} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("an output is missing: %v", err)
		}
	}
	if all := strings.Join(outputs, ""); !strings.Contains(all, "[REDACTED]") && !strings.Contains(all, "xxxxx") {
		t.Errorf("nothing was redacted: did the error path run?")
	}
	noLeaks(t, dir, outputs...)
	if t.Failed() {
		b, _ := os.ReadFile(result)
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "PLANTED") {
				t.Logf("result: %s", line)
			}
		}
	}
}

// TestEngineNumbers: an engine that reports its own numbers of each
// request (here the simulator, as vLLM's --enable-per-request-metrics
// does) has them recorded per request, summed up in the result and the
// console, with the part of TTFT outside the engine.
func TestEngineNumbers(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, "-scenario", "engine", "testdata/engine-numbers.hcl")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	res := resultFile(t, filepath.Join(out, "engine.json"))
	sum := res["summary"].(map[string]any)
	completed := sum["completed"].(float64)
	for _, k := range []string{"engine_ttft", "client_overhead"} {
		l, _ := sum[k].(map[string]any)
		if n, _ := l["count"].(float64); n != completed {
			t.Errorf("%s has %v samples, want one per completed request (%v): %v", k, n, completed, l)
		}
	}
	// A one-token answer has no time per output token.
	if l, _ := sum["engine_tpot"].(map[string]any); l["count"] == nil || l["count"].(float64) == 0 || l["count"].(float64) > completed {
		t.Errorf("engine_tpot: %v", l)
	}
	// The engine's TTFT runs from the request's arrival in it, after the
	// client's send: never more than the client's own.
	ttft, engine := sum["ttft"].(map[string]any), sum["engine_ttft"].(map[string]any)
	if engine["min"].(float64) > ttft["max"].(float64) || engine["p50"].(float64) > ttft["p50"].(float64) {
		t.Errorf("engine TTFT %v over the client's %v", engine, ttft)
	}
	for _, l := range requestMaps(t, filepath.Join(out, "engine.requests.jsonl")) {
		e, _ := l["engine_ttft_ms"].(float64)
		ttft, _ := l["ttft_ms"].(float64)
		// Each request carries the W3C traceparent it was sent with.
		if tp, _ := l["traceparent"].(string); !regexp.MustCompile(`^00-[0-9a-f]{32}-[0-9a-f]{16}-01$`).MatchString(tp) {
			t.Errorf("a request's traceparent %q", tp)
			break
		}
		if o, _ := l["client_overhead_ms"].(float64); e <= 0 || e > ttft || o < 0 || o > ttft {
			t.Errorf("a request's engine_ttft_ms %v, client_overhead_ms %v (its TTFT %v ms)", l["engine_ttft_ms"], l["client_overhead_ms"], ttft)
			break
		}
	}
	// Speculative decoding: each step's two tokens are an accepted draft
	// and a bonus token (every draft accepted).
	drafted, _ := sum["draft_tokens"].(float64)
	accepted, _ := sum["accepted_draft_tokens"].(float64)
	if drafted == 0 || accepted != drafted || !strings.Contains(stdout, fmt.Sprintf("speculative decoding: %v of %v draft tokens accepted", accepted, drafted)) {
		t.Errorf("draft tokens %v accepted of %v over %v requests; console:\n%s", accepted, drafted, completed, stdout)
	}
	if sum["spec_acceptance"] != accepted/drafted {
		t.Errorf("summary.spec_acceptance %v, want %v", sum["spec_acceptance"], accepted/drafted)
	}
	if !strings.Contains(stdout, "Engine (as it reported): TTFT p50") || !strings.Contains(stdout, "TTFT outside the engine p50") {
		t.Errorf("the console does not show the engine's numbers:\n%s", stdout)
	}
	// A draft model that agrees less (half its drafts accepted) fails a
	// gate on the acceptance rate.
	code, stdout, stderr = call(t, context.Background(), "run", "-quiet", "-out", out, "-scenario", "spec_gate", "testdata/engine-numbers.hcl")
	gate := resultFile(t, filepath.Join(out, "spec_gate.json"))["summary"].(map[string]any)
	if code != exitCheckFailed || gate["spec_acceptance"] != 0.5 || !strings.Contains(stdout, "FAIL   drafts_accepted") {
		t.Errorf("half the drafts accepted: exit %d, spec_acceptance %v; want 1 and 0.5\nstdout:\n%s\nstderr:\n%s", code, gate["spec_acceptance"], stdout, stderr)
	}
	// compare shows them too, when both sides have them.
	result := filepath.Join(out, "engine.json")
	_, table, _ := call(t, context.Background(), "compare", result, result)
	if !strings.Contains(table, "engine TTFT") || !strings.Contains(table, "engine TPOT") || !strings.Contains(table, "TTFT outside the engine") || !strings.Contains(table, "draft acceptance") {
		t.Errorf("compare has no rows of the engine's numbers:\n%s", table)
	}
	// The validity block names TTFT outside the engine: within the
	// default bound here (lifted: the test measures no network), over one
	// a scenario sets (exit 3).
	if !regexp.MustCompile(`client_overhead +[0-9.]+ ms +<= [0-9]+ ms +ok`).MatchString(stdout) {
		t.Errorf("the validity block does not judge client_overhead:\n%s", stdout)
	}
	code, stdout, stderr = call(t, context.Background(), "run", "-quiet", "-out", out, "-scenario", "slow_path", "testdata/engine-numbers.hcl")
	if code != exitNoResult || !strings.Contains(stderr, "invalid run (client_overhead") || !strings.Contains(stdout, "INVALID (client_overhead)") {
		t.Errorf("a bound of 1 µs outside the engine: exit %d, want %d, naming client_overhead\nstdout:\n%s\nstderr:\n%s", code, exitNoResult, stdout, stderr)
	}
}

// TestSystemFingerprints: answers from two server builds (a load balancer
// in front of a half-upgraded fleet) are counted by their
// system_fingerprint in the result, and the console says several builds
// answered.
func TestSystemFingerprints(t *testing.T) {
	srv := executortest.New(executortest.Config{Vary: func(i int, c *executortest.Config) {
		c.Fingerprint = []string{"b1-80fb11a", "b2-\x1b[2Jnew"}[i%2]
	}})
	defer srv.Close()
	out := t.TempDir()
	code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, "-scenario", "open",
		"-var", "base_url="+withPassword(srv.URL), "testdata/faults.hcl")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	fps, _ := resultFile(t, filepath.Join(out, "open.json"))["summary"].(map[string]any)["system_fingerprints"].(map[string]any)
	if fps["b1-80fb11a"] != float64(10) || len(fps) != 2 {
		t.Errorf("system_fingerprints = %v, want 10 of each build", fps)
	}
	if !strings.Contains(stdout, "answers carried 2 system fingerprints") || strings.Contains(stdout, "\x1b") {
		t.Errorf("the console does not say two builds answered, or prints the server's escape raw:\n%s", stdout)
	}
}
