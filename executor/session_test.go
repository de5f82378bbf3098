package executor

import (
	"context"
	"fmt"
	rand2 "math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/executor/executortest"
	"github.com/llmload/llmload/metrics"
	"math"
)

// sessionReqs returns n sessions of turns turns each: turn j of session s
// asks "s<s>q<j>" and recorded the reply "s<s>r<j>".
func sessionReqs(n, turns int) []dataset.Request {
	out := make([]dataset.Request, n)
	for s := range out {
		var ts []dataset.Turn
		for j := range turns {
			ts = append(ts, dataset.Turn{
				Messages:  []dataset.Message{{Role: dataset.RoleUser, Content: fmt.Sprintf("s%dq%d", s, j+1)}},
				Reply:     fmt.Sprintf("s%dr%d", s, j+1),
				PromptLen: 3 * (j + 1), OutputLen: 2,
			})
		}
		out[s] = dataset.Request{Index: s, Prompt: ts[0].Messages[0].Content, Messages: ts[0].Messages, PromptLen: 3, OutputLen: 2, Turns: ts}
	}
	return out
}

// conversation renders the messages a server received as "role:content"
// strings.
func conversation(body map[string]any) []string {
	var out []string
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		mm := m.(map[string]any)
		out = append(out, fmt.Sprintf("%v:%v", mm["role"], mm["content"]))
	}
	return out
}

// TestRunSessionHistory: each turn resends the whole conversation so far,
// with the server's replies (generated) or the dataset's (recorded); a
// closed-loop user runs one session after the other.
func TestRunSessionHistory(t *testing.T) {
	for _, history := range []string{HistoryGenerated, HistoryRecorded} {
		t.Run(history, func(t *testing.T) {
			srv := executortest.New(executortest.Config{Tokens: 2, Text: "ok "})
			defer srv.Close()
			out := mustRun(t, context.Background(), Plan{
				Target:      Target{BaseURL: srv.URL, API: APIChat, Model: "m"},
				Requests:    sessionReqs(2, 3),
				Closed:      &ClosedLoop{Stages: []Stage{{Users: 1}}},
				MaxRequests: 2, // sessions
				Sessions:    Sessions{History: history},
			})
			reply := func(s, j int) string {
				if history == HistoryRecorded {
					return fmt.Sprintf("assistant:s%dr%d", s, j)
				}
				return "assistant:ok ok "
			}
			var want [][]string
			for s := range 2 {
				var conv []string
				for j := 1; j <= 3; j++ {
					conv = append(conv, fmt.Sprintf("user:s%dq%d", s, j))
					want = append(want, append([]string(nil), conv...))
					conv = append(conv, reply(s, j))
				}
			}
			var got [][]string
			for _, r := range srv.Received() {
				got = append(got, conversation(r.Body))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("conversations received (-want +got):\n%s", diff)
			}
			type turn struct {
				Session       int64
				Turn          int
				Last          bool
				DatasetPrompt int
			}
			var turns []turn
			for _, r := range out.Results {
				turns = append(turns, turn{r.Session, r.Turn, r.LastTurn, r.DatasetPromptTokens})
			}
			wantTurns := []turn{{0, 1, false, 3}, {0, 2, false, 6}, {0, 3, true, 9}, {3, 1, false, 3}, {3, 2, false, 6}, {3, 3, true, 9}}
			if diff := cmp.Diff(wantTurns, turns); diff != "" {
				t.Errorf("turns (-want +got):\n%s", diff)
			}
			s := out.Overall
			if len(s.Turns) != 3 || s.Turns[2].Completed != 2 || s.TTFTFirstTurn.Count != 2 || s.TTFTLastTurn.Count != 2 {
				t.Errorf("per-turn summary: %d turns, first %d, last %d samples", len(s.Turns), s.TTFTFirstTurn.Count, s.TTFTLastTurn.Count)
			}
			if out.Planned != 6 {
				t.Errorf("planned %d requests, want the 6 turns of 2 sessions", out.Planned)
			}
		})
	}
}

