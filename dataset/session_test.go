package dataset

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSessionTurns(t *testing.T) {
	u := func(s string) Message { return Message{Role: RoleUser, Content: s} }
	a := func(s string) Message { return Message{Role: RoleAssistant, Content: s} }
	sys := Message{Role: RoleSystem, Content: "be brief"}
	tests := []struct {
		name string
		msgs []Message
		want []Turn
	}{
		{"alternating", []Message{u("q1"), a("r1"), u("q2"), a("r2")},
			[]Turn{{Messages: []Message{u("q1")}, Reply: "r1"}, {Messages: []Message{u("q2")}, Reply: "r2"}}},
		{"system first", []Message{sys, u("q1"), a("r1")},
			[]Turn{{Messages: []Message{sys, u("q1")}, Reply: "r1"}}},
		{"reply first is left out", []Message{a("hello"), u("q1"), a("r1")},
			[]Turn{{Messages: []Message{u("q1")}, Reply: "r1"}}},
		{"two replies join", []Message{u("q1"), a("r1"), a("more")},
			[]Turn{{Messages: []Message{u("q1")}, Reply: "r1\nmore"}}},
		{"two questions make one turn", []Message{u("q1"), u("q1b"), a("r1")},
			[]Turn{{Messages: []Message{u("q1"), u("q1b")}, Reply: "r1"}}},
		{"last question unanswered", []Message{u("q1"), a("r1"), u("q2")},
			[]Turn{{Messages: []Message{u("q1")}, Reply: "r1"}, {Messages: []Message{u("q2")}}}},
		{"no question", []Message{a("r1"), sys}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, sessionTurns(tt.msgs)); diff != "" {
				t.Errorf("turns (-want +got):\n%s", diff)
			}
		})
	}
}

// turnLens is a session's (prompt_len, output_len) per turn.
func turnLens(r Request) [][2]int {
	var out [][2]int
	for _, t := range r.Turns {
		out = append(out, [2]int{t.PromptLen, t.OutputLen})
	}
	return out
}

// TestShareGPTMultiTurn: each conversation is a session whose turns count
// the whole recorded history, cut by max_turns and max_total_tokens.
func TestShareGPTMultiTurn(t *testing.T) {
	tok := wordTokenizer{bos: true}
	tests := []struct {
		name string
		cfg  func(*ShareGPT)
		want map[int][][2]int // by entry index
		skip map[string]int
	}{
		{"replies' lengths", nil, map[int][][2]int{
			// a: system+human (6 words + BOS) -> 5 + BOS; then 6 + 5 + 4 more, ...
			0: {{7, 6}, {16, 5}, {24, 7}},
			// b: the leading reply is left out; the last question has no reply.
			1: {{5, 5}},
		}, map[string]int{skipNoUserTurn: 1}},
		{"fixed output keeps the unanswered question", func(c *ShareGPT) { c.OutputLen = 3 }, map[int][][2]int{
			0: {{7, 3}, {16, 3}, {24, 3}},
			1: {{5, 3}, {14, 3}},
		}, map[string]int{skipNoUserTurn: 1}},
		{"max_turns", func(c *ShareGPT) { c.MaxTurns = 2 }, map[int][][2]int{
			0: {{7, 6}, {16, 5}},
			1: {{5, 5}},
		}, map[string]int{skipNoUserTurn: 1}},
		{"max_total_tokens ends a session", func(c *ShareGPT) { c.MaxTotalTokens = 25 }, map[int][][2]int{
			0: {{7, 6}, {16, 5}},
			1: {{5, 5}},
		}, map[string]int{skipNoUserTurn: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultShareGPT()
			cfg.Path, cfg.NumPrompts, cfg.MultiTurn, cfg.Oversample = "testdata/sharegpt/multi-turn.json", 10, true, false
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			ds, err := Load(Spec{Name: "s", ShareGPT: &cfg}, tok)
			if err != nil {
				t.Fatal(err)
			}
			got := map[int][][2]int{}
			for _, r := range ds.Requests {
				got[r.Index] = turnLens(r)
				if r.PromptLen != r.Turns[0].PromptLen || r.OutputLen != r.Turns[0].OutputLen || !cmp.Equal(r.Messages, r.Turns[0].Messages) {
					t.Errorf("entry %d: the request is not its first turn", r.Index)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("turn lengths (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.skip, ds.Stats.Skipped); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
			turns := 0
			for _, l := range tt.want {
				turns += len(l)
			}
			if ds.Stats.Sessions != len(tt.want) || ds.Stats.Turns != turns {
				t.Errorf("stats: %d sessions, %d turns; want %d, %d", ds.Stats.Sessions, ds.Stats.Turns, len(tt.want), turns)
			}
		})
	}
}

func TestJSONLMultiTurn(t *testing.T) {
	cfg := DefaultJSONL()
	cfg.Path, cfg.Shuffle, cfg.MultiTurn, cfg.OutputLen, cfg.OutputLenField = "testdata/jsonl/multi-turn.jsonl", false, true, 4, "max_tokens"
	ds, err := Load(Spec{Name: "j", JSONL: &cfg}, wordTokenizer{bos: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int][][2]int{}
	for _, r := range ds.Requests {
		got[r.Index] = turnLens(r)
	}
	want := map[int][][2]int{
		0: {{4, 4}, {8, 4}, {10, 4}}, // the history grows by the reply and the question
		1: {{4, 4}},                  // a prompt line: one turn
		2: {{3, 7}},                  // system and user in one turn, the line's own max_tokens
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("turn lengths (-want +got):\n%s", diff)
	}
	if r := ds.Requests[0]; r.Turns[0].Reply != "w4 w5" || r.Turns[2].Reply != "" {
		t.Errorf("recorded replies %q, %q", r.Turns[0].Reply, r.Turns[2].Reply)
	}
}
