package dataset

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/llmload/llmload/tokenizer"
	"github.com/tidwall/gjson"
)

// Agent traces: AIPerf's mooncake_trace (ai-dynamo/aiperf,
// docs/benchmark-modes/trace-replay.md) extends Mooncake's rows with what
// an agent sent: "session_id" groups the rows of one session, "messages"
// (OpenAI chat messages, with the assistant's tool_calls and the tool
// messages that answer them) or "text_input" is the prompt instead of
// input_length and hash_ids, "tools" the functions it offered, and a later
// row of a session has "delay", the milliseconds after the previous row's
// answer ended, instead of a timestamp. Each row holds the whole
// conversation so far (AIPerf's message_mode "history"), so the rows of a
// session are one conversation growing: its turns, each with its recorded
// reply (the next row's new assistant message) and think time (its
// delay). Replayed with history "recorded" (the default for a trace) the
// server sees the recorded requests exactly.

// present is a member that is there and not null (a JSON dump writes an
// absent optional field as null).
func present(v gjson.Result) bool { return v.Exists() && v.Type != gjson.Null }

// parseAgentFields reads an agent trace's members of a row into rec: a row
// with "messages" or "text_input" is one (agent says so). Other rows are
// Mooncake's, whatever else they carry (a session_id on input_length rows
// is left aside, as before).
func parseAgentFields(obj gjson.Result, rec *traceRecord) (agent bool, err error) {
	if !present(field(obj, "messages")) && !present(field(obj, "text_input")) {
		return false, nil
	}
	if mode := field(obj, "message_mode"); present(mode) && mode.Str != "history" {
		return true, fmt.Errorf("\"message_mode\" is %s: only \"history\" is replayed (each row the whole conversation so far); a \"delta\" row's history is the live replies, which a recorded trace cannot check", describe(mode))
	}
	if id := field(obj, "session_id"); present(id) {
		if id.Type != gjson.String || id.Str == "" {
			return true, fmt.Errorf("\"session_id\" is %s, not a non-empty string", describe(id))
		}
		rec.session = id.Str
	}
	if d := field(obj, "delay"); present(d) {
		if d.Type != gjson.Number || !(d.Num >= 0) || d.Num > maxTraceMs {
			return true, fmt.Errorf("\"delay\" is %s, not a number of milliseconds >= 0", describe(d))
		}
		rec.delay, rec.hasDelay = time.Duration(d.Num*float64(time.Millisecond)), true
		if present(field(obj, "timestamp")) {
			return true, errors.New("a row has \"timestamp\" (when it goes) or \"delay\" (after the previous answer), not both")
		}
	}
	msgs, text := field(obj, "messages"), field(obj, "text_input")
	switch {
	case present(msgs) && present(text):
		return true, errors.New("a row's prompt is \"messages\" or \"text_input\", not both")
	case present(msgs):
		if rec.msgs, err = parseMessages(msgs); err != nil {
			return true, err
		}
	default:
		if text.Type != gjson.String || text.Str == "" {
			return true, fmt.Errorf("\"text_input\" is %s, not a non-empty string", describe(text))
		}
		rec.msgs = []Message{{Role: RoleUser, Content: text.Str}}
	}
	if present(field(obj, "hash_ids")) {
		return true, errors.New("a row with messages has its own text: \"hash_ids\" are for rows of input_length alone")
	}
	tools, choice := field(obj, "tools"), field(obj, "tool_choice")
	if !present(tools) {
		tools = gjson.Result{}
	}
	if !present(choice) {
		choice = gjson.Result{}
	}
	if rec.tools, err = parseTools(tools, choice); err != nil {
		return true, err
	}
	if f := field(obj, "fan_out"); present(f) {
		rec.fanOut = f
	}
	return true, nil
}

// agentRows says whether a trace is an agent trace: any row with messages.
// Its rows are then all such rows (agentTrace says so otherwise).
func agentRows(recs []traceRecord) bool {
	return slices.ContainsFunc(recs, func(r traceRecord) bool { return r.msgs != nil })
}

// agentSession is a session's rows, in file order.
type agentSession struct {
	id   string
	rows []traceRecord
}