// TestRunSessionOpenLoop: a session starts at each arrival and its later
// turns follow their predecessors after the turn think time.
func TestRunSessionOpenLoop(t *testing.T) {
	srv := executortest.New(executortest.Config{Tokens: 2, TTFT: 5 * time.Millisecond})
	defer srv.Close()
	const think = 20 * time.Millisecond
	out := mustRun(t, context.Background(), Plan{
		Target:   Target{BaseURL: srv.URL, API: APIChat, Model: "m"},
		Requests: sessionReqs(3, 3),
		Open:     &OpenLoop{Rate: math.Inf(1)},
		Sessions: Sessions{Think: ThinkTime{Min: think, Max: think}},
	})
	if len(out.Results) != 9 || out.Overall.Completed != 9 {
		t.Fatalf("%d results (%d completed), want 3 sessions of 3 turns", len(out.Results), out.Overall.Completed)
	}
	ends := map[int64]time.Duration{}
	for _, r := range out.Results {
		if r.Turn > 1 {
			if prev := ends[r.Session]; r.Intended != prev+think || r.Sent < r.Intended {
				t.Errorf("session %d turn %d: intended %v, sent %v; previous turn ended %v, think %v", r.Session, r.Turn, r.Intended, r.Sent, prev, think)
			}
		}
		ends[r.Session] = r.End
	}
}

// TestRunSessionFailedTurn: with generated history a failed turn ends its
// session; with recorded history the session goes on.
func TestRunSessionFailedTurn(t *testing.T) {
	for _, tt := range []struct {
		history string
		want    int
	}{{HistoryGenerated, 2}, {HistoryRecorded, 4}} {
		t.Run(tt.history, func(t *testing.T) {
			srv := executortest.New(executortest.Config{Tokens: 2, Vary: func(i int, c *executortest.Config) {
				if i == 1 {
					c.Status, c.Body = 500, "boom"
				}
			}})
			defer srv.Close()
			out := mustRun(t, context.Background(), Plan{
				Target:   Target{BaseURL: srv.URL, API: APIChat, Model: "m"},
				Requests: sessionReqs(1, 4),
				Open:     &OpenLoop{Rate: 1},
				Sessions: Sessions{History: tt.history},
			})
			if len(out.Results) != tt.want || out.Overall.Failed != 1 {
				t.Errorf("%d turns sent (%d failed), want %d (1)", len(out.Results), out.Overall.Failed, tt.want)
			}
		})
	}
}

// TestRunSessionsFinishWhenCountIsUsedUp: when the request count (in
// sessions) is used up, users waiting for another session leave, but a
// user in the middle of a long session finishes it: every turn is sent.
func TestRunSessionsFinishWhenCountIsUsedUp(t *testing.T) {
	srv := executortest.New(executortest.Config{Tokens: 2, Text: "ok ", TTFT: 2 * time.Millisecond})
	defer srv.Close()
	reqs := sessionReqs(8, 1)
	reqs[7] = sessionReqs(8, 4)[7] // the last session has 4 turns
	out := mustRun(t, context.Background(), Plan{
		Target:      Target{BaseURL: srv.URL, API: APIChat, Model: "m"},
		Requests:    reqs,
		Closed:      &ClosedLoop{Stages: []Stage{{Users: 4}}},
		MaxRequests: 8, // sessions: the 4-turn one is the last to start
		Sessions:    Sessions{History: HistoryRecorded},
	})
	if got := srv.Count(); got != 11 || out.Overall.Completed != 11 {
		t.Errorf("server saw %d requests, %d completed; want 7 one-turn sessions and one of 4 turns: 11", got, out.Overall.Completed)
	}
}

