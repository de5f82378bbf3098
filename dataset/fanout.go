package dataset

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/llmload/llmload/tokenizer"
	"github.com/tidwall/gjson"
)

// An agent graph's fan-out steps, in a dataset (the JSONL form of a
// scenario's fan_out block): sub-agents that a turn's answer starts at
// once, each a request of its own, whose replies the next turn joins.
//
// A jsonl line of a multi-turn source carries them as
//
//	"fan_out": [{"after_turn": 1, "sub_agents": [SUB, ...]}, ...]
//
// and an agent trace's row (agenttrace.go) as "fan_out": [SUB, ...], its
// own answer's. A SUB is
//
//	{"prompt": "..." or "messages": [...], "context": "fresh" or "shared",
//	 "output_len": 32, "reply": "..."}
//
// context "fresh" (the default) sends the sub-agent its messages with the
// step's answer appended (its brief); "shared" sends the session's
// history, then its messages. output_len is its max_tokens (default: the
// turn's), reply its recorded answer (for history "recorded").

// MaxSubAgents bounds one fan-out step: each sub-agent is a request at
// once, and a typo should not send a thousand.
const MaxSubAgents = 64

// parseSubAgents reads an array of sub-agents; outputLen is their default
// max_tokens.
func parseSubAgents(v gjson.Result, outputLen int, tok tokenizer.Tokenizer) ([]SubRequest, error) {
	if !v.IsArray() {
		return nil, fmt.Errorf("is %s, not an array of sub-agents", kind(v))
	}
	var subs []SubRequest
	var bad error
	v.ForEach(func(_, s gjson.Result) bool {
		i := len(subs)
		if i == MaxSubAgents {
			bad = fmt.Errorf("has more than %d sub-agents", MaxSubAgents)
			return false
		}
		if !s.IsObject() {
			bad = fmt.Errorf("[%d] is %s, not an object", i, kind(s))
			return false
		}
		sub := SubRequest{OutputLen: outputLen}
		prompt, msgs := field(s, "prompt"), field(s, "messages")
		switch {
		case prompt.Exists() == msgs.Exists():
			bad = fmt.Errorf("[%d] needs \"prompt\" or \"messages\", one of them", i)
		case prompt.Exists() && (prompt.Type != gjson.String || strings.TrimSpace(prompt.Str) == ""):
			bad = fmt.Errorf("[%d]: \"prompt\" is %s, not a non-empty string", i, describe(prompt))
		case prompt.Exists():
			sub.Messages = []Message{{Role: RoleUser, Content: prompt.Str}}
		default:
			var err error
			if sub.Messages, err = parseMessages(msgs); err != nil {
				bad = fmt.Errorf("[%d]: %w", i, err)
			}
		}
		if bad != nil {
			return false
		}
		switch c := field(s, "context"); {
		case !c.Exists() || c.Str == "fresh":
			sub.Brief = true
		case c.Str == "shared":
			sub.Shared = true
		default:
			bad = fmt.Errorf("[%d]: \"context\" is %s; want \"fresh\" or \"shared\"", i, describe(c))
			return false
		}
		if o := field(s, "output_len"); o.Exists() {
			if o.Type != gjson.Number || o.Num != math.Trunc(o.Num) || o.Num < 1 || o.Num > maxTraceTokens {
				bad = fmt.Errorf("[%d]: \"output_len\" is %s, not a positive integer", i, describe(o))
				return false
			}
			sub.OutputLen = int(o.Num)
		}
		if sub.OutputLen < 1 {
			bad = fmt.Errorf("[%d] has no \"output_len\" (its max_tokens)", i)
			return false
		}
		if r := field(s, "reply"); r.Exists() {
			if r.Type != gjson.String {
				bad = fmt.Errorf("[%d]: \"reply\" is %s, not a string", i, describe(r))
				return false
			}
			sub.Reply = r.Str
		}
		contents := make([]string, len(sub.Messages))
		for k, m := range sub.Messages {
			contents[k] = m.Content
		}
		ids, err := encode(tok, strings.Join(contents, "\n"), true)
		if err != nil {
			bad = err
			return false
		}
		sub.PromptLen = len(ids)
		subs = append(subs, sub)
		return true
	})
	if bad != nil {
		return nil, bad
	}
	if len(subs) == 0 {
		return nil, errors.New("is empty: a fan-out step needs a sub-agent")
	}
	return subs, nil
}

// parseFanOut reads a jsonl line's "fan_out" steps onto its session's
// turns (after countTurns: a turn cut by the limits takes its step along).
func parseFanOut(v gjson.Result, turns []Turn, tok tokenizer.Tokenizer) error {
	if !v.IsArray() {
		return fmt.Errorf("\"fan_out\" is %s, not an array of steps ({\"after_turn\": 1, \"sub_agents\": [...]})", kind(v))
	}
	var bad error
	k := 0
	v.ForEach(func(_, step gjson.Result) bool {
		defer func() { k++ }()
		at := field(step, "after_turn")
		if !step.IsObject() || at.Type != gjson.Number || at.Num != math.Trunc(at.Num) || at.Num < 1 {
			bad = fmt.Errorf("fan_out[%d] needs \"after_turn\", the turn whose answer fans out (from 1)", k)
			return false
		}
		n := int(at.Num)
		if n > len(turns) {
			return true // the session was cut before it (max_turns)
		}
		if len(turns[n-1].FanOut) > 0 {
			bad = fmt.Errorf("fan_out[%d]: turn %d fans out twice", k, n)
			return false
		}
		subs, err := parseSubAgents(field(step, "sub_agents"), turns[n-1].OutputLen, tok)
		if err != nil {
			bad = fmt.Errorf("fan_out[%d].sub_agents %w", k, err)
			return false
		}
		turns[n-1].FanOut = subs
		return true
	})
	return bad
}
