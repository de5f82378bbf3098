package sim

import (
	"testing"
)

// answer streams one completion of prompt from r and returns its text.
func answer(t *testing.T, r *Running, prompt string, extra map[string]any) string {
	t.Helper()
	body := map[string]any{"prompt": prompt, "max_tokens": 24, "stream": true}
	for k, v := range extra {
		body[k] = v
	}
	res := post(t, r.URL+"/v1/completions", body)
	if res.status != 200 || !res.done {
		t.Fatalf("status %d, done %v: %s", res.status, res.done, res.body)
	}
	text, _ := res.text()
	return text
}

// TestGreedyAnswers: with greedy sampling (temperature 0) or a request
// seed the simulator answers a prompt as a model would, the same text and
// length every time, whatever else it serves; another model_seed answers
// it otherwise; sampled answers (temperature > 0, no seed) differ.
func TestGreedyAnswers(t *testing.T) {
	greedy := map[string]any{"temperature": 0}
	a := startTiny(t, nil)
	b := startTiny(t, nil)
	other := startTiny(t, map[string]string{"model_seed": "7"})

	first := answer(t, a, "the quick brown fox", greedy)
	answer(t, a, "something else entirely", greedy) // the server's state moves on
	if again := answer(t, a, "the quick brown fox", greedy); again != first {
		t.Errorf("the same greedy prompt twice: %q, then %q", first, again)
	}
	if fresh := answer(t, b, "the quick brown fox", greedy); fresh != first {
		t.Errorf("two simulators of one model: %q and %q", first, fresh)
	}
	if diff := answer(t, other, "the quick brown fox", greedy); diff == first {
		t.Errorf("model_seed 7 answered as model_seed 0: %q", diff)
	}
	if diff := answer(t, a, "the quick brown cat", greedy); diff == first {
		t.Errorf("another prompt got the same answer: %q", diff)
	}
	seeded := map[string]any{"temperature": 0.8, "seed": 42}
	if s1, s2 := answer(t, a, "the quick brown fox", seeded), answer(t, b, "the quick brown fox", seeded); s1 != s2 {
		t.Errorf("the same seed: %q and %q", s1, s2)
	}
	sampled := map[string]any{"temperature": 0.8, "ignore_eos": true}
	if s1, s2 := answer(t, a, "the quick brown fox", sampled), answer(t, a, "the quick brown fox", sampled); s1 == s2 {
		t.Errorf("two sampled answers alike: %q", s1)
	}
}

// TestSwapOutputs: under fault_swap_outputs a request is answered with the
// text the request before it was given, at its own length; the first
// request has no other to take and is its own.
func TestSwapOutputs(t *testing.T) {
	greedy := map[string]any{"temperature": 0, "ignore_eos": true}
	healthy := startTiny(t, nil)
	swapped := startTiny(t, map[string]string{"fault_swap_outputs": "1"})
	prompts := []string{"first prompt", "second prompt", "third prompt"}
	var want []string
	for _, p := range prompts {
		want = append(want, answer(t, healthy, p, greedy))
	}
	for i, p := range prompts {
		got := answer(t, swapped, p, greedy)
		if w := want[max(i-1, 0)]; got != w {
			t.Errorf("request %d: %q, want %q (the answer of request %d)", i, got, w, max(i-1, 0))
		}
	}
	if n := swapped.Server.Stats().Faults[FaultKindSwapOutputs]; n != 2 {
		t.Errorf("%d swaps counted, want 2", n)
	}
}