// TestRunSessionFanOut: a fan-out turn's sub-agents go at once after its
// answer, each briefed with it (fresh context) or after the whole history
// (shared); their replies open the next turn's prompt; a fan-out after the
// last turn gets a join turn of its own. The session's figures count it
// all.
func TestRunSessionFanOut(t *testing.T) {
	const prompt = "check"
	const join = "Results of the sub-agents:\n\n[1] ok ok \n\n[2] ok ok \n\n"
	for _, tt := range []struct {
		name      string
		fan       FanOut
		wantSubs  []string // each sub-agent's conversation, joined by " | "
		wantLast  []string // the last request's conversation
		wantTurns int
	}{
		{"fresh", FanOut{AfterTurn: 1, Width: 2, Prompt: prompt, OutputLen: 3},
			[]string{"user:check (sub-task 1 of 2)\n\nok ok ", "user:check (sub-task 2 of 2)\n\nok ok "},
			[]string{"user:s0q1", "assistant:ok ok ", "user:" + join + "s0q2"}, 2},
		{"shared", FanOut{AfterTurn: 1, Width: 2, Prompt: prompt, OutputLen: 3, Shared: true},
			[]string{"user:s0q1 | assistant:ok ok  | user:check (sub-task 1 of 2)", "user:s0q1 | assistant:ok ok  | user:check (sub-task 2 of 2)"},
			[]string{"user:s0q1", "assistant:ok ok ", "user:" + join + "s0q2"}, 2},
		{"after the last turn", FanOut{AfterTurn: 2, Width: 2, Prompt: prompt, OutputLen: 3},
			[]string{"user:check (sub-task 1 of 2)\n\nok ok ", "user:check (sub-task 2 of 2)\n\nok ok "},
			[]string{"user:s0q1", "assistant:ok ok ", "user:s0q2", "assistant:ok ok ", "user:" + join + "Combine the sub-agents' results into one answer."}, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := executortest.New(executortest.Config{Tokens: 2, Text: "ok "})
			defer srv.Close()
			fan := tt.fan
			out := mustRun(t, context.Background(), Plan{
				Target:      Target{BaseURL: srv.URL, API: APIChat, Model: "m"},
				Requests:    sessionReqs(1, 2),
				Closed:      &ClosedLoop{Stages: []Stage{{Users: 1}}},
				MaxRequests: 1,
				Sessions:    Sessions{FanOut: &fan},
			})
			var subs []string
			var last []string
			for _, r := range srv.Received() {
				conv := conversation(r.Body)
				if strings.Contains(conv[len(conv)-1], "sub-task") {
					subs = append(subs, strings.Join(conv, " | "))
					if mt, _ := r.Body["max_tokens"].(float64); mt != 3 {
						t.Errorf("sub-agent max_tokens %v, want 3", r.Body["max_tokens"])
					}
					continue
				}
				last = conv
			}
			slices.Sort(subs)
			if diff := cmp.Diff(tt.wantSubs, subs); diff != "" {
				t.Errorf("sub-agents' conversations (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantLast, last); diff != "" {
				t.Errorf("the last request's conversation (-want +got):\n%s", diff)
			}
			var subAgents []int
			for _, r := range out.Results {
				if r.SubAgent > 0 {
					subAgents = append(subAgents, r.SubAgent)
					if r.Turn != fan.AfterTurn || r.LastTurn {
						t.Errorf("sub-agent %d: turn %d (last %v), want the fan-out turn %d", r.SubAgent, r.Turn, r.LastTurn, fan.AfterTurn)
					}
				}
			}
			slices.Sort(subAgents)
			if !slices.Equal(subAgents, []int{1, 2}) {
				t.Errorf("sub-agents numbered %v", subAgents)
			}
			s := out.Overall
			if want := tt.wantTurns + 2; len(out.Results) != want || out.Planned != want {
				t.Errorf("%d results, %d planned; want %d", len(out.Results), out.Planned, want)
			}
			if s.Sessions != 1 || s.SessionsComplete != 1 || s.SessionSubAgents.Sum != 2 || s.SessionTurns.Sum != float64(tt.wantTurns) {
				t.Errorf("sessions %d (%d whole), sub-agents %v, turns %v", s.Sessions, s.SessionsComplete, s.SessionSubAgents.Sum, s.SessionTurns.Sum)
			}
			if len(s.Turns) != tt.wantTurns || s.Turns[fan.AfterTurn-1].Completed != 1 {
				t.Errorf("per-turn table %+v: sub-agents must not count as turns", s.Turns)
			}
		})
	}
}

