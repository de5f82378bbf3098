package conformance

import (
	"fmt"
	"strings"
	"testing"

	"github.com/llmload/llmload/internal/testshared"
)

// conforms checks what every scenario must give against a correct
// engine: exit 0, n requests that completed (or were abandoned on
// purpose), none failed, a valid run whose token counts the stream and
// the engine agree on, answers from the model asked for and within
// max_tokens.
func conforms(t *testing.T, r result, n int) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if r.res == nil {
		t.Fatalf("no result\nstderr:\n%s", r.stderr)
	}
	done := r.summary("completed") + r.summary("abandoned")
	if done != float64(n) || r.summary("failed") != 0 {
		t.Errorf("completed %v + abandoned %v of %d, failed %v (errors %v)", r.summary("completed"), r.summary("abandoned"), n,
			r.summary("failed"), r.res["summary"].(map[string]any)["errors"])
	}
	if v, _ := r.res["validity"].(map[string]any); v["valid"] != true {
		t.Errorf("the run is invalid: %v\nstdout:\n%s", v, r.stdout)
	}
	// The engine's answers are text, not loops or byte fragments: the
	// default bound on defective outputs is far from them.
	for _, k := range []string{"token_count_mismatches", "other_model", "over_max_tokens", "defective_outputs"} {
		if r.summary(k) != 0 {
			t.Errorf("%s = %v, want 0\nstdout:\n%s", k, r.summary(k), r.stdout)
		}
	}
	if r.summary("token_counts_compared") == 0 && r.summary("completed") > 0 {
		t.Errorf("no usage count was compared: the engine sent no usage?")
	}
}

// The scenarios every engine runs, with the requests each must end.
var common = []struct {
	scenario, api string
	n             int
}{
	{"users1", "openai", 6},
	{"users4", "openai", 16},
	{"users8", "openai", 24},
	{"users4", "openai-chat", 16},
	{"open", "openai", 12},
	{"open", "openai-chat", 12},
	{"abandon", "openai-chat", 12},
}

// eosRequests is how many requests each of the scenarios eos and
// eos_ignored sends, of max_tokens 32 each.
const eosRequests = 4

// stops checks the stop model's answers with ignore_eos off (scenario
// eos, on chat: the template ends the prompt with a newline, so the first
// token is a word, never EOS): every answer is that word, then EOS, so
// finish_reason "stop" with one content event and 2 tokens by the
// engine's usage (both engines count the EOS token), none truncated.
func stops(t *testing.T, r result) {
	t.Helper()
	conforms(t, r, eosRequests)
	for i, a := range r.answers(t) {
		if a.FinishReason != "stop" || a.OutputTokens != 2 || a.Source != "usage" || a.OutputEvents != 1 || a.IgnoreEOS || a.ShortOutput {
			t.Errorf("request %d with ignore_eos off: %+v, want one word, then EOS (stop, 2 tokens by usage, one event)", i, a)
		}
	}
	if r.summary("truncated") != 0 || r.summary("short_outputs") != 0 {
		t.Errorf("truncated %v, short_outputs %v; want 0 and 0", r.summary("truncated"), r.summary("short_outputs"))
	}
}

