package metrics

import (
	"testing"
	"time"
)

// TestSessionFigures: a recorder's session figures, and their merge
// across the parts of a sharded run.
func TestSessionFigures(t *testing.T) {
	record := func(sessions ...Session) *Summary {
		r := NewRecorder(Options{})
		for i := range sessions {
			r.AddSession(&sessions[i])
		}
		return r.Summary()
	}
	a := record(
		Session{Turns: 2, Requests: 7, ToolRounds: 2, SubAgents: 3, Complete: true, Start: time.Second, End: 5 * time.Second, Waiting: 3 * time.Second, Thinking: 500 * time.Millisecond},
		Session{Turns: 1, Requests: 1, Start: 2 * time.Second, End: 3 * time.Second, Waiting: time.Second},
	)
	if a.Sessions != 2 || a.SessionsComplete != 1 || a.SessionDuration.Count != 2 || a.SessionDuration.Sum != 5000 || a.SessionTurns.Sum != 3 || a.SessionSubAgents.Sum != 3 || a.SessionToolRounds.Max != 2 {
		t.Errorf("summary: %d sessions (%d whole), duration %+v, turns %v, sub-agents %v", a.Sessions, a.SessionsComplete, a.SessionDuration, a.SessionTurns.Sum, a.SessionSubAgents.Sum)
	}
	if v, ok := a.Value("session_wait_share", ""); !ok || v != 0.8 {
		t.Errorf("session_wait_share = %v, %v; want 4 s of 5 s", v, ok)
	}
	if v, ok := a.Value("session_thinking", "max"); !ok || v != 500 {
		t.Errorf("session_thinking.max = %v, %v; want 500 ms", v, ok)
	}
	b := record(Session{Turns: 4, Requests: 4, Complete: true, End: 10 * time.Second, Waiting: 9 * time.Second})
	m, err := MergeSummaries(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if m.Sessions != 3 || m.SessionsComplete != 2 || m.SessionDuration.Count != 3 || m.SessionDuration.Max != 10000 || m.SessionTurns.Sum != 7 {
		t.Errorf("merged: %d sessions (%d whole), duration %+v, turns %v", m.Sessions, m.SessionsComplete, m.SessionDuration, m.SessionTurns.Sum)
	}
	if v, ok := (&Summary{}).Value("session_wait_share", ""); ok {
		t.Errorf("session_wait_share without sessions = %v, want none", v)
	}
}
