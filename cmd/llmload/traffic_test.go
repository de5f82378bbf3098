package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmload/llmload/dataset"
)

// TestReplayTraces replays each format's fixture on the simulator: every
// request's intended time is its recorded time (from the slice's first
// measured request) divided by the speed, and plan shows the profile.
func TestReplayTraces(t *testing.T) {
	const speed = 4
	for _, tt := range []struct{ file, format string }{
		{"mooncake.jsonl", "mooncake"},
		{"azure.csv", "azure"},
		{"burstgpt.csv", "burstgpt"},
	} {
		t.Run(tt.format, func(t *testing.T) {
			path, err := filepath.Abs(filepath.Join("..", "..", "dataset", "testdata", "trace", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			hcl := filepath.Join(dir, "replay.hcl")
			src := fmt.Sprintf(`
target "sim" {
  base_url   = "sim://tiny"
  model      = "tiny"
  timeout    = "20s"
  ignore_eos = true
}
dataset "t" {
  trace {
    path   = %q
    format = %q
  }
}
scenario "replay" {
  target  = target.sim
  dataset = dataset.t
  replay {
    speed = %d
  }
  sla {
    error_rate = 0
  }
  validity {
    max_lag_p99    = "10s"
    max_client_cpu = 1
  }
}
`, path, tt.format, speed)
			if err := os.WriteFile(hcl, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			ds, err := dataset.Load(dataset.Spec{Name: "t", Trace: &dataset.Trace{Path: path, Format: tt.format}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			code, out, errOut := call(t, context.Background(), "plan", hcl)
			if code != exitOK || !strings.Contains(out, "arrival rate per minute of the replay") || !strings.Contains(out, fmt.Sprintf("%d requests over", len(ds.Requests))) {
				t.Errorf("plan: exit %d\n%s%s", code, out, errOut)
			}
			code, _, errOut = call(t, context.Background(), "run", "-quiet", "-out", dir, hcl)
			if code != exitOK {
				t.Fatalf("run: exit %d\n%s", code, errOut)
			}
			lines := requestLines(t, filepath.Join(dir, "replay.requests.jsonl"))
			type sent struct {
				Index      int
				IntendedMs float64
			}
			var got, want []sent
			for _, l := range lines {
				got = append(got, sent{l.DatasetIndex, l.IntendedMs})
				if l.TTFTMs == nil {
					t.Errorf("request %d failed: %s", l.ID, l.ErrorMessage)
				}
			}
			slices.SortFunc(got, func(a, b sent) int { return a.Index - b.Index })
			for _, r := range ds.Requests {
				want = append(want, sent{r.Index, float64(r.At/speed) / 1e6})
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("intended times (ms) by dataset index (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMultiTurnRun runs ShareGPT conversations as sessions on the
// simulator: the requests file places each request in its session, the
// result has the per-turn table and the console prints it.
func TestMultiTurnRun(t *testing.T) {
	dir := t.TempDir()
	hcl := filepath.Join(dir, "sessions.hcl")
	data, err := filepath.Abs("../../examples/data/sharegpt_synthetic.json")
	if err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf(`
target "sim" {
  base_url = "sim://tiny"
  model    = "tiny"
  timeout  = "20s"
}
dataset "chats" {
  sharegpt {
    path             = %q
    multi_turn       = true
    num_prompts      = 8
    output_len       = 8
    max_total_tokens = 1500
  }
}
scenario "sessions" {
  target          = target.sim
  dataset         = dataset.chats
  turn_think_time = "5ms"
  closed_loop {
    users = 2
  }
  requests = 8
  sla {
    error_rate = 0
  }
  validity {
    max_lag_p99    = "10s"
    max_client_cpu = 1
  }
  assert "turns" {
    condition = metrics.ttft_first_turn.count == 8 && metrics.ttft_last_turn.count >= 1
  }
}
`, data)
	if err := os.WriteFile(hcl, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := call(t, context.Background(), "run", "-quiet", "-out", dir, hcl)
	if code != exitOK {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "Multi-turn sessions: TTFT by turn") {
		t.Errorf("the console has no per-turn table:\n%s", out)
	}
	lines := requestLines(t, filepath.Join(dir, "sessions.requests.jsonl"))
	turns := map[int64][]int{}
	for _, l := range lines {
		if l.Session == nil || l.Turn < 1 {
			t.Fatalf("request %d has no session and turn", l.ID)
		}
		turns[*l.Session] = append(turns[*l.Session], l.Turn)
	}
	multi := 0
	for s, ts := range turns {
		slices.Sort(ts)
		for i, n := range ts {
			if n != i+1 {
				t.Errorf("session %d has turns %v, want 1..%d", s, ts, len(ts))
				break
			}
		}
		if len(ts) > 1 {
			multi++
		}
	}
	if len(turns) != 8 || multi == 0 {
		t.Errorf("%d sessions (%d of several turns), want 8 with some of several", len(turns), multi)
	}
	res := resultFile(t, filepath.Join(dir, "sessions.json"))
	sum, _ := res["summary"].(map[string]any)
	if tt, _ := sum["turns"].([]any); len(tt) < 2 {
		t.Errorf("summary.turns has %d turns", len(tt))
	}
}