// TestLlamaServer: llama.cpp's llama-server with its default settings
// (docs/engines.md). Its pooled connections close after every streamed
// reply while its headers say keep-alive: the stale-connection retry
// makes that cost nothing (stale_retries counts it) where 10-25% of the
// requests used to fail.
func TestLlamaServer(t *testing.T) {
	base := llamaServer(t, model(t))
	// llama-server answers with the model's file path whatever the
	// request named: its /v1/models names it so, and llmload takes it as
	// the model asked for.
	const name = "tiny"
	for _, tc := range common {
		t.Run(tc.scenario+" "+tc.api, func(t *testing.T) {
			r := run(t, base, name, tc.api, tc.scenario)
			conforms(t, r, tc.n)
			// The tiny model never emits EOS: every completed answer is
			// max_tokens long by the engine's usage.
			if tc.scenario != "abandon" && r.summary("total_output_tokens") != 32*r.summary("completed") {
				t.Errorf("total_output_tokens %v for %v requests of 32", r.summary("total_output_tokens"), r.summary("completed"))
			}
			// Its /metrics counted what it generated: every completed
			// answer's tokens (and the preflight probe's few, when it
			// came after the first scrape). With readers who leave, an
			// engine that cancels an abandoned answer generated a few
			// tokens of it, not its 400.
			gen := serverDelta(r, "generation_tokens")
			if out := r.summary("total_output_tokens"); tc.scenario != "abandon" && (gen < out || gen > out+4) {
				t.Errorf("the engine's generation_tokens counted %v, llmload %v output tokens", gen, out)
			}
			if tc.scenario == "abandon" {
				if limit := 400*r.summary("completed") + 100*r.summary("abandoned"); gen > limit {
					t.Errorf("the engine generated %v tokens for %v completed answers of 400 and %v abandoned after 4-8 tokens: it went on generating for readers who left", gen, r.summary("completed"), r.summary("abandoned"))
				}
				t.Logf("abandon: the engine generated %v tokens for %v completed answers of 400 and %v abandoned", gen, r.summary("completed"), r.summary("abandoned"))
			}
			// Its time per output token is the one llmload measured, from
			// the stream, within a factor of two.
			if c, e := statOf(r, "tpot", "p50"), statOf(r, "engine_tpot", "p50"); e < c/2 || e > 2*c {
				t.Errorf("engine TPOT p50 %v ms, llmload's %v ms", e, c)
			}
			if v, _ := r.res["server_version"].(string); !strings.Contains(v, "llama.cpp b1-80fb11a") {
				t.Errorf("server_version = %q, want llama.cpp's build", v)
			}
			if fps, _ := r.res["summary"].(map[string]any)["system_fingerprints"].(map[string]any); len(fps) != 1 || fps["b1-80fb11a"] != r.summary("completed") {
				t.Errorf("system_fingerprints = %v, want the build on every completed answer", fps)
			}
			// Its own numbers of each request: timings (prefill, time per
			// output token) and the cached prompt tokens.
			sum := r.res["summary"].(map[string]any)
			for _, k := range []string{"engine_prefill", "engine_tpot"} {
				if l, _ := sum[k].(map[string]any); l == nil || l["count"] != r.summary("completed") {
					t.Errorf("%s: %v, want a sample per completed request", k, l)
				}
			}
			if r.summary("cache_reports") < r.summary("completed") {
				t.Errorf("cache_reports %v of %v completed", r.summary("cache_reports"), r.summary("completed"))
			}
			server, _ := r.res["summary"].(map[string]any)["server"].(map[string]any)
			if n, _ := server["scrapes"].(float64); n == 0 {
				t.Errorf("/metrics (--metrics) was never scraped: %v", server)
			}
			if tc.scenario == "abandon" && r.summary("abandoned") == 0 {
				t.Errorf("no request was abandoned")
			}
			t.Logf("%s %s: %v completed, %v stale keep-alive retries, TTFT p50 %v ms", tc.scenario, tc.api,
				r.summary("completed"), r.summary("stale_retries"), r.res["summary"].(map[string]any)["ttft"].(map[string]any)["p50"])
		})
	}
	// The prompts counted by the engine's own /tokenize.
	t.Run("tokenize", func(t *testing.T) {
		conforms(t, run(t, base, name, "openai", "tokenize"), 4)
	})
	// Prompts that share a prefix: llama.cpp's cache serves about what an
	// ideal one would (prefix_reuse, asserted in the scenario); with the
	// cache off it serves nothing and the same assert fails the run.
	t.Run("prefix reuse", func(t *testing.T) {
		r := run(t, base, name, "openai", "prefix")
		conforms(t, r, 12)
		cold := run(t, base, name, "openai", "prefix_nocache")
		if cold.code != 1 || !strings.Contains(cold.stdout, "reuse") || cold.summary("cached_tokens") != 0 {
			t.Errorf("cache off: exit %d, want 1 (the reuse assert fails)\nstdout:\n%s", cold.code, cold.stdout)
		}
		t.Logf("prefix reuse: %v cached of an ideal %v (with the cache off: %v)", r.summary("cached_tokens"), r.summary("ideal_cached_tokens"), cold.summary("cached_tokens"))
	})
	// ignore_eos on a model that stops (a second llama-server, on the stop
	// model): llama.cpp honours it. Off, every answer is a word and EOS;
	// on, every answer runs to max_tokens ("length") and llmload has
	// nothing to say.
	t.Run("ignore_eos", func(t *testing.T) {
		stop := llamaServer(t, stopModel(t))
		stops(t, run(t, stop, name, "openai-chat", "eos"))
		r := run(t, stop, name, "openai-chat", "eos_ignored")
		conforms(t, r, eosRequests)
		for i, a := range r.answers(t) {
			if a.FinishReason != "length" || a.OutputTokens != 32 || !a.IgnoreEOS || a.ShortOutput {
				t.Errorf("request %d with ignore_eos on: %+v, want 32 tokens and length: llama.cpp honours ignore_eos", i, a)
			}
		}
		if r.summary("short_outputs") != 0 || r.summary("truncated") != 0 || strings.Contains(r.stdout, "did not honour ignore_eos") {
			t.Errorf("short_outputs %v, truncated %v, want 0 and 0\nstdout:\n%s", r.summary("short_outputs"), r.summary("truncated"), r.stdout)
		}
		t.Logf("ignore_eos on: %v output tokens for %v requests of 32", r.summary("total_output_tokens"), r.summary("completed"))
	})
	// Non-canonical answers: the pieces model's text re-tokenizes to other
	// counts than llama.cpp generated. Counted with the model's own
	// tokenizer the run is valid (the token-count check tolerates it);
	// counted with another tokenizer (Mistral's) the check disputes the
	// answers and the run is invalid (exit 3).
	t.Run("non-canonical answers", func(t *testing.T) {
		pieces := llamaServer(t, piecesModel(t))
		r := run(t, pieces, name, "openai", "pieces")
		conforms(t, r, 16)
		differ, more, fewer, most := 0, 0, 0, 0
		for i, a := range r.answers(t) {
			if a.TokenizerOutput == 0 || a.OutputTokens != 64 {
				t.Errorf("request %d: %+v, want 64 tokens by usage, counted again by the tokenizer", i, a)
				continue
			}
			switch {
			case a.TokenizerOutput > a.OutputTokens:
				more++
				most = max(most, a.TokenizerOutput-a.OutputTokens)
			case a.TokenizerOutput < a.OutputTokens:
				fewer++
			}
		}
		differ = more + fewer
		if differ == 0 {
			t.Errorf("every answer re-tokenized to its usage count: the pieces model wrote canonical text, and this test checks nothing")
		}
		t.Logf("pieces: %d of 16 answers re-tokenized to another count (%d more, by up to %d; %d fewer), all within the tolerance", differ, more, most, fewer)
		mistral := testshared.Path(t, "data", "tokenizers", "mistral7b", "tokenizer.json")
		wrong := run(t, pieces, name, "openai", "pieces", "-var", "tokenizer="+mistral)
		if v, _ := wrong.res["validity"].(map[string]any); wrong.code != 3 || v["valid"] != false || !strings.Contains(fmt.Sprint(v), "token_mismatch") {
			t.Errorf("another model's tokenizer: exit %d, validity %v; want 3, invalid by token_mismatch\nstdout:\n%s", wrong.code, v, wrong.stdout)
		}
	})
	// Agreement: an A/B run of two llama-servers pairs their answers by
	// prompt. Serving one model, greedy answers agree (up to what batching
	// changes: llama.cpp is not batch-invariant); serving the model of
	// another seed, they do not, at the same speed, and the default
	// agreement check fails the run.
	t.Run("agreement", func(t *testing.T) {
		same := llamaServer(t, model(t))
		r := run(t, base, name, "openai", "ab", "-var", "candidate_url="+same)
		conforms(t, r, 16)
		ag, _ := r.res["summary"].(map[string]any)["agreement"].(map[string]any)
		t.Logf("one model: agreement %v", ag)
		// docs/engines.md quotes it: every answer alike.
		if ag == nil || ag["pairs"] != 16.0 || ag["exact"] != 16.0 {
			t.Fatalf("summary.agreement = %v, want 16 pairs, all alike", ag)
		}
		other := llamaServer(t, otherModel(t))
		r = run(t, base, name, "openai", "ab", "-var", "candidate_url="+other)
		ag, _ = r.res["summary"].(map[string]any)["agreement"].(map[string]any)
		t.Logf("another seed: exit %d, agreement %v", r.code, ag)
		if r.code != 1 || ag == nil || ag["exact"] != 0.0 || !strings.Contains(r.stdout, "FAIL   answers agree (default)") {
			t.Errorf("the model of another seed: exit %d, agreement %v; want 1, none alike, the default agreement check failed\nstdout:\n%s", r.code, ag, r.stdout)
		}
	})
	// A warm prompt cache across runs: the second of two identical runs
	// has its prompts served from the first one's cache, unless the
	// requests turn the cache off (cache_prompt = false).
	t.Run("warm prompt cache", func(t *testing.T) {
		conforms(t, run(t, base, name, "openai", "again"), 6)
		warm := run(t, base, name, "openai", "again")
		conforms(t, warm, 6)
		if warm.summary("cached_tokens") < 0.5*warm.summary("server_input_tokens") {
			t.Errorf("the second run had %v of %v prompt tokens cached; llama.cpp caches prompts by default",
				warm.summary("cached_tokens"), warm.summary("server_input_tokens"))
		}
		cold := run(t, base, name, "openai", "again_nocache")
		conforms(t, cold, 6)
		if cold.summary("cached_tokens") != 0 {
			t.Errorf("cache_prompt = false: %v prompt tokens cached, want 0", cold.summary("cached_tokens"))
		}
		t.Logf("prompt tokens cached: %v of %v on the second run, %v with cache_prompt = false",
			warm.summary("cached_tokens"), warm.summary("server_input_tokens"), cold.summary("cached_tokens"))
		// llama.cpp has no cache_salt: a cache of the run's own is refused
		// before any load, saying what to do instead.
		if r := run(t, base, name, "openai", "again_nocache", "-var", "prompt_cache=isolate"); r.code != 2 || !strings.Contains(r.stderr, `prompt_cache = "off" turns its cache off`) {
			t.Errorf("prompt_cache = isolate on llama.cpp: exit %d, want 2 with advice\nstderr:\n%s", r.code, r.stderr)
		}
	})
}

