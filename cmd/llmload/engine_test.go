package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/sim"
)

// TestPrefixReuse: prompts that share a 64-token prefix against the
// simulator with vLLM's automatic prefix caching. With the cache on, each
// answer's cached_tokens sum to what an ideal cache would serve (the
// preflight probe's marked prompt warms none of the run's blocks), and
// the assert on prefix_reuse passes; with it off, the answers report
// nothing, the reuse comes from the scraped hit counter (0) and the same
// assert fails the run.
func TestPrefixReuse(t *testing.T) {
	for _, tc := range []struct {
		scenario  string
		code      int
		reuse     float64
		source    string  // summary.prefix_reuse_source
		cached    float64 // summary.cached_tokens
		console   string
		perAnswer bool
	}{
		{"cached", exitOK, 1, "answers", 704, "prefix reuse 100% of an ideal cache's 704 tokens.", true},
		{"uncached", exitCheckFailed, 0, "prefix_cache_hits", 0, "prefix reuse 0% of an ideal cache's 704 tokens, by the server's prefix_cache_hits counter", false},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			out := t.TempDir()
			code, stdout, stderr := call(t, context.Background(), "run", "-out", out, "-scenario", tc.scenario, "testdata/prefix-reuse.hcl")
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			if !strings.Contains(stdout, tc.console) {
				t.Errorf("the console does not say %q:\n%s", tc.console, stdout)
			}
			res := resultFile(t, filepath.Join(out, tc.scenario+".json"))
			sum := res["summary"].(map[string]any)
			if c, _ := sum["cached_tokens"].(float64); c != tc.cached {
				t.Errorf("cached_tokens %v, want %v", sum["cached_tokens"], tc.cached)
			}
			// The result carries the figure its assert judged, and where
			// it came from.
			if sum["prefix_reuse"] != tc.reuse || sum["prefix_reuse_source"] != tc.source {
				t.Errorf("summary.prefix_reuse %v from %v, want %v from %q", sum["prefix_reuse"], sum["prefix_reuse_source"], tc.reuse, tc.source)
			}
			// compare has a prefix reuse row when both sides have one.
			if tc.perAnswer {
				result := filepath.Join(out, tc.scenario+".json")
				if _, table, _ := call(t, context.Background(), "compare", result, result); !strings.Contains(table, "prefix reuse") {
					t.Errorf("compare has no prefix reuse row:\n%s", table)
				}
			}
			var refs []any
			for _, c := range res["checks"].([]any) {
				if c := c.(map[string]any); c["name"] == "reuse" {
					refs, _ = c["refs"].([]any)
				}
			}
			if len(refs) != 1 || refs[0].(map[string]any)["value"] != tc.reuse {
				t.Errorf("the reuse check's values %v, want metrics.prefix_reuse = %v", refs, tc.reuse)
			}
			// Every request after the first finds the shared prefix, as
			// the ideal cache would.
			lines := requestMaps(t, filepath.Join(out, tc.scenario+".requests.jsonl"))
			for _, l := range lines {
				c, reported := l["cached_tokens"].(float64)
				ideal, _ := l["ideal_cached_tokens"].(float64)
				if reported != tc.perAnswer || reported && c != ideal || ideal != 64*min(l["dataset_index"].(float64), 1) {
					t.Errorf("request %v: cached_tokens %v, ideal %v", l["id"], l["cached_tokens"], l["ideal_cached_tokens"])
				}
			}
			if len(lines) != 12 {
				t.Errorf("%d request lines, want 12", len(lines))
			}
		})
	}
}

