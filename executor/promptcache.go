package executor

import (
	"crypto/rand"
	"encoding/json"
	"strconv"
	"sync/atomic"
)

// Prompt cache policies (Target.PromptCache).
const (
	// PromptCacheIsolate sends one cache_salt for every request of a run
	// (vLLM keys its prefix cache by it): prompts share prefixes within
	// the run, never with another run, repeat or A/B arm.
	PromptCacheIsolate = "isolate"
	// PromptCacheOff serves no request from the cache: cache_prompt =
	// false where the engine takes it (Target.CachePromptFlag, llama.cpp),
	// a cache_salt of each request's own otherwise.
	PromptCacheOff = "off"
)

// requestSalts numbers the requests of PromptCacheOff, so that each one's
// salt is its own (sessions prepare their turns one by one).
var requestSalts atomic.Uint64

// NewCacheSalt is a run's salt (Plan.CacheSalt): random, as vLLM asks of
// a cache_salt (the salt keeps one user's prompts from being guessed by
// another's timing).
func NewCacheSalt() string {
	return "llmload-" + rand.Text()
}

// setPromptCache writes t's prompt cache policy into body. Outside a run
// (a plan's preview) the salt is a placeholder.
func setPromptCache(t *Target, body map[string]any) {
	salt := t.cacheSalt
	if salt == "" {
		salt = "(drawn at the run's start)"
	}
	switch t.PromptCache {
	case PromptCacheIsolate:
		body["cache_salt"] = salt
	case PromptCacheOff:
		if t.CachePromptFlag {
			body["cache_prompt"] = false
			return
		}
		body["cache_salt"] = salt + "-" + strconv.FormatUint(requestSalts.Add(1), 36)
	}
}

// Samples says whether t's requests sample their answers: a temperature
// above 0 in ExtraBody (llmload sends 0, greedy), or none at all
// (temperature = null leaves the engine's default), and no seed, so that the
// same prompt need not get the same answer twice and agreement with a
// baseline is not expected.
func (t *Target) Samples() bool {
	if v, ok := t.ExtraBody["seed"]; ok && v != nil {
		return false
	}
	raw, set := t.ExtraBody["temperature"]
	if set && raw == nil {
		// temperature = null removes the field: the engine's own default,
		// which samples on most.
		return true
	}
	var temp float64
	switch v := raw.(type) {
	case float64:
		temp = v
	case int:
		temp = float64(v)
	case int64:
		temp = float64(v)
	case json.Number:
		temp, _ = v.Float64()
	case string:
		temp, _ = strconv.ParseFloat(v, 64)
	}
	return temp > 0
}