// TestOllama: Ollama with its defaults (one request at a time, per
// docs/engines.md).
func TestOllama(t *testing.T) {
	o := ollama(t)
	base := o.base
	for _, tc := range common {
		t.Run(tc.scenario+" "+tc.api, func(t *testing.T) {
			r := run(t, base, "tiny", tc.api, tc.scenario)
			conforms(t, r, tc.n)
			if tc.scenario != "abandon" && r.summary("total_output_tokens") != 32*r.summary("completed") {
				t.Errorf("total_output_tokens %v for %v requests of 32", r.summary("total_output_tokens"), r.summary("completed"))
			}
			if v, _ := r.res["server_version"].(string); !strings.Contains(v, "ollama 0.17.4") {
				t.Errorf("server_version = %q, want Ollama's version", v)
			}
			if fps, _ := r.res["summary"].(map[string]any)["system_fingerprints"].(map[string]any); len(fps) != 1 || fps["fp_ollama"] != r.summary("completed") {
				t.Errorf("system_fingerprints = %v, want fp_ollama on every completed answer", fps)
			}
			if tc.scenario == "abandon" && r.summary("abandoned") == 0 {
				t.Errorf("no request was abandoned")
			}
			// It reports nothing of its own per request.
			if r.summary("cache_reports") != 0 || r.res["summary"].(map[string]any)["engine_tpot"] != nil {
				t.Errorf("Ollama reported engine numbers: cache_reports %v, engine_tpot %v", r.summary("cache_reports"), r.res["summary"].(map[string]any)["engine_tpot"])
			}
			t.Logf("%s %s: %v completed, %v stale keep-alive retries, TTFT p50 %v ms", tc.scenario, tc.api,
				r.summary("completed"), r.summary("stale_retries"), r.res["summary"].(map[string]any)["ttft"].(map[string]any)["p50"])
		})
	}
	// Ollama has no per-request control of its prompt cache: a policy is
	// refused before any load.
	t.Run("prompt cache refused", func(t *testing.T) {
		if r := run(t, base, "tiny", "openai", "again_nocache"); r.code != 2 || !strings.Contains(r.stderr, "no per-request control") {
			t.Errorf("prompt_cache = off on Ollama: exit %d, want 2\nstderr:\n%s", r.code, r.stderr)
		}
	})
	// Ollama has no /tokenize: a server-counted dataset cannot load, and
	// says why before anything is sent.
	t.Run("no tokenize", func(t *testing.T) {
		r := run(t, base, "tiny", "openai", "tokenize")
		if r.code == 0 || !strings.Contains(r.stderr, "/tokenize") {
			t.Errorf("exit %d, want a refusal naming /tokenize\nstderr:\n%s", r.code, r.stderr)
		}
	})
	// ignore_eos on a model that stops (the stop model, made "tinystop"
	// on the same server): Ollama ignores it. Every answer ends after its
	// word with ignore_eos on as off, and llmload says so: each request is
	// a short output, and the summary names the server that did not
	// honour ignore_eos.
	t.Run("ignore_eos", func(t *testing.T) {
		o.create(t, "tinystop", stopModel(t))
		stops(t, run(t, base, "tinystop", "openai-chat", "eos"))
		r := run(t, base, "tinystop", "openai-chat", "eos_ignored")
		conforms(t, r, eosRequests)
		for i, a := range r.answers(t) {
			if a.FinishReason != "stop" || a.OutputTokens != 2 || !a.IgnoreEOS || !a.ShortOutput {
				t.Errorf("request %d with ignore_eos on: %+v, want a short output (stop after 2 tokens): Ollama ignores ignore_eos", i, a)
			}
		}
		said := fmt.Sprintf("Short outputs: %d requests asked to ignore EOS but got fewer tokens than max_tokens (by the server's usage): the server did not honour ignore_eos.", eosRequests)
		if r.summary("short_outputs") != eosRequests || !strings.Contains(r.stdout, said) {
			t.Errorf("short_outputs %v, want %d, and the summary saying %q\nstdout:\n%s", r.summary("short_outputs"), eosRequests, said, r.stdout)
		}
		t.Logf("ignore_eos on: %v output tokens for %v requests of 32, %v short outputs", r.summary("total_output_tokens"), r.summary("completed"), r.summary("short_outputs"))
	})
	// Agreement, as on llama.cpp: an A/B run whose arms are the one model
	// on this server agrees (Ollama batches nothing by default, so greedy
	// answers are the same); the model of another seed, created beside it
	// and as fast, does not, and the default agreement check fails.
	t.Run("agreement", func(t *testing.T) {
		r := run(t, base, "tiny", "openai", "ab", "-var", "candidate_url="+base)
		conforms(t, r, 16)
		ag, _ := r.res["summary"].(map[string]any)["agreement"].(map[string]any)
		t.Logf("one model: %v of %v alike", ag["exact"], ag["pairs"])
		if ag == nil || ag["pairs"] != 16.0 || ag["exact"] != 16.0 {
			t.Fatalf("summary.agreement = %v, want 16 pairs, all alike", ag)
		}
		o.create(t, "tinyother", otherModel(t))
		r = run(t, base, "tiny", "openai", "ab", "-var", "candidate_url="+base, "-var", "candidate_model=tinyother")
		ag, _ = r.res["summary"].(map[string]any)["agreement"].(map[string]any)
		t.Logf("another seed: exit %d, %v of %v alike, prefix_sum %v over %v scored", r.code, ag["exact"], ag["pairs"], ag["prefix_sum"], ag["scored"])
		if r.code != 1 || ag == nil || ag["pairs"] != 16.0 || ag["exact"] != 0.0 || !strings.Contains(r.stdout, "FAIL   answers agree (default)") {
			t.Errorf("the model of another seed: exit %d, agreement %v; want 1, none alike, the default agreement check failed\nstdout:\n%s", r.code, ag, r.stdout)
		}
	})
}