// TestPromptCache: two runs (a repeat) of the same prompts against one
// simulator that caches prefixes. With the engine's cache shared the
// second run is served warm from the first (every prompt's whole blocks,
// more than an ideal cache of the run's own prompts); "isolate" gives each
// run a cache_salt of its own, so each run gets exactly the ideal; "off"
// gets nothing served.
func TestPromptCache(t *testing.T) {
	for _, tc := range []struct {
		policy string
		cached [2]float64 // summary.cached_tokens of each run
	}{
		{"shared", [2]float64{704, 1152}},
		{"isolate", [2]float64{704, 704}},
		{"off", [2]float64{0, 0}},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			out := t.TempDir()
			code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, "-var", "policy="+tc.policy, "testdata/prompt-cache.hcl")
			if code != exitOK {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			res := resultFile(t, filepath.Join(out, "twice.json"))
			runs, _ := res["repeat"].(map[string]any)["runs"].([]any)
			if len(runs) != 2 {
				t.Fatalf("%d runs in the result, want 2", len(runs))
			}
			for i, r := range runs {
				sum := r.(map[string]any)["summary"].(map[string]any)
				c, _ := sum["cached_tokens"].(float64)
				if c != tc.cached[i] || sum["cache_reports"] != 12.0 || sum["ideal_cached_tokens"] != 704.0 {
					t.Errorf("run %d: %v cached tokens over %v reports (ideal %v), want %v over 12 (ideal 704)",
						i+1, sum["cached_tokens"], sum["cache_reports"], sum["ideal_cached_tokens"], tc.cached[i])
				}
			}
		})
	}
}

// TestPromptCacheAB: the two arms of an A/B run against one engine that
// caches prompt prefixes. "isolate" gives each arm one cache_salt for all
// its blocks, the two arms different ones, so an arm reuses at most what
// an ideal cache of its own would; "shared" sends none, and the arm that
// runs second in a block finds the first one's prompts cached, beyond the
// ideal; "off" gives every request its own salt and nothing is reused.
func TestPromptCacheAB(t *testing.T) {
	for _, policy := range []string{"shared", "isolate", "off"} {
		t.Run(policy, func(t *testing.T) {
			p, err := sim.LookupProfile("tiny")
			if err != nil {
				t.Fatal(err)
			}
			p.Model, p.PrefixCaching = "tiny", true
			server := sim.NewServer(p, 1)
			server.Start()
			defer server.Close()
			engine := server.Handler()
			var mu sync.Mutex
			salts := map[string][]string{} // arm: the cache_salt of each request, "" for none
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if arm := r.Header.Get("X-Arm"); arm != "" && r.Method == http.MethodPost {
					body, _ := io.ReadAll(r.Body)
					r.Body = io.NopCloser(bytes.NewReader(body))
					var req struct {
						Salt string `json:"cache_salt"`
					}
					_ = json.Unmarshal(body, &req)
					mu.Lock()
					salts[arm] = append(salts[arm], req.Salt)
					mu.Unlock()
				}
				engine.ServeHTTP(w, r)
			}))
			defer srv.Close()
			out := t.TempDir()
			code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out,
				"-var", "url="+srv.URL, "-var", "policy="+policy, "testdata/prompt-cache-ab.hcl")
			if code != exitOK {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			res := resultFile(t, filepath.Join(out, "ab.json"))
			arms := map[string]map[string]any{
				"baseline":  res["ab"].(map[string]any)["baseline"].(map[string]any)["summary"].(map[string]any),
				"candidate": res["summary"].(map[string]any),
			}
			mu.Lock()
			defer mu.Unlock()
			distinct := map[string]string{} // salt: arm
			for arm, sum := range arms {
				cached, _ := sum["cached_tokens"].(float64)
				ideal, _ := sum["ideal_cached_tokens"].(float64)
				if ideal == 0 || sum["cache_reports"] != 12.0 {
					t.Fatalf("%s arm: %v cache reports, ideal %v; want 12 and more than 0", arm, sum["cache_reports"], ideal)
				}
				own := map[string]bool{}
				for _, s := range salts[arm] {
					own[s] = true
					if prev, ok := distinct[s]; ok && prev != arm && s != "" {
						t.Errorf("salt %q sent by both arms", s)
					}
					distinct[s] = arm
				}
				// The preflight probe is sent once, before the first block.
				if n := len(salts[arm]); n < 12 {
					t.Fatalf("%s arm: %d requests seen, want 12 or more", arm, n)
				}
				switch policy {
				case "shared":
					if len(own) != 1 || !own[""] {
						t.Errorf("%s arm: salts %v, want none", arm, salts[arm])
					}
				case "isolate":
					if len(own) != 1 || own[""] {
						t.Errorf("%s arm: salts %v, want one for all its blocks", arm, salts[arm])
					}
					if cached > ideal {
						t.Errorf("%s arm: %v cached tokens over an ideal %v: it was served the other arm's prompts", arm, cached, ideal)
					}
				case "off":
					if len(own) != len(salts[arm]) || own[""] {
						t.Errorf("%s arm: salts %v, want one per request", arm, salts[arm])
					}
					if cached != 0 {
						t.Errorf("%s arm: %v cached tokens, want 0", arm, cached)
					}
				}
			}
			if policy == "shared" {
				total, ideal := arms["baseline"]["cached_tokens"].(float64)+arms["candidate"]["cached_tokens"].(float64),
					arms["baseline"]["ideal_cached_tokens"].(float64)+arms["candidate"]["ideal_cached_tokens"].(float64)
				if total <= ideal {
					t.Errorf("shared: %v cached tokens over both arms, ideal %v: the arm that ran second should find the first one's prompts", total, ideal)
				}
			}
		})
	}
}

