package executor

import (
	"testing"

	"github.com/llmload/llmload/executor/executortest"
	"github.com/llmload/llmload/metrics"
)

// TestPromptCache: "isolate" sends one cache_salt for every request of a
// run and another for the next run; "off" a salt of each request's own,
// or cache_prompt = false to an engine that takes it; the default sends
// neither.
func TestPromptCache(t *testing.T) {
	for _, tc := range []struct {
		name      string
		policy    string
		flag      bool
		salts     int  // distinct salts over two runs of 4 requests
		noPrompts bool // cache_prompt = false in every request
	}{
		{"shared", "", false, 0, false},
		{"isolate", PromptCacheIsolate, false, 2, false},
		{"off", PromptCacheOff, false, 8, false},
		{"off by cache_prompt", PromptCacheOff, true, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := executortest.New(executortest.Config{})
			defer srv.Close()
			tgt := Target{BaseURL: srv.URL, Model: "m", PromptCache: tc.policy, CachePromptFlag: tc.flag}
			for range 2 {
				mustRun(t, t.Context(), Plan{Target: tgt, Requests: requests(4, 2), Open: &OpenLoop{Rate: 1000}})
			}
			got := srv.Received()
			if len(got) != 8 {
				t.Fatalf("the server saw %d requests, want 8", len(got))
			}
			salts := map[any]bool{}
			for i, r := range got {
				if s, ok := r.Body["cache_salt"]; ok {
					salts[s] = true
				}
				if cp, ok := r.Body["cache_prompt"]; ok != tc.noPrompts || ok && cp != false {
					t.Errorf("request %d: cache_prompt %v (sent %v)", i, cp, ok)
				}
			}
			if len(salts) != tc.salts {
				t.Errorf("%d distinct cache_salt values, want %d: %v", len(salts), tc.salts, salts)
			}
		})
	}
}

// TestSessionPrefix: a later turn's ideal cached prefix is the turn
// before it in whole blocks: its prompt, and its reply with generated
// history; nothing after a failed turn.
func TestSessionPrefix(t *testing.T) {
	for _, tc := range []struct {
		prev      turnOutcome
		generated bool
		want      int
	}{
		{turnOutcome{prompt: 25, output: 7}, true, 32},
		{turnOutcome{prompt: 25, output: 7}, false, 16},
		{turnOutcome{prompt: 15, output: 0}, false, 0},
		{turnOutcome{prompt: 100, output: 40, kind: metrics.ErrStall}, true, 0},
	} {
		if got := sessionPrefix(tc.prev, tc.generated); got != tc.want {
			t.Errorf("after %+v (generated history %v): %d, want %d", tc.prev, tc.generated, got, tc.want)
		}
	}
}

func TestTargetSamples(t *testing.T) {
	tests := []struct {
		extra map[string]any
		want  bool
	}{
		{nil, false}, // llmload's temperature 0
		{map[string]any{"temperature": 0.0}, false},
		{map[string]any{"temperature": 0.7}, true},
		{map[string]any{"temperature": "0.7"}, true},
		{map[string]any{"temperature": 0.7, "seed": 42.0}, false},
		{map[string]any{"temperature": 0.7, "seed": nil}, true}, // seed removed
		{map[string]any{"temperature": nil}, true},              // the engine's default
	}
	for _, tt := range tests {
		if got := (&Target{ExtraBody: tt.extra}).Samples(); got != tt.want {
			t.Errorf("extra_body %v: Samples() = %v, want %v", tt.extra, got, tt.want)
		}
	}
}