// TestSessionFigures: a session's waiting, thinking and duration add up:
// its steps and think times are disjoint spans of it, the think times are
// the drawn ones, and a session cut by a failure is not whole.
func TestSessionFigures(t *testing.T) {
	srv := executortest.New(executortest.Config{Tokens: 2, Vary: func(i int, c *executortest.Config) {
		if i == 5 {
			c.Status, c.Body = 500, "boom"
		}
	}})
	defer srv.Close()
	const think = 3 * time.Millisecond
	out := mustRun(t, context.Background(), Plan{
		Target:   Target{BaseURL: srv.URL, API: APIChat, Model: "m"},
		Requests: sessionReqs(4, 3),
		Open:     &OpenLoop{Rate: math.Inf(1)},
		Sessions: Sessions{Think: ThinkTime{Min: think, Max: think}},
	})
	sessions := out.Sessions
	if len(sessions) != 4 {
		t.Fatalf("%d sessions reported, want 4", len(sessions))
	}
	whole := 0
	for _, s := range sessions {
		if s.Waiting+s.Thinking > s.Duration() || s.Waiting <= 0 {
			t.Errorf("session %d: waiting %v + thinking %v over its duration %v", s.ID, s.Waiting, s.Thinking, s.Duration())
		}
		if want := time.Duration(s.Turns-1) * think; s.Thinking != want {
			t.Errorf("session %d: thinking %v over %d turns, want %v", s.ID, s.Thinking, s.Turns, want)
		}
		if s.Complete {
			whole++
			if s.Turns != 3 || s.Requests != 3 {
				t.Errorf("whole session %d: %d turns, %d requests", s.ID, s.Turns, s.Requests)
			}
		}
	}
	if out.Overall.Failed == 0 || whole == 4 || out.Overall.SessionsComplete != whole || out.Overall.Sessions != 4 {
		t.Errorf("%d failed requests, %d whole sessions; summary %d of %d", out.Overall.Failed, whole, out.Overall.SessionsComplete, out.Overall.Sessions)
	}
}

// TestThinkTimeDraw: each distribution draws what it says, from a seeded
// generator.
func TestThinkTimeDraw(t *testing.T) {
	turn := dataset.Turn{Think: 1234 * time.Millisecond}
	for _, tt := range []struct {
		name           string
		think          ThinkTime
		wantMean       time.Duration
		wantLo, wantHi time.Duration
	}{
		{"fixed", ThinkTime{Min: time.Second, Max: time.Second}, time.Second, time.Second, time.Second},
		{"uniform", ThinkTime{Min: time.Second, Max: 3 * time.Second}, 2 * time.Second, time.Second, 3 * time.Second},
		{"exponential", ThinkTime{Dist: ThinkExponential, Mean: time.Second}, time.Second, 0, time.Hour},
		{"exponential shifted and capped", ThinkTime{Dist: ThinkExponential, Min: 500 * time.Millisecond, Mean: time.Second, Max: 2 * time.Second}, 0, 500 * time.Millisecond, 2 * time.Second},
		{"recorded", ThinkTime{Dist: ThinkRecorded}, turn.Think, turn.Think, turn.Think},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand2.New(rand2.NewPCG(1, 2))
			const n = 20000
			var sum time.Duration
			capped := 0
			for range n {
				d := tt.think.draw(rng, turn)
				if d < tt.wantLo || d > tt.wantHi {
					t.Fatalf("drew %v, outside [%v, %v]", d, tt.wantLo, tt.wantHi)
				}
				if d == tt.wantHi {
					capped++
				}
				sum += d
			}
			mean := sum / n
			if tt.wantMean > 0 && (mean < tt.wantMean*97/100 || mean > tt.wantMean*103/100) {
				t.Errorf("mean %v, want about %v", mean, tt.wantMean)
			}
			if tt.name == "exponential shifted and capped" {
				// P(exp > 1.5 mean) = e^-1.5, about 22%.
				if share := float64(capped) / n; share < 0.20 || share > 0.25 {
					t.Errorf("%.3f of draws capped, want about 0.22", share)
				}
			}
		})
	}
}