// TestSessionPrefixReuse: in a session each later turn's prompt begins
// with the turn before it, which an ideal prefix cache serves in whole
// blocks. Replaying the recorded replies against the simulator's cache,
// every later turn is served exactly that (the simulator caches prompts,
// not the replies it generated: with generated history an engine that
// caches its output, as vLLM does, would serve more).
func TestSessionPrefixReuse(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, "testdata/session-reuse.hcl")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	later := 0
	for _, l := range requestMaps(t, filepath.Join(out, "sessions.requests.jsonl")) {
		ideal, _ := l["ideal_cached_tokens"].(float64)
		cached, _ := l["cached_tokens"].(float64)
		if l["turn"].(float64) == 1 {
			if ideal != 0 {
				t.Errorf("a first turn has an ideal of %v cached tokens", ideal)
			}
			continue
		}
		later++
		// The turn before's prompt, in whole blocks of 16.
		if ideal == 0 || int(ideal)%16 != 0 || cached != ideal {
			t.Errorf("session %v turn %v: %v cached of an ideal %v", l["session"], l["turn"], cached, ideal)
		}
	}
	if later == 0 {
		t.Error("no session had a second turn")
	}
	if !strings.Contains(stdout, "prefix reuse 100% of an ideal cache's") {
		t.Errorf("the console does not report the reuse:\n%s", stdout)
	}
}

// TestOutputs: every request line carries the hash of what was generated;
// outputs { keep = 5 } writes the first five requests' texts, which hash
// to the same, beside the result; finish reasons are counted. A server
// that streams the API key back has it scrubbed from the kept text.
func TestOutputs(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, "testdata/outputs.hcl")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	hashes := map[float64]string{}
	for _, l := range requestMaps(t, filepath.Join(out, "kept.requests.jsonl")) {
		h, _ := l["output_hash"].(string)
		if len(h) != 16 {
			t.Errorf("request %v: output_hash %q", l["id"], h)
		}
		hashes[l["id"].(float64)] = h
	}
	kept := requestMaps(t, filepath.Join(out, "kept.outputs.jsonl"))
	if len(kept) != 5 {
		t.Fatalf("%d kept outputs, want 5", len(kept))
	}
	for _, l := range kept {
		id := l["id"].(float64)
		text, _ := l["text"].(string)
		f := fnv.New64a()
		f.Write([]byte(text))
		if id >= 5 || text == "" || fmt.Sprintf("%016x", f.Sum64()) != hashes[id] || l["output_hash"] != hashes[id] {
			t.Errorf("kept output %v: hash %v, the requests file's %v, text %q", id, l["output_hash"], hashes[id], text)
		}
	}
	sum := resultFile(t, filepath.Join(out, "kept.json"))["summary"].(map[string]any)
	finish, _ := sum["finish"].(map[string]any)
	stop, _ := finish["stop"].(float64)
	length, _ := finish["length"].(float64)
	if stop+length != sum["completed"].(float64) || stop == 0 || length == 0 {
		t.Errorf("summary.finish %v for %v completed (the simulator stops some answers and cuts others)", finish, sum["completed"])
	}

	// A server whose answer holds the API key it was sent.
	const key = "sk-PLANTED-api-key-0123456789"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, s := range []string{"the key is ", strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")} {
			b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "text": s, "finish_reason": nil}}})
			fmt.Fprintf(w, "data: %s\n\n", b)
		}
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"text\":\"\",\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	leak := t.TempDir()
	call(t, context.Background(), "run", "-quiet", "-out", leak, "-var", "base_url="+srv.URL, "-var", "api_key="+key, "testdata/outputs.hcl")
	b, err := os.ReadFile(filepath.Join(leak, "kept.outputs.jsonl"))
	if err != nil || !strings.Contains(string(b), "the key is ") || strings.Contains(string(b), key[:12]) {
		t.Errorf("the kept outputs (%v) hold the key, or nothing:\n%s", err, b)
	}
}

