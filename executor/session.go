package executor

import (
	"context"
	"fmt"
	rand2 "math/rand/v2"
	"slices"
	"strings"
	"sync"
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
// carry on from. A turn's answer that called tools is followed by its
// round trips, and a fan-out turn by its sub-agents, whose replies the
// next turn's prompt joins. first is turn 1's result. It returns the
// failure kind of the last request sent, and reports the session's own
// figures (metrics.Session) when it ends.
func (r *run) session(ctx context.Context, first *metrics.Request, i int, turns []dataset.Turn, stop <-chan struct{}, end time.Duration) (kind metrics.ErrorKind) {
	// The session holds the drain open between its turns.
	r.wg.Add(1)
	defer r.wg.Done()
	ss := &sessionRun{r: r, ctx: ctx, stop: stop, end: end, req: r.p.Requests[i%len(r.p.Requests)],
		rec: metrics.Session{ID: first.ID, Stage: first.Stage, Start: first.Intended}}
	ss.rng = rand2.New(rand2.NewPCG(uint64(r.p.Seed), uint64(first.ID)|1<<63))
	defer func() {
		if ss.rec.Requests > 0 {
			r.results <- result{session: &ss.rec}
		}
	}()
	s := r.p.Sessions
	generated := s.History != HistoryRecorded
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var history []dataset.Message
	var prevEnd time.Duration
	var prev turnOutcome
	var join string // the last fan-out's replies, for the next turn
	answered := 0
	defer func() { ss.rec.Complete = answered == len(turns) }()
	res := first
	var next []dataset.Message // the next turn's messages, fitted to the server's calls
	for j, turn := range turns {
		own := turn.Messages
		if next != nil {
			own, next = next, nil
		}
		msgs := append(history[:len(history):len(history)], withJoin(own, join)...)
		join = ""
		p := r.prep(i)
		if j > 0 {
			think := ss.think(turn, prevEnd)
			intended := prevEnd + think
			if end > 0 && intended >= end {
				return kind // the run ends before the turn would start
			}
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
			now, ok := ss.open()
			if !ok {
				return kind
			}
			ss.rec.Thinking += think
			images, bytes := dataset.MessagesWeight(msgs)
			preps, err := prepare(r.p.Target, []dataset.Request{{
				Index: ss.req.Index, Messages: msgs, PromptLen: turn.PromptLen, OutputLen: turn.OutputLen, ReferenceLen: turn.ReferenceLen, Tools: ss.tools(turn),
				Images: images, PromptBytes: bytes,
			}})
			if err != nil {
				return kind // the first turn's body was built from the same target
			}
			p = &preps[0]
			p.prefix = sessionPrefix(prev, generated)
			res = ss.newResult(intended, now)
		}
		res.Session, res.Turn, res.LastTurn = ss.rec.ID, j+1, j == len(turns)-1
		out := ss.send(res, p)
		kind = out.kind
		if out.sent {
			ss.rec.Turns++
		}
		if !out.sent || kind == metrics.ErrAbandoned {
			return kind // a reader who left ends the conversation
		}
		reply := turn.Reply
		if generated {
			if kind != metrics.ErrNone {
				return kind
			}
			reply = out.text
		}
		if kind == metrics.ErrNone {
			answered++
		}
		prevEnd, prev = out.end, out
		// The next turn may open with the recorded results of this
		// turn's calls (a trace's tool messages): they are the round trip.
		lead := 0
		if j+1 < len(turns) {
			lead = leadingTools(turns[j+1].Messages)
		}
		asst := dataset.Message{Role: dataset.RoleAssistant, Content: reply}
		switch {
		case !generated:
			asst.ToolCalls = turn.ReplyCalls
		case lead > 0:
			asst.ToolCalls, next = fitResults(turns[j+1].Messages, lead, out.calls, turn.ReplyCalls, s.ToolResultTokens, ss.rng)
		}
		history = append(msgs, asst)
		// Tool round trips: the answer called tools, so their results go
		// back, at once, before the next user turn.
		for round := 1; generated && lead == 0 && len(out.calls) > 0 && round <= s.MaxToolRounds; round++ {
			history = withToolResults(history, out.calls, s.ToolResultTokens, ss.rng)
			now, ok := ss.open()
			if !ok {
				return kind
			}
			images, bytes := dataset.MessagesWeight(history)
			preps, err := prepare(r.p.Target, []dataset.Request{{
				Index: ss.req.Index, Messages: history, Tools: ss.tools(turn), OutputLen: turn.OutputLen, Images: images, PromptBytes: bytes,
				// The prompt's tokens are the server's to count (usage):
				// about the last request's prompt and answer and the results.
				PromptLen: out.prompt + out.output + len(out.calls)*s.ToolResultTokens,
			}})
			if err != nil {
				return kind
			}
			p := &preps[0]
			p.prefix = sessionPrefix(prev, true)
			res = ss.newResult(now, now)
			res.Session, res.Turn, res.ToolRound = ss.rec.ID, j+1, round
			ss.rec.ToolRounds++
			out = ss.send(res, p)
			kind = out.kind
			if !out.sent || kind != metrics.ErrNone {
				answered = -1 // the turn's work was not done
				return kind
			}
			prevEnd, prev = out.end, out
			history = append(history, dataset.Message{Role: dataset.RoleAssistant, Content: out.text})
			reply = out.text // the step's answer is now this one
		}
		if len(turn.FanOut) > 0 {
			outs, ok := ss.fanOut(j+1, turn.FanOut, history, reply, prev)
			if !ok {
				answered = -1
				return kind
			}
			if k := failed(outs); k != metrics.ErrNone {
				answered = -1 // a sub-agent's work was not done
				if generated {
					return k
				}
			}
			for _, o := range outs {
				prevEnd = max(prevEnd, o.end)
			}
			join = joinReplies(turn.FanOut, outs, generated)
		}
	}
	return kind
}

// sessionRun is what a session's steps share.
type sessionRun struct {
	r    *run
	ctx  context.Context
	stop <-chan struct{}
	end  time.Duration
	req  dataset.Request // the session's dataset entry
	rng  *rand2.Rand
	rec  metrics.Session
}

// tools are what a turn offers: its own (a trace row's), else its
// session's.
func (ss *sessionRun) tools(turn dataset.Turn) *dataset.Tools {
	if turn.OwnTools {
		return turn.Tools
	}
	return ss.req.Tools
}

// open says whether the session may send its next step now (the run goes
// on: no interruption, halt or end), and the time it is.
func (ss *sessionRun) open() (time.Duration, bool) {
	select {
	case <-ss.stop:
		return 0, false
	default:
	}
	now := time.Since(ss.r.start)
	return now, ss.ctx.Err() == nil && (ss.end == 0 || now < ss.end)
}

// newResult starts the result of a later request of the session, counted
// in the run's sent requests and drain.
func (ss *sessionRun) newResult(intended, now time.Duration) *metrics.Request {
	r := ss.r
	res := r.newResult(intended, now)
	if r.p.Closed != nil {
		res.Stage = stageAt(r.p.Closed.Stages, now)
	}
	r.sent.Add(1)
	r.wg.Add(1)
	return res
}

// send sends one of the session's requests and counts it in the session's
// figures: a step waits on the server from its intended send to its end.
func (ss *sessionRun) send(res *metrics.Request, p *prepared) turnOutcome {
	dispatched := res.Dispatched // res belongs to the recorder once sent
	out := ss.r.send(ss.ctx, res, p)
	if out.sent {
		ss.rec.Requests++
		ss.rec.Waiting += out.end - dispatched
		ss.rec.End = max(ss.rec.End, out.end)
	}
	return out
}

// think is the pause before turn, whose predecessor ended at prevEnd: the
// scenario's draw, or with recorded think time the trace's, its delay
// (divided by a replay's speed) or its absolute time (the session's start
// plus the turn's offset from the session's first, at the replay's speed;
// no pause when that time has passed).
func (ss *sessionRun) think(turn dataset.Turn, prevEnd time.Duration) time.Duration {
	t := ss.r.p.Sessions.Think
	if t.Dist != ThinkRecorded {
		return t.draw(ss.rng, turn)
	}
	speed := 1.0
	if o := ss.r.p.Open; o != nil && o.Arrival == ArrivalReplay && o.Speed > 0 {
		speed = o.Speed
	}
	if turn.AtSet {
		at := ss.rec.Start + time.Duration(float64(turn.At)/speed)
		return max(0, at-prevEnd)
	}
	return time.Duration(float64(turn.Think) / speed)
}

// fanOut sends a fan-out step's sub-agents at once, each with its prompt
// (after history when shared; with the step's answer, brief, appended
// when briefed), and waits for them all. The step waits on the server
// from its start to its slowest sub-agent's end. ok is false when the
// session may not go on (interruption, halt, the run's end).
func (ss *sessionRun) fanOut(turn int, subs []dataset.SubRequest, history []dataset.Message, brief string, prev turnOutcome) (outs []turnOutcome, ok bool) {
	r := ss.r
	start, ok := ss.open()
	if !ok {
		return nil, false
	}
	outs = make([]turnOutcome, len(subs))
	preps := make([]*prepared, len(subs))
	for k, sub := range subs {
		msgs := slices.Clone(sub.Messages)
		if sub.Brief && len(msgs) > 0 && brief != "" {
			last := &msgs[len(msgs)-1]
			last.Content += "\n\n" + brief
		}
		promptLen := sub.PromptLen
		if sub.Shared {
			msgs = append(history[:len(history):len(history)], msgs...)
			promptLen += prev.prompt + prev.output
		}
		images, bytes := dataset.MessagesWeight(msgs)
		ps, err := prepare(r.p.Target, []dataset.Request{{Index: ss.req.Index, Messages: msgs, PromptLen: promptLen, OutputLen: sub.OutputLen, Images: images, PromptBytes: bytes}})
		if err != nil {
			return nil, false
		}
		preps[k] = &ps[0]
		if sub.Shared {
			preps[k].prefix = sessionPrefix(prev, r.p.Sessions.History != HistoryRecorded)
		}
	}
	var wg sync.WaitGroup
	for k, p := range preps {
		res := r.newResult(start, start)
		if r.p.Closed != nil {
			res.Stage = stageAt(r.p.Closed.Stages, start)
		}
		res.Session, res.Turn, res.SubAgent = ss.rec.ID, turn, k+1
		r.sent.Add(1)
		r.wg.Add(1)
		wg.Go(func() { outs[k] = r.send(ss.ctx, res, p) })
	}
	wg.Wait()
	last := start
	for _, o := range outs {
		if o.sent {
			ss.rec.Requests++
			ss.rec.SubAgents++
			last = max(last, o.end)
		}
	}
	ss.rec.Waiting += last - start
	ss.rec.End = max(ss.rec.End, last)
	return outs, true
}

// failed is the failure kind of the first sub-agent that did not answer
// (ErrNone when all did).
func failed(outs []turnOutcome) metrics.ErrorKind {
	for _, o := range outs {
		if !o.sent {
			return metrics.ErrCanceled
		}
		if o.kind != metrics.ErrNone {
			return o.kind
		}
	}
	return metrics.ErrNone
}

// joinReplies is what a fan-out step hands the next turn: each
// sub-agent's reply (the server's with generated history, else the
// recorded one), numbered.
func joinReplies(subs []dataset.SubRequest, outs []turnOutcome, generated bool) string {
	var b strings.Builder
	b.WriteString("Results of the sub-agents:")
	for k, o := range outs {
		reply := subs[k].Reply
		if generated {
			reply = o.text
		}
		fmt.Fprintf(&b, "\n\n[%d] %s", k+1, reply)
	}
	return b.String()
}

// withJoin puts a fan-out's joined replies before the first user message
// of msgs (a copy; msgs is the dataset's); no join leaves msgs as they are.
func withJoin(msgs []dataset.Message, join string) []dataset.Message {
	if join == "" {
		return msgs
	}
	out := slices.Clone(msgs)
	for k := range out {
		if out[k].Role == dataset.RoleUser {
			out[k].Content = join + "\n\n" + out[k].Content
			return out
		}
	}
	return append(out, dataset.Message{Role: dataset.RoleUser, Content: join})
}

// withFanOut returns the requests with the scenario's fan-out step placed
// in every session that reaches it (copies: the dataset is shared). A
// session whose fan-out turn is its last gets a join turn: a request of
// its own that reads the sub-agents' replies.
func withFanOut(reqs []dataset.Request, f *FanOut) []dataset.Request {
	if f == nil {
		return reqs
	}
	out := slices.Clone(reqs)
	for i := range out {
		turns := out[i].Turns
		if len(turns) < f.AfterTurn {
			continue
		}
		if len(turns[f.AfterTurn-1].FanOut) > 0 {
			continue // the dataset's own step stands
		}
		turns = slices.Clone(turns)
		t := &turns[f.AfterTurn-1]
		var system []dataset.Message
		for _, m := range turns[0].Messages {
			if m.Role == dataset.RoleSystem {
				system = append(system, m)
			}
		}
		t.FanOut = make([]dataset.SubRequest, f.Width)
		for k := range t.FanOut {
			prompt := fmt.Sprintf("%s (sub-task %d of %d)", f.Prompt, k+1, f.Width)
			sub := dataset.SubRequest{Shared: f.Shared, Brief: !f.Shared, OutputLen: f.OutputLen,
				PromptLen: len(strings.Fields(prompt)), Messages: []dataset.Message{{Role: dataset.RoleUser, Content: prompt}}}
			if !f.Shared {
				sub.Messages = append(slices.Clone(system), sub.Messages...)
				sub.PromptLen += t.OutputLen // the brief: about the step's answer
			}
			t.FanOut[k] = sub
		}
		out[i].Turns = turns
	}
	return out
}

// withJoins gives every session whose last turn fans out (the scenario's
// fan_out, or a dataset's) a join turn: a request of its own that reads
// the sub-agents' replies. reqs are copied where they change.
func withJoins(reqs []dataset.Request) []dataset.Request {
	var out []dataset.Request
	for i, r := range reqs {
		if len(r.Turns) == 0 || len(r.Turns[len(r.Turns)-1].FanOut) == 0 {
			continue
		}
		if out == nil {
			out = slices.Clone(reqs)
		}
		t := r.Turns[len(r.Turns)-1]
		joined := 0
		for _, sub := range t.FanOut {
			joined += sub.OutputLen
		}
		out[i].Turns = append(slices.Clone(r.Turns), dataset.Turn{
			Messages:  []dataset.Message{{Role: dataset.RoleUser, Content: "Combine the sub-agents' results into one answer."}},
			PromptLen: t.PromptLen + t.OutputLen + joined, OutputLen: t.OutputLen,
		})
	}
	if out == nil {
		return reqs
	}
	return out
}

// withToolResults gives the last assistant message of history the calls
// it made and appends a tool message with each call's result: n words of
// synthetic text (a tool's output the server must read).
func withToolResults(history []dataset.Message, calls []metrics.ToolCall, n int, rng *rand2.Rand) []dataset.Message {
	last := &history[len(history)-1]
	last.ToolCalls = toolCallsOf(calls)
	for _, c := range calls {
		history = append(history, syntheticResult(c.ID, n, rng))
	}
	return history
}

// toolCallsOf is the server's calls as an assistant message carries them.
func toolCallsOf(calls []metrics.ToolCall) []dataset.ToolCall {
	out := make([]dataset.ToolCall, len(calls))
	for i, c := range calls {
		out[i] = dataset.ToolCall{ID: c.ID, Type: "function", Function: dataset.FunctionCall{Name: c.Name, Arguments: c.Arguments}}
		if strings.TrimSpace(c.Arguments) == "" {
			out[i].Function.Arguments = "{}"
		}
	}
	return out
}

// syntheticResult is a tool message answering call id with n words of
// synthetic text (a tool's output the server must read).
func syntheticResult(id string, n int, rng *rand2.Rand) dataset.Message {
	words := make([]string, n)
	for k := range words {
		words[k] = toolWords[rng.IntN(len(toolWords))]
	}
	return dataset.Message{Role: dataset.RoleTool, ToolCallID: id, Content: strings.Join(words, " ")}
}

// leadingTools counts the tool messages msgs opens with.
func leadingTools(msgs []dataset.Message) int {
	n := 0
	for n < len(msgs) && msgs[n].Role == dataset.RoleTool {
		n++
	}
	return n
}

// fitResults fits a turn's recorded tool results (the first lead of next)
// to the calls the server made in its place (generated history): the k-th
// call gets the k-th recorded result, a call beyond them a synthetic one
// of n words, and results beyond the calls are left out, so that every
// call is answered and every result answers a call. It returns the calls
// the assistant message carries and the next turn's messages. A server
// that called nothing keeps the recorded calls, which the recorded
// results answer (next is then nil: the turn's own messages).
func fitResults(next []dataset.Message, lead int, calls []metrics.ToolCall, recorded []dataset.ToolCall, n int, rng *rand2.Rand) ([]dataset.ToolCall, []dataset.Message) {
	if len(calls) == 0 {
		return recorded, nil
	}
	asst := toolCallsOf(calls)
	out := make([]dataset.Message, 0, len(next)+len(calls))
	for k, c := range asst {
		if k < lead {
			m := next[k]
			m.ToolCallID = c.ID
			out = append(out, m)
			continue
		}
		out = append(out, syntheticResult(c.ID, n, rng))
	}
	return asst, append(out, next[lead:]...)
}

// toolWords make the synthetic tool results: common words, so that any
// tokenizer counts about one token each.
var toolWords = strings.Fields("the result is a list of items with names values dates and notes for each row in the table found by the query")
