package dataset

import (
	"strings"

	"github.com/llmload/llmload/tokenizer"
)

// Chat roles.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// shareGPTRole maps a ShareGPT "from" to a chat role: "human" and "user"
// ask, "gpt", "assistant", "chatgpt", "bard", "bing" and "model" answer,
// "system" is a system message; anything else asks.
func shareGPTRole(from string) string {
	switch strings.ToLower(from) {
	case "gpt", "assistant", "chatgpt", "bard", "bing", "model":
		return RoleAssistant
	case "system":
		return RoleSystem
	}
	return RoleUser
}

// sessionTurns groups a conversation into turns: the messages up to a
// reply (a system message and a user message, say) and the assistant
// message that answers them. Replies before the first question are left
// out; consecutive replies are joined by a newline; questions after the
// last reply make a last turn without a recorded reply.
func sessionTurns(msgs []Message) []Turn {
	var turns []Turn
	var pending []Message
	asked := false
	for _, m := range msgs {
		if m.Role != RoleAssistant {
			pending = append(pending, m)
			// A tool's result asks the model to go on, as a user does.
			asked = asked || m.Role == RoleUser || m.Role == RoleTool
			continue
		}
		switch {
		case asked:
			turns = append(turns, Turn{Messages: pending, Reply: m.Content, ReplyCalls: m.ToolCalls})
			pending, asked = nil, false
		case len(turns) > 0 && len(pending) == 0:
			last := &turns[len(turns)-1]
			last.Reply += "\n" + m.Content
			last.ReplyCalls = append(last.ReplyCalls, m.ToolCalls...)
		}
	}
	if asked {
		turns = append(turns, Turn{Messages: pending})
	}
	return turns
}

// sessionLimits bound the turns a session keeps.
type sessionLimits struct {
	// outputLen fixes every turn's output length; 0 takes the recorded
	// reply's length (a turn without a reply then ends the session).
	outputLen int
	// outputLens, when set, fix turn j's output length (where > 0) over
	// outputLen (a trace's per-request output_length).
	outputLens []int
	// maxTurns keeps at most that many turns (0: all).
	maxTurns int
	// maxTotal, when > 0, ends the session before the first turn whose
	// prompt (history included) and output lengths add up to more.
	maxTotal int
	// reference counts each recorded reply into its turn's ReferenceLen
	// (ShareGPT, whose replies are the dataset's answers).
	reference bool
}

// countTurns fills each turn's PromptLen (the whole recorded history up to
// it, contents joined by newlines, special tokens included) and OutputLen,
// and cuts the session where the limits say. The first turn is always kept
// (the callers apply their own rules to it).
func countTurns(turns []Turn, lim sessionLimits, tok tokenizer.Tokenizer) ([]Turn, error) {
	if lim.maxTurns > 0 && len(turns) > lim.maxTurns {
		turns = turns[:lim.maxTurns]
	}
	var history []string
	for j := range turns {
		t := &turns[j]
		for _, m := range t.Messages {
			history = append(history, m.Content)
		}
		ids, err := encode(tok, strings.Join(history, "\n"), true)
		if err != nil {
			return nil, err
		}
		t.PromptLen = len(ids)
		t.OutputLen = lim.outputLen
		if j < len(lim.outputLens) && lim.outputLens[j] > 0 {
			t.OutputLen = lim.outputLens[j]
		}
		reply := replyText(*t)
		if t.OutputLen == 0 && reply == "" {
			return turns[:j], nil
		}
		if reply != "" && (t.OutputLen == 0 || lim.reference) {
			// As vLLM counts a ShareGPT reply: special tokens included.
			ids, err := encode(tok, reply, true)
			if err != nil {
				return nil, err
			}
			if t.OutputLen == 0 {
				t.OutputLen = len(ids)
			}
			if lim.reference {
				t.ReferenceLen = len(ids)
			}
		}
		if j > 0 && lim.maxTotal > 0 && t.PromptLen+t.OutputLen > lim.maxTotal {
			return turns[:j], nil
		}
		history = append(history, reply)
	}
	return turns, nil
}

// replyText is a recorded reply as the tokens it took: its text and its
// calls' names and arguments.
func replyText(t Turn) string {
	if len(t.ReplyCalls) == 0 {
		return t.Reply // as vLLM counts a ShareGPT reply
	}
	parts := []string{t.Reply}
	for _, c := range t.ReplyCalls {
		parts = append(parts, c.Function.Name, c.Function.Arguments)
	}
	return strings.TrimSpace(strings.Join(parts, " "))
}

// sessionRequest is the request of a session: the first turn's, with the
// turns.
func sessionRequest(index int, turns []Turn) Request {
	first := turns[0]
	contents := make([]string, len(first.Messages))
	for i, m := range first.Messages {
		contents[i] = m.Content
	}
	images, bytes := MessagesWeight(first.Messages)
	return Request{
		Index: index, Prompt: strings.Join(contents, "\n"), Messages: first.Messages,
		PromptLen: first.PromptLen, OutputLen: first.OutputLen, ReferenceLen: first.ReferenceLen, Turns: turns,
		Images: images, PromptBytes: bytes,
	}
}