// TestOutputFaults: the simulator answering at its healthy speed with
// one word repeated, with byte fragments, or never stopping before
// max_tokens passes every latency check and fails the output checks alone
// (exit 1); the healthy simulator passes them.
func TestOutputFaults(t *testing.T) {
	for _, tc := range []struct {
		fault  string
		failed []string // the checks that fail; the default bound on defective outputs is output_defect_rate
		code   int
	}{
		{"none", nil, exitOK},
		{"repeat_token", []string{"no_loops", "output_defect_rate"}, exitCheckFailed},
		{"garbage_output", []string{"valid_text", "output_defect_rate"}, exitCheckFailed},
		{"never_stop", []string{"stops"}, exitCheckFailed},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			out := t.TempDir()
			code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, "-scenario", "answers", "-var", "fault="+tc.fault, "testdata/output-faults.hcl")
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			res := resultFile(t, filepath.Join(out, "answers.json"))
			for _, c := range res["checks"].([]any) {
				c := c.(map[string]any)
				if want := map[bool]string{true: "fail", false: "pass"}[slices.Contains(tc.failed, c["name"].(string))]; c["verdict"] != want {
					t.Errorf("check %v: %v, want %s", c["name"], c["verdict"], want)
				}
			}
			// With no output check written, the default catches the
			// answers that say nothing (not one that never stops: its
			// text is fine, and the finish counts are for asserts).
			dout := t.TempDir()
			code, stdout, _ = call(t, context.Background(), "run", "-quiet", "-out", dout, "-scenario", "defaults", "-var", "fault="+tc.fault, "testdata/output-faults.hcl")
			wantDefault := slices.Contains(tc.failed, "output_defect_rate")
			if code != map[bool]int{true: exitCheckFailed, false: exitOK}[wantDefault] || wantDefault != strings.Contains(stdout, "FAIL   output_defect_rate") {
				t.Errorf("no output check written: exit %d, want the default to fail: %v\n%s", code, wantDefault, stdout)
			}
			// Every faulty answer flagged (a repeated word only from 16
			// events on, and the model stops at its end of sequence), no
			// healthy one.
			sum := res["summary"].(map[string]any)
			defects, _ := sum["output_defects"].(map[string]any)
			finish, _ := sum["finish"].(map[string]any)
			switch key := map[string]string{"repeat_token": "degenerate", "garbage_output": "bad_text"}[tc.fault]; {
			case key != "" && (len(defects) != 1 || defects[key] == nil):
				t.Errorf("summary.output_defects %v, want only %s", defects, key)
			case key == "" && len(defects) != 0:
				t.Errorf("summary.output_defects %v, want none", defects)
			}
			// A model that stops ends most answers itself (an answer of
			// mean 60 tokens reaches 200 one time in 28); one that never
			// stops, none.
			if stop, _ := finish["stop"].(float64); tc.fault == "never_stop" && (finish["length"] != 12.0 || stop != 0) || tc.fault != "never_stop" && stop < 9 {
				t.Errorf("summary.finish %v", finish)
			}
		})
	}
}

