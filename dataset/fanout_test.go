package dataset

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmload/llmload/tokenizer"
)

// TestJSONLFanOut: a multi-turn line's fan_out steps land on their turns,
// each sub-agent with its messages, context, max_tokens and recorded
// reply; a step after a turn max_turns cut is dropped with it.
func TestJSONLFanOut(t *testing.T) {
	const line = `{"messages": [{"role": "user", "content": "plan it"}, {"role": "assistant", "content": "the plan"}, {"role": "user", "content": "now do it"}], ` +
		`"fan_out": [{"after_turn": 1, "sub_agents": [{"prompt": "part one", "output_len": 7, "reply": "done one"}, {"messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "part two"}], "context": "shared"}]}, {"after_turn": 2, "sub_agents": [{"prompt": "check"}]}]}`
	for _, maxTurns := range []int{0, 1} {
		cfg := DefaultJSONL()
		cfg.Path, cfg.MultiTurn, cfg.OutputLen, cfg.MaxTurns = "f.jsonl", true, 20, maxTurns
		reqs, _, err := readJSONL(cfg, strings.NewReader(line), tokenizer.Approximate())
		if err != nil {
			t.Fatal(err)
		}
		turns := reqs[0].Turns
		want := []SubRequest{
			{Messages: []Message{{Role: RoleUser, Content: "part one"}}, Brief: true, OutputLen: 7, Reply: "done one"},
			{Messages: []Message{{Role: RoleSystem, Content: "s"}, {Role: RoleUser, Content: "part two"}}, Shared: true, OutputLen: 20},
		}
		got := turns[0].FanOut
		for i := range got {
			if got[i].PromptLen < 2 {
				t.Errorf("sub-agent %d: prompt length %d", i, got[i].PromptLen)
			}
			got[i].PromptLen = 0
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("max_turns %d: turn 1's sub-agents (-want +got):\n%s", maxTurns, diff)
		}
		if maxTurns == 0 && (len(turns) != 2 || len(turns[1].FanOut) != 1 || turns[1].FanOut[0].OutputLen != 20) {
			t.Errorf("turn 2's step: %+v", turns)
		}
		if maxTurns == 1 && len(turns) != 1 {
			t.Errorf("max_turns 1 kept %d turns", len(turns))
		}
	}
}

// TestJSONLFanOutErrors: a bad fan_out names the file, the line and what
// is wrong.
func TestJSONLFanOutErrors(t *testing.T) {
	const msgs = `"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]`
	for _, tt := range []struct {
		name, line string
		multi      bool
		want       string
	}{
		{"not a session", `{"prompt": "q", "fan_out": []}`, false, "set multi_turn = true"},
		{"no after_turn", `{` + msgs + `, "fan_out": [{"sub_agents": [{"prompt": "x"}]}]}`, true, `needs "after_turn"`},
		{"empty", `{` + msgs + `, "fan_out": [{"after_turn": 1, "sub_agents": []}]}`, true, "is empty"},
		{"both prompt and messages", `{` + msgs + `, "fan_out": [{"after_turn": 1, "sub_agents": [{"prompt": "x", "messages": []}]}]}`, true, `"prompt" or "messages", one of them`},
		{"bad context", `{` + msgs + `, "fan_out": [{"after_turn": 1, "sub_agents": [{"prompt": "x", "context": "forked"}]}]}`, true, `want "fresh" or "shared"`},
		{"twice", `{` + msgs + `, "fan_out": [{"after_turn": 1, "sub_agents": [{"prompt": "x"}]}, {"after_turn": 1, "sub_agents": [{"prompt": "y"}]}]}`, true, "fans out twice"},
		{"too many", `{` + msgs + `, "fan_out": [{"after_turn": 1, "sub_agents": [` + strings.Repeat(`{"prompt": "x"}, `, 64) + `{"prompt": "x"}]}]}`, true, "more than 64"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultJSONL()
			cfg.Path, cfg.MultiTurn, cfg.OutputLen = "f.jsonl", tt.multi, 20
			_, _, err := readJSONL(cfg, strings.NewReader(tt.line), tokenizer.Approximate())
			var de *Error
			if !errors.As(err, &de) || de.Line != 1 || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v; want line 1: ...%s...", err, tt.want)
			}
		})
	}
}

// TestMessagesWeight: a conversation's images and bytes, an inline
// image's decoded (a URL's image is the server's to fetch: no bytes).
func TestMessagesWeight(t *testing.T) {
	msgs := []Message{
		{Role: RoleUser, Content: "abc", Images: []string{"data:image/png;base64,iVBORw0KGgo=", "https://example.com/x.png"}},
		{Role: RoleAssistant, Content: "de"},
		{Role: RoleUser, Content: "f", Images: []string{"data:image/gif;base64,R0lGODlh"}},
	}
	// "iVBORw0KGgo=" decodes to 8 bytes, "R0lGODlh" to 6.
	if images, bytes := MessagesWeight(msgs); images != 3 || bytes != 3+2+1+8+6 {
		t.Errorf("%d images, %d bytes; want 3 and 20", images, bytes)
	}
}
