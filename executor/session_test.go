package executor

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/executor/executortest"
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
		Sessions: Sessions{ThinkMin: think, ThinkMax: think},
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