// TestAgreement: an A/B run pairs the arms' answers by prompt. Two
// simulators of one model answer every greedy prompt alike; a candidate
// of another model_seed (another model, a broken kernel) answers each one
// otherwise at the same speed, so its latency check passes and the
// agreement assert fails the run; with sampling (temperature above 0) the
// assert cannot be decided.
func TestAgreement(t *testing.T) {
	tests := []struct {
		name  string
		vars  []string
		code  int
		exact any // summary.agreement's exact of 24 pairs, or nil
	}{
		{"same model", nil, exitOK, 24.0},
		{"another model", []string{"-var", "candidate_seed=7"}, exitCheckFailed, 0.0},
		{"swapped outputs", []string{"-var", "candidate_swaps=1"}, exitCheckFailed, 0.0},
		{"sampled", []string{"-var", "temperature=0.8"}, exitNoResult, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			args := append([]string{"run", "-quiet", "-out", out}, tt.vars...)
			code, stdout, stderr := call(t, context.Background(), append(args, "-scenario", "ab", "testdata/agreement.hcl")...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			res := resultFile(t, filepath.Join(out, "ab.json"))
			sum := res["summary"].(map[string]any)
			ag, _ := sum["agreement"].(map[string]any)
			if ag == nil || ag["pairs"] != 24.0 || ag["against"] != "the baseline arm" {
				t.Fatalf("summary.agreement = %v, want 24 pairs against the baseline arm", ag)
			}
			checks := map[string]string{}
			for _, c := range res["checks"].([]any) {
				c := c.(map[string]any)
				checks[c["name"].(string)], _ = c["verdict"].(string)
			}
			if checks["ttft_p50"] != "pass" {
				t.Errorf("the latency check: %q, want pass: the candidate is as fast", checks["ttft_p50"])
			}
			switch tt.exact {
			case nil:
				if ag["sampled"] != true || checks["answers alike"] != "inconclusive" || !strings.Contains(stdout, "not judged: the requests sample") {
					t.Errorf("sampled: agreement %v, check %q; want sampled and inconclusive\n%s", ag, checks["answers alike"], stdout)
				}
				if checks["prefix_agreement"] != "inconclusive" {
					t.Errorf("sampled: the regression rule on prefix_agreement: %q, want inconclusive", checks["prefix_agreement"])
				}
			default:
				want := map[bool]string{true: "pass", false: "fail"}[tt.exact == 24.0]
				if ag["exact"] != tt.exact || checks["answers alike"] != want || !strings.Contains(stdout, fmt.Sprintf("%v of 24 prompts answered alike", tt.exact)) {
					t.Errorf("agreement %v, check %q; want exact %v and %s\n%s", ag, checks["answers alike"], tt.exact, want, stdout)
				}
				if checks["prefix_agreement"] != want {
					t.Errorf("the regression rule on prefix_agreement: %q, want %s", checks["prefix_agreement"], want)
				}
				// The differing answers are kept, cut at their first
				// difference, and the HTML report shows them.
				divs, _ := ag["divergences"].([]any)
				if alike := tt.exact == 24.0; alike != (len(divs) == 0) || len(divs) > metrics.MaxDivergences {
					t.Errorf("%d divergences kept, want none when all alike, else 1 to %d", len(divs), metrics.MaxDivergences)
				}
				page := filepath.Join(out, "ab.html")
				if code, stdout, stderr := call(t, context.Background(), "report", "-html", page, filepath.Join(out, "ab.json")); code != exitOK {
					t.Fatalf("report -html: exit %d\n%s%s", code, stdout, stderr)
				}
				html, err := os.ReadFile(page)
				if err != nil {
					t.Fatal(err)
				}
				if shows := strings.Contains(string(html), "Answers that differ from the baseline arm"); shows != (len(divs) > 0) {
					t.Errorf("the HTML report shows the differing answers: %v, want %v", shows, len(divs) > 0)
				}
				// The comparison's table carries the agreement rows, with
				// the baseline arm at 1 and a Wilson interval.
				rows := map[string]map[string]any{}
				for _, r := range res["comparison"].(map[string]any)["rows"].([]any) {
					r := r.(map[string]any)
					rows[r["key"].(string)] = r
				}
				for _, k := range []string{"exact_match", "prefix_agreement", "answer_similarity"} {
					if r := rows[k]; r == nil || r["base"] != 1.0 || r["method"] != "wilson" {
						t.Errorf("comparison row %s = %v, want base 1 by the Wilson method", k, r)
					}
				}
			}
		})
	}
}