// TestFitResults: with generated history a trace's recorded tool results
// answer the calls the server made in its place, by position; a call
// beyond them gets a synthetic result, a result beyond them is left out,
// and a server that called nothing keeps the recorded calls.
func TestFitResults(t *testing.T) {
	recorded := []dataset.ToolCall{{ID: "rec1", Type: "function", Function: dataset.FunctionCall{Name: "grep", Arguments: "{}"}}}
	next := []dataset.Message{{Role: dataset.RoleTool, ToolCallID: "rec1", Content: "found"}, {Role: dataset.RoleUser, Content: "go on"}}
	server := func(ids ...string) []metrics.ToolCall {
		var out []metrics.ToolCall
		for _, id := range ids {
			out = append(out, metrics.ToolCall{ID: id, Name: "grep", Arguments: `{"q": 1}`})
		}
		return out
	}
	for _, tt := range []struct {
		name      string
		calls     []metrics.ToolCall
		wantCalls []string // the assistant message's call ids
		wantNext  []string // role:call id:content of the next turn's messages ("" content: synthetic)
	}{
		{"no call", nil, []string{"rec1"}, nil},
		{"one call", server("s1"), []string{"s1"}, []string{"tool:s1:found", "user::go on"}},
		{"two calls", server("s1", "s2"), []string{"s1", "s2"}, []string{"tool:s1:found", "tool:s2:", "user::go on"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			calls, got := fitResults(next, 1, tt.calls, recorded, 3, rand2.New(rand2.NewPCG(1, 1)))
			var ids []string
			for _, c := range calls {
				ids = append(ids, c.ID)
			}
			if !slices.Equal(ids, tt.wantCalls) {
				t.Errorf("calls %v, want %v", ids, tt.wantCalls)
			}
			var msgs []string
			for _, m := range got {
				content := m.Content
				if m.Role == dataset.RoleTool && content != "found" {
					if len(strings.Fields(content)) != 3 {
						t.Errorf("synthetic result %q, want 3 words", content)
					}
					content = ""
				}
				msgs = append(msgs, m.Role+":"+m.ToolCallID+":"+content)
			}
			if !slices.Equal(msgs, tt.wantNext) {
				t.Errorf("next turn %q, want %q", msgs, tt.wantNext)
			}
			if next[0].ToolCallID != "rec1" {
				t.Error("the dataset's message was changed")
			}
		})
	}
}