// agentTrace builds an agent trace's requests: each session (a row
// without session_id is a session of its own) one request at its first
// row's timestamp, its rows its turns with multi_turn, else each row a
// request of its own.
func agentTrace(cfg Trace, recs []traceRecord, tok tokenizer.Tokenizer, stats Stats) ([]Request, Stats, error) {
	var sessions []*agentSession
	byID := map[string]*agentSession{}
	for _, rec := range recs {
		if rec.msgs == nil {
			return nil, stats, lineError(cfg.Path, rec.line, "a row of input_length alone in a trace of messages: give every row its messages (or text_input)")
		}
		s := byID[rec.session]
		if s == nil || rec.session == "" || !cfg.MultiTurn {
			s = &agentSession{id: rec.session}
			sessions = append(sessions, s)
			if rec.session != "" {
				byID[rec.session] = s
			}
		}
		s.rows = append(s.rows, rec)
	}
	for _, s := range sessions {
		first := s.rows[0]
		switch {
		case !first.hasAt && !cfg.MultiTurn:
			return nil, stats, lineError(cfg.Path, first.line, "a row with a \"delay\" and no \"timestamp\" is a later turn of session %q: set multi_turn = true on the trace to replay its sessions", s.id)
		case !first.hasAt:
			return nil, stats, lineError(cfg.Path, first.line, "the first row of session %q has no \"timestamp\": when the session begins, in milliseconds from the trace's start", s.id)
		}
	}
	slices.SortStableFunc(sessions, func(a, b *agentSession) int { return cmp.Compare(a.rows[0].at, b.rows[0].at) })
	zero := sessions[0].rows[0].at
	from, to := cfg.Start, time.Duration(math.MaxInt64)
	if cfg.Window > 0 {
		to = cfg.Start + cfg.Window
	}
	var reqs []Request
	for _, s := range sessions {
		at := s.rows[0].at - zero
		if at < from || at >= to {
			stats.Skipped[skipOutside] += len(s.rows)
			continue
		}
		req, err := agentRequest(cfg, s, tok)
		if err != nil {
			return nil, stats, err
		}
		req.At = at - from
		reqs = append(reqs, req)
		stats.Examined++
	}
	if len(reqs) == 0 {
		return nil, stats, fileError(cfg.Path, "no session in the slice from %v to %v of the trace", from, fmtEnd(to))
	}
	stats.Span = reqs[len(reqs)-1].At - reqs[0].At
	return reqs, stats, nil
}

// agentRequest is one session's request: a single row's messages, or with
// several rows the turns of the conversation its last row holds, each row
// checked to be that conversation so far.
func agentRequest(cfg Trace, s *agentSession, tok tokenizer.Tokenizer) (Request, error) {
	first, last := s.rows[0], s.rows[len(s.rows)-1]
	if !cfg.MultiTurn {
		if first.fanOut.Exists() {
			return Request{}, lineError(cfg.Path, first.line, "\"fan_out\" is a step of a session: set multi_turn = true on the trace")
		}
		contents := make([]string, len(first.msgs))
		for i, m := range first.msgs {
			contents[i] = m.Content
		}
		prompt := strings.Join(contents, "\n")
		ids, err := encode(tok, prompt, true)
		if err != nil {
			return Request{}, err
		}
		if first.out == 0 {
			return Request{}, lineError(cfg.Path, first.line, "no \"output_length\": a request's max_tokens (a row without a recorded answer after it needs one)")
		}
		return Request{Index: first.line - 1, Prompt: prompt, Messages: first.msgs, PromptLen: len(ids), OutputLen: first.out, Tools: first.tools}, nil
	}
	turns := sessionTurns(last.msgs)
	if len(turns) != len(s.rows) {
		return Request{}, lineError(cfg.Path, last.line, "session %q: its last row's messages hold %d requests (questions or tool results each answered by the assistant, then the last one), its rows are %d: each row holds the whole conversation so far (AIPerf's message_mode \"history\")", s.id, len(turns), len(s.rows))
	}
	outs := make([]int, len(s.rows))
	for k, r := range s.rows {
		if len(r.msgs) > len(last.msgs) || !slices.EqualFunc(r.msgs, last.msgs[:len(r.msgs)], sameMessage) {
			return Request{}, lineError(cfg.Path, r.line, "session %q: this row's messages are not the beginning of its last row's (line %d): each row holds the whole conversation so far", s.id, last.line)
		}
		// A row is one request: it ends before an answer (the next row's
		// new assistant message), after the one before it.
		if k > 0 && len(r.msgs) <= len(s.rows[k-1].msgs) || r.msgs[len(r.msgs)-1].Role == RoleAssistant || k < len(s.rows)-1 && last.msgs[len(r.msgs)].Role != RoleAssistant {
			return Request{}, lineError(cfg.Path, r.line, "session %q: this row does not end where a request of the conversation does: each row holds the one before it, then the answer to it, then what asks for the next answer (a question or tool results)", s.id)
		}
		outs[k] = r.out
	}
	if last.out == 0 {
		return Request{}, lineError(cfg.Path, last.line, "session %q: its last row has no \"output_length\" (no recorded answer follows it to take the length from)", s.id)
	}
	counted, err := countTurns(turns, sessionLimits{outputLens: outs, maxTurns: cfg.MaxTurns}, tok)
	if err != nil {
		return Request{}, err
	}
	for k := range counted {
		// Each row offers its own tools, as it recorded them.
		counted[k].OwnTools, counted[k].Tools = true, s.rows[k].tools
		if k > 0 {
			// A later row goes its delay after the answer before it, or
			// at its own timestamp (AIPerf: not before the answer).
			counted[k].Think = s.rows[k].delay
			counted[k].At, counted[k].AtSet = s.rows[k].at-first.at, s.rows[k].hasAt
		}
		if f := s.rows[k].fanOut; f.Exists() {
			if counted[k].FanOut, err = parseSubAgents(f, counted[k].OutputLen, tok); err != nil {
				return Request{}, lineError(cfg.Path, s.rows[k].line, "\"fan_out\" %s", err)
			}
		}
	}
	req := sessionRequest(first.line-1, counted)
	req.Tools = first.tools
	return req, nil
}

// sameMessage says two recorded messages are the same.
func sameMessage(a, b Message) bool {
	return a.Role == b.Role && a.Content == b.Content && a.ToolCallID == b.ToolCallID &&
		slices.Equal(a.ToolCalls, b.ToolCalls) && slices.Equal(a.Images, b.Images)
}