// TestAgreementDefault: with no agreement check written, an A/B run whose
// answers were paired gets the default one (prefix_agreement >= 0.25):
// the same model passes it, another model_seed fails it (exit 1), so does
// the same model handing each request another's answer (swap_outputs),
// and sampled answers are not judged (no such check, exit 0).
func TestAgreementDefault(t *testing.T) {
	for _, tt := range []struct {
		name    string
		vars    []string
		code    int
		verdict string // the default check's, "" for none
	}{
		{"same model", nil, exitOK, "pass"},
		{"another model", []string{"-var", "candidate_seed=7"}, exitCheckFailed, "fail"},
		// The same model, but each answer is the one the request before it
		// got (a cache or batching bug), at the healthy speed.
		{"swapped outputs", []string{"-var", "candidate_swaps=1"}, exitCheckFailed, "fail"},
		{"sampled", []string{"-var", "temperature=0.8"}, exitOK, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			args := append([]string{"run", "-quiet", "-out", out, "-scenario", "ab_default"}, tt.vars...)
			code, stdout, stderr := call(t, context.Background(), append(args, "testdata/agreement.hcl")...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			verdict := ""
			for _, c := range resultFile(t, filepath.Join(out, "ab_default.json"))["checks"].([]any) {
				if c := c.(map[string]any); c["name"] == "answers agree (default)" {
					verdict, _ = c["verdict"].(string)
				}
			}
			if verdict != tt.verdict {
				t.Errorf("the default agreement check: %q, want %q\n%s", verdict, tt.verdict, stdout)
			}
		})
	}
}

// TestAgreementWraps: an A/B run with fewer prompts than requests sends
// some prompts twice on each arm; every request line names the prompt it
// carried (the simulator's greedy answer to a prompt is one text, so one
// dataset index has one output hash on both arms), and the agreement
// pairs each prompt once.
func TestAgreementWraps(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, "-scenario", "ab_wrap", "testdata/agreement.hcl")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	hashes := map[float64]map[string]bool{}
	for _, l := range requestMaps(t, filepath.Join(out, "ab_wrap.requests.jsonl")) {
		i := l["dataset_index"].(float64)
		if hashes[i] == nil {
			hashes[i] = map[string]bool{}
		}
		hashes[i][l["output_hash"].(string)] = true
	}
	if len(hashes) != 10 {
		t.Errorf("%d dataset indexes in the requests file, want the 10 prompts", len(hashes))
	}
	for i, hs := range hashes {
		if len(hs) != 1 {
			t.Errorf("dataset index %v carried %d different answers: requests were filed under another prompt", i, len(hs))
		}
	}
	ag := resultFile(t, filepath.Join(out, "ab_wrap.json"))["summary"].(map[string]any)["agreement"].(map[string]any)
	if ag["pairs"] != 10.0 || ag["exact"] != 10.0 {
		t.Errorf("agreement %v, want 10 prompts paired, all alike", ag)
	}
}

