package metrics

import "time"

// Session is one multi-turn session's figures, reported once when it ends
// (its last request has been recorded): what an agent or a chat user
// lived through, where the requests' figures each tell one step.
type Session struct {
	ID    int64 // the ID of its first request
	Stage int   // the closed-loop stage it started in
	// Turns counts the user turns sent; Requests every request, tool
	// round trips and sub-agents included; ToolRounds the requests that
	// sent tool results back; SubAgents the sub-requests of its fan-out
	// steps.
	Turns, Requests, ToolRounds, SubAgents int
	// Complete says every turn of its dataset was answered: the session
	// was neither cut by a failure, an abandon nor the run's end.
	Complete bool
	// Start is its first request's intended time and End its last
	// request's end, from the run's start.
	Start, End time.Duration
	// Waiting is the time it waited on the server: each step from its
	// dispatch to its answer's end (a fan-out step until its last
	// sub-request's end). Thinking is the think time it paused between
	// turns. The rest of End-Start is the client's own.
	Waiting, Thinking time.Duration
}

// Duration is the session's time from its first intended send to its
// last answer's end.
func (s *Session) Duration() time.Duration { return s.End - s.Start }

// sessionDists are the per-session distributions a recorder keeps.
type sessionDists struct {
	sessions, complete           int
	duration, waiting, thinking  *dist
	turns, toolRounds, subAgents *dist
}

func newSessionDists() sessionDists {
	return sessionDists{duration: newDist(), waiting: newDist(), thinking: newDist(),
		turns: newDist(), toolRounds: newDist(), subAgents: newDist()}
}

// AddSession records one ended session (warmup sends no sessions).
func (r *Recorder) AddSession(s *Session) {
	d := &r.sessions
	d.sessions++
	if s.Complete {
		d.complete++
	}
	d.duration.add(int64(s.Duration()))
	d.waiting.add(int64(s.Waiting))
	d.thinking.add(int64(s.Thinking))
	d.turns.add(int64(s.Turns) * tokenScale)
	d.toolRounds.add(int64(s.ToolRounds) * tokenScale)
	d.subAgents.add(int64(s.SubAgents) * tokenScale)
}

// fillSessions puts the session figures into s.
func (d *sessionDists) fill(s *Summary) {
	s.Sessions, s.SessionsComplete = d.sessions, d.complete
	s.SessionDuration = d.duration.latency()
	s.SessionWaiting = d.waiting.latency()
	s.SessionThinking = d.thinking.latency()
	s.SessionTurns = d.turns.latency()
	s.SessionToolRounds = d.toolRounds.latency()
	s.SessionSubAgents = d.subAgents.latency()
}
