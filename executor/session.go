package executor

import (
	"context"
	rand2 "math/rand/v2"
	"strings"
	"time"

	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/metrics"
)

// turnOutcome is what a session's next turn needs of a sent request.
type turnOutcome struct {
	sent bool
	kind metrics.ErrorKind // ErrNone when it succeeded
	text string            // the generated text (kept for sessions)
	// calls are the tool calls the answer made (kept for sessions).
	calls []metrics.ToolCall
	end   time.Duration // when it ended, from the run's start
	// prompt and output are its token counts (the server's usage, else
	// the dataset's and the client's).
	prompt, output int
}

// sessionPrefix is what an ideal prefix cache (whole blocks of
// dataset.PrefixBlock tokens) would serve the next turn of a session from
// the turn before it: that turn's prompt, and with generated history its
// reply too, which begin the next turn's prompt. A recorded reply is not
// the one the engine generated, so its cache stops before it; a failed
// turn's prompt may never have been computed.
func sessionPrefix(prev turnOutcome, generated bool) int {
	if prev.kind != metrics.ErrNone {
		return 0 // the engine may not have computed it
	}
	n := prev.prompt
	if generated {
		n += prev.output
	}
	return n / dataset.PrefixBlock * dataset.PrefixBlock
}

// turns returns the turns of the request at place i (nil for a single
// request).
func (r *run) turns(i int) []dataset.Turn { return r.p.Requests[i%len(r.p.Requests)].Turns }

// dispatch sends the request at place i, whose first (or only) request's
// result res the caller has counted in r.sent and r.wg: a single request,
// or a whole session, turn after turn. stop (a closed loop's halt) and end
// (the run's end, 0 for none) keep a session from starting later turns. It
// returns the failure kind of the (last) request sent.
func (r *run) dispatch(ctx context.Context, res *metrics.Request, i int, stop <-chan struct{}, end time.Duration) metrics.ErrorKind {
	turns := r.turns(i)
	if len(turns) == 0 {
		return r.send(ctx, res, r.prep(i)).kind
	}
	return r.session(ctx, res, i, turns, stop, end)
}