// TestAgreementBaseline: -save-baseline copies a run's requests and
// outputs files beside the saved result, and a later run against that
// baseline pairs its answers with them by prompt: the same model answers
// alike; another model_seed answers every prompt otherwise, as fast, so
// its latency check passes and the agreement assert fails the run.
func TestAgreementBaseline(t *testing.T) {
	dir := t.TempDir()
	saved := filepath.Join(dir, "baselines")
	code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", filepath.Join(dir, "record"), "-scenario", "record",
		"-save-baseline", saved, "testdata/agreement-baseline.hcl")
	if code != exitOK {
		t.Fatalf("record: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, f := range []string{"record.json", "record.requests.jsonl", "record.outputs.jsonl"} {
		if _, err := os.Stat(filepath.Join(saved, f)); err != nil {
			t.Fatalf("-save-baseline did not write %s: %v", f, err)
		}
	}
	baseline := filepath.Join(saved, "record.json")
	for _, tt := range []struct {
		seed    string
		code    int
		exact   float64
		verdict string
	}{
		{"0", exitOK, 24, "pass"},
		{"3", exitCheckFailed, 0, "fail"},
	} {
		out := filepath.Join(dir, "gate"+tt.seed)
		code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, "-scenario", "gate",
			"-var", "model_seed="+tt.seed, "-var", "baseline="+baseline, "testdata/agreement-baseline.hcl")
		if code != tt.code {
			t.Fatalf("model_seed %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", tt.seed, code, tt.code, stdout, stderr)
		}
		res := resultFile(t, filepath.Join(out, "gate.json"))
		ag, _ := res["summary"].(map[string]any)["agreement"].(map[string]any)
		// The first 8 answers kept their text on both sides.
		if ag == nil || ag["pairs"] != 24.0 || ag["exact"] != tt.exact || ag["against"] != baseline || ag["scored"].(float64) < 8 {
			t.Errorf("model_seed %s: summary.agreement = %v, want %v of 24 alike, 8 or more scored, against %s", tt.seed, ag, tt.exact, baseline)
		}
		verdicts := map[string]string{}
		for _, c := range res["checks"].([]any) {
			c := c.(map[string]any)
			verdicts[c["name"].(string)], _ = c["verdict"].(string)
		}
		if verdicts["ttft_p50"] != "pass" || verdicts["answers alike"] != tt.verdict || verdicts["exact_match"] != tt.verdict {
			t.Errorf("model_seed %s: checks %v, want ttft_p50 pass, answers alike and the exact_match regression %s", tt.seed, verdicts, tt.verdict)
		}
		// llmload compare pairs the two results' answers from the files
		// beside them, and judges agreement as a regression.
		code, stdout, stderr = call(t, context.Background(), "compare", "-max-regression", "exact_match=20%", baseline, filepath.Join(out, "gate.json"))
		if code != tt.code || !strings.Contains(stdout, "answers alike  ") {
			t.Errorf("model_seed %s: compare exit %d, want %d, with an exact_match (answers alike) row\nstdout:\n%s\nstderr:\n%s", tt.seed, code, tt.code, stdout, stderr)
		}
	}
	// A baseline that sampled: its answers need not agree with anyone's,
	// so agreement is not judged (inconclusive, exit 3), never failed.
	sampled := filepath.Join(dir, "sampled")
	if code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", sampled, "-scenario", "record", "-var", "temperature=0.8", "testdata/agreement-baseline.hcl"); code != exitOK {
		t.Fatalf("sampled record: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = call(t, context.Background(), "run", "-quiet", "-force", "-out", filepath.Join(dir, "vs-sampled"), "-scenario", "gate",
		"-var", "baseline="+filepath.Join(sampled, "record.json"), "testdata/agreement-baseline.hcl")
	if code != exitNoResult || !strings.Contains(stdout, "not judged: the requests sample") {
		t.Errorf("against a sampled baseline: exit %d, want 3 with agreement not judged\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// Result files copied alone: compare has no answers to pair, and the
	// candidate's own agreement was held against another file, so the row
	// is missing and the tolerance inconclusive (exit 3).
	lone := filepath.Join(dir, "lone")
	if err := os.MkdirAll(lone, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{baseline, filepath.Join(dir, "gate3", "gate.json")} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(lone, filepath.Base(f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr = call(t, context.Background(), "compare", "-max-regression", "exact_match=20%", filepath.Join(lone, "record.json"), filepath.Join(lone, "gate.json"))
	if code != exitNoResult || !strings.Contains(stdout+stderr, "no answers were paired") {
		t.Errorf("compare without answers beside: exit %d, want 3, saying no answers were paired\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// TestExpectedAnswers: prompts that carry an expected answer are judged as
// their answers stream: each request line says whether it met its own, the
// summary counts them, the console says so, and min_pass_rate fails the
// run when too few did.
func TestExpectedAnswers(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := call(t, context.Background(), "run", "-quiet", "-out", out, "testdata/expected.hcl")
	if code != exitCheckFailed {
		t.Fatalf("exit %d, want 1 (2 of 4 met, under 75%%)\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	sum := resultFile(t, filepath.Join(out, "expected.json"))["summary"].(map[string]any)
	if sum["expected_judged"] != 4.0 || sum["expected_passed"] != 2.0 {
		t.Errorf("expected_judged %v, expected_passed %v; want 4 and 2", sum["expected_judged"], sum["expected_passed"])
	}
	want := map[float64]any{0: true, 1: true, 2: false, 3: false, 4: nil, 5: nil}
	for _, l := range requestMaps(t, filepath.Join(out, "expected.requests.jsonl")) {
		if got, w := l["expected_pass"], want[l["dataset_index"].(float64)]; got != w {
			t.Errorf("prompt %v: expected_pass %v, want %v", l["dataset_index"], got, w)
		}
	}
	if !strings.Contains(stdout, "Expected answers: 2 of 4 answers met") || !strings.Contains(stdout, "FAIL   min_pass_rate") {
		t.Errorf("the console does not report the expected answers:\n%s", stdout)
	}
}