// TestRunSessionDatasetFanOut: a dataset's fan-out step (a trace's, or a
// JSONL line's) on a session's last turn gets a join turn, and with
// recorded history the join carries the recorded replies.
func TestRunSessionDatasetFanOut(t *testing.T) {
	srv := executortest.New(executortest.Config{Tokens: 2, Text: "ok "})
	defer srv.Close()
	reqs := sessionReqs(1, 2)
	reqs[0].Turns[1].FanOut = []dataset.SubRequest{
		{Messages: []dataset.Message{{Role: dataset.RoleUser, Content: "sub a"}}, OutputLen: 2, Reply: "rec a"},
		{Messages: []dataset.Message{{Role: dataset.RoleUser, Content: "sub b"}}, OutputLen: 2, Reply: "rec b", Shared: true},
	}
	out := mustRun(t, context.Background(), Plan{
		Target:      Target{BaseURL: srv.URL, API: APIChat, Model: "m"},
		Requests:    reqs,
		Closed:      &ClosedLoop{Stages: []Stage{{Users: 1}}},
		MaxRequests: 1,
		Sessions:    Sessions{History: HistoryRecorded},
	})
	if len(reqs[0].Turns) != 2 {
		t.Fatal("the run changed the dataset's turns")
	}
	var convs []string
	for _, r := range srv.Received() {
		convs = append(convs, strings.Join(conversation(r.Body), " | "))
	}
	slices.Sort(convs)
	want := []string{
		"user:s0q1",
		"user:s0q1 | assistant:s0r1 | user:s0q2",
		"user:s0q1 | assistant:s0r1 | user:s0q2 | assistant:s0r2 | user:Results of the sub-agents:\n\n[1] rec a\n\n[2] rec b\n\nCombine the sub-agents' results into one answer.",
		"user:s0q1 | assistant:s0r1 | user:s0q2 | assistant:s0r2 | user:sub b",
		"user:sub a",
	}
	if diff := cmp.Diff(want, convs); diff != "" {
		t.Errorf("conversations (-want +got):\n%s", diff)
	}
	if s := out.Overall; s.Sessions != 1 || s.SessionsComplete != 1 || out.Planned != 5 || len(s.Turns) != 3 || !out.Results[len(out.Results)-1].LastTurn {
		t.Errorf("sessions %d (%d whole), planned %d, %d turn indexes", s.Sessions, s.SessionsComplete, out.Planned, len(s.Turns))
	}
}

// TestRecordedThinkAtReplaySpeed: a trace's recorded pauses and times
// within a session follow the replay's speed, as its arrivals do; a time
// already past goes at once.
func TestRecordedThinkAtReplaySpeed(t *testing.T) {
	for _, tt := range []struct {
		name    string
		open    *OpenLoop
		turn    dataset.Turn
		prevEnd time.Duration
		want    time.Duration
	}{
		{"delay", nil, dataset.Turn{Think: 2 * time.Second}, time.Second, 2 * time.Second},
		{"delay at speed 2", &OpenLoop{Arrival: ArrivalReplay, Speed: 2}, dataset.Turn{Think: 2 * time.Second}, time.Second, time.Second},
		{"time", nil, dataset.Turn{At: 5 * time.Second, AtSet: true}, 3 * time.Second, 2500 * time.Millisecond},
		{"time at speed 2", &OpenLoop{Arrival: ArrivalReplay, Speed: 2}, dataset.Turn{At: 5 * time.Second, AtSet: true}, 2 * time.Second, 1000 * time.Millisecond},
		{"time past", nil, dataset.Turn{At: time.Second, AtSet: true}, 3 * time.Second, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ss := &sessionRun{r: &run{p: Plan{Open: tt.open, Sessions: Sessions{Think: ThinkTime{Dist: ThinkRecorded}}}},
				rec: metrics.Session{Start: 500 * time.Millisecond}}
			if got := ss.think(tt.turn, tt.prevEnd); got != tt.want {
				t.Errorf("think %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSessionThinkPastTheEnd: a session whose next turn would start after
// the run's end stops at once, without waiting out its think time or
// counting it.
func TestSessionThinkPastTheEnd(t *testing.T) {
	srv := executortest.New(executortest.Config{Tokens: 2})
	defer srv.Close()
	out := mustRun(t, context.Background(), Plan{
		Target:   Target{BaseURL: srv.URL, API: APIChat, Model: "m"},
		Requests: sessionReqs(2, 3),
		Closed:   &ClosedLoop{Stages: []Stage{{Users: 2}}},
		Duration: time.Second,
		Sessions: Sessions{Think: ThinkTime{Min: time.Hour, Max: time.Hour}},
	})
	if len(out.Sessions) == 0 {
		t.Fatal("no session reported")
	}
	for _, s := range out.Sessions {
		if s.Turns != 1 || s.Thinking != 0 || s.Complete {
			t.Errorf("session %d: %d turns, thinking %v, whole %v; want its first turn alone", s.ID, s.Turns, s.Thinking, s.Complete)
		}
	}
}