// session replays a multi-turn session: each turn leaves a think time after
// its predecessor ended (its intended time), with the whole history so far:
// the user side's messages and, for the earlier turns, the server's
// replies (HistoryGenerated) or the recorded ones (HistoryRecorded). With
// generated history a failed turn ends the session: there is no reply to
// carry on from. first is turn 1's result. It returns the failure kind of
// the last turn sent.
func (r *run) session(ctx context.Context, first *metrics.Request, i int, turns []dataset.Turn, stop <-chan struct{}, end time.Duration) (kind metrics.ErrorKind) {
	// The session holds the drain open between its turns.
	r.wg.Add(1)
	defer r.wg.Done()
	id := first.ID
	s := r.p.Sessions
	rng := rand2.New(rand2.NewPCG(uint64(r.p.Seed), uint64(id)|1<<63))
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	req := r.p.Requests[i%len(r.p.Requests)]
	var history []dataset.Message
	var prevEnd time.Duration
	var prev turnOutcome
	res := first
	for j, turn := range turns {
		msgs := append(history[:len(history):len(history)], turn.Messages...)
		p := r.prep(i)
		if j > 0 {
			think := s.ThinkMin
			if s.ThinkMax > s.ThinkMin {
				think += time.Duration(rng.Int64N(int64(s.ThinkMax - s.ThinkMin + 1)))
			}
			intended := prevEnd + think
			if think > 0 {
				timer.Reset(think)
				select {
				case <-timer.C:
				case <-ctx.Done():
					return kind
				case <-stop:
					return kind
				}
			}
			select {
			case <-stop:
				return kind
			default:
			}
			now := time.Since(r.start)
			if ctx.Err() != nil || (end > 0 && now >= end) {
				return kind
			}
			preps, err := prepare(r.p.Target, []dataset.Request{{
				Index: req.Index, Messages: msgs, PromptLen: turn.PromptLen, OutputLen: turn.OutputLen, ReferenceLen: turn.ReferenceLen, Tools: req.Tools,
			}})
			if err != nil {
				return kind // the first turn's body was built from the same target
			}
			p = &preps[0]
			p.prefix = sessionPrefix(prev, s.History != HistoryRecorded)
			res = r.newResult(intended, now)
			if r.p.Closed != nil {
				res.Stage = stageAt(r.p.Closed.Stages, now)
			}
			r.sent.Add(1)
			r.wg.Add(1)
		}
		res.Session, res.Turn, res.LastTurn = id, j+1, j == len(turns)-1
		out := r.send(ctx, res, p)
		kind = out.kind
		if !out.sent || kind == metrics.ErrAbandoned {
			return kind // a reader who left ends the conversation
		}
		reply := turn.Reply
		if s.History != HistoryRecorded {
			if kind != metrics.ErrNone {
				return kind
			}
			reply = out.text
		}
		prevEnd, prev = out.end, out
		history = append(msgs, dataset.Message{Role: dataset.RoleAssistant, Content: reply})
		// Tool round trips: the answer called tools, so their results go
		// back, at once, before the next user turn.
		for round := 1; s.History != HistoryRecorded && len(out.calls) > 0 && round <= s.MaxToolRounds; round++ {
			history = withToolResults(history, out.calls, s.ToolResultTokens, rng)
			now := time.Since(r.start)
			if ctx.Err() != nil || (end > 0 && now >= end) {
				return kind
			}
			select {
			case <-stop:
				return kind
			default:
			}
			preps, err := prepare(r.p.Target, []dataset.Request{{
				Index: req.Index, Messages: history, Tools: req.Tools, OutputLen: turn.OutputLen,
				// The prompt's tokens are the server's to count (usage):
				// about the last request's prompt and answer and the results.
				PromptLen: out.prompt + out.output + len(out.calls)*s.ToolResultTokens,
			}})
			if err != nil {
				return kind
			}
			p := &preps[0]
			p.prefix = sessionPrefix(prev, true)
			res = r.newResult(now, now)
			if r.p.Closed != nil {
				res.Stage = stageAt(r.p.Closed.Stages, now)
			}
			res.Session, res.Turn, res.ToolRound = id, j+1, round
			r.sent.Add(1)
			r.wg.Add(1)
			out = r.send(ctx, res, p)
			kind = out.kind
			if !out.sent || kind != metrics.ErrNone {
				return kind
			}
			prevEnd, prev = out.end, out
			history = append(history, dataset.Message{Role: dataset.RoleAssistant, Content: out.text})
		}
	}
	return kind
}

// withToolResults gives the last assistant message of history the calls
// it made and appends a tool message with each call's result: n words of
// synthetic text (a tool's output the server must read).
func withToolResults(history []dataset.Message, calls []metrics.ToolCall, n int, rng *rand2.Rand) []dataset.Message {
	last := &history[len(history)-1]
	last.ToolCalls = make([]dataset.ToolCall, len(calls))
	for i, c := range calls {
		last.ToolCalls[i] = dataset.ToolCall{ID: c.ID, Type: "function", Function: dataset.FunctionCall{Name: c.Name, Arguments: c.Arguments}}
		if strings.TrimSpace(c.Arguments) == "" {
			last.ToolCalls[i].Function.Arguments = "{}"
		}
	}
	for _, c := range calls {
		words := make([]string, n)
		for k := range words {
			words[k] = toolWords[rng.IntN(len(toolWords))]
		}
		history = append(history, dataset.Message{Role: dataset.RoleTool, ToolCallID: c.ID, Content: strings.Join(words, " ")})
	}
	return history
}

// toolWords make the synthetic tool results: common words, so that any
// tokenizer counts about one token each.
var toolWords = strings.Fields("the result is a list of items with names values dates and notes for each row in the table found by the query")
