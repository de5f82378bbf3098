package scenario

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestTrafficDecode checks what the traffic blocks decode to: a replay
// cuts its own copy of the trace dataset, sessions default to generated
// history, prefix blocks and trace filters are kept.
func TestTrafficDecode(t *testing.T) {
	cfg, diags := Load([]string{"testdata/valid/traffic.hcl"}, LoadOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	replay := cfg.Scenario("replay")
	if diff := cmp.Diff(&Replay{Speed: 2.5, Start: 10 * time.Minute, Window: 5 * time.Minute, MaxConcurrency: 64}, replay.Replay); diff != "" {
		t.Errorf("replay (-want +got):\n%s", diff)
	}
	if tr := replay.Dataset.Trace; tr.Start != 10*time.Minute || tr.Window != 5*time.Minute || tr.BlockSize != DefaultBlockSize {
		t.Errorf("the replay's trace: start %v, window %v, block size %d", tr.Start, tr.Window, tr.BlockSize)
	}
	if shared := cfg.Dataset("mooncake").Trace; shared.Start != 0 || shared.Window != 0 {
		t.Errorf("the replay cut the shared dataset: %+v", shared)
	}
	want := &TraceSource{Path: "testdata/valid/burst.csv", Format: TraceBurstGPT, Seed: 3, BlockSize: DefaultBlockSize,
		Model: "GPT-4", LogType: "Conversation log", Prefix: &PrefixSource{SharedPrefixLen: 64, NumPrefixes: 4}}
	if diff := cmp.Diff(want, cfg.Dataset("burst").Trace); diff != "" {
		t.Errorf("burst trace (-want +got):\n%s", diff)
	}
	if p := cfg.Dataset("groups").Random.Prefix; p == nil || *p != (PrefixSource{256, 10}) {
		t.Errorf("random prefix %+v", p)
	}
	s := cfg.Scenario("sessions")
	if s.History != HistoryRecorded || s.TurnThinkMin != time.Second || s.TurnThinkMax != 3*time.Second || !s.Dataset.MultiTurn() || s.Dataset.ShareGPT.MaxTurns != 6 {
		t.Errorf("sessions: history %q, think [%v, %v], multi-turn %v", s.History, s.TurnThinkMin, s.TurnThinkMax, s.Dataset.MultiTurn())
	}
	if d := cfg.Scenario("sessions-default"); d.History != HistoryGenerated {
		t.Errorf("default history %q, want %q", d.History, HistoryGenerated)
	}
	// Anthropic's Messages API carries conversations too.
	if m := cfg.Scenario("sessions-messages"); m.Target.API != "anthropic-messages" || !m.Dataset.MultiTurn() || m.History != HistoryGenerated {
		t.Errorf("sessions through Messages: api %q, multi-turn %v, history %q", m.Target.API, m.Dataset.MultiTurn(), m.History)
	}
	a := cfg.Scenario("agent")
	if a.TurnThink != ThinkExponential || a.TurnThinkMean != 2*time.Second || a.TurnThinkMax != 20*time.Second || a.TurnThinkMin != 0 {
		t.Errorf("agent think: %q mean %v [%v, %v]", a.TurnThink, a.TurnThinkMean, a.TurnThinkMin, a.TurnThinkMax)
	}
	wantFan := &FanOut{AfterTurn: 2, SubAgents: 3, Prompt: "Work on this part of the task and report what you found.", OutputLen: DefaultFanOutOutputLen, Context: ContextShared}
	if diff := cmp.Diff(wantFan, a.FanOut); diff != "" {
		t.Errorf("fan_out (-want +got):\n%s", diff)
	}
	// A trace's sessions with the server's own replies, set explicitly.
	if r := cfg.Scenario("agent-recorded-think"); r.TurnThink != ThinkRecorded || r.FanOut != nil || r.History != HistoryGenerated {
		t.Errorf("recorded think: %q, fan-out %+v, history %q", r.TurnThink, r.FanOut, r.History)
	}
	// A trace's sessions replay as recorded: its replies and its delays.
	if tr := cfg.Scenario("agent-trace"); !tr.Dataset.MultiTurn() || tr.Dataset.Trace.MaxTurns != 8 || tr.History != HistoryRecorded || tr.TurnThink != ThinkRecorded {
		t.Errorf("agent trace: multi-turn %v, max turns %d, history %q, think %q", tr.Dataset.MultiTurn(), tr.Dataset.Trace.MaxTurns, tr.History, tr.TurnThink)
	}
}
