package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmload/llmload/results"
)

// TestToolCallsEndToEnd: a dataset whose entries offer tools, replayed
// against the simulator: about half the answers call a tool (the entry
// with tool_choice "required" always, "none" never), every call is well
// formed, the first tool-call token is measured for each, the console says
// so, and an sla and an assert on the figures pass. The same through
// Anthropic's Messages API: the tools go in its form (the simulator
// refuses OpenAI's there), and its tool_use blocks are the calls.
func TestToolCallsEndToEnd(t *testing.T) {
	for _, api := range []string{"openai-chat", "anthropic-messages"} {
		t.Run(api, func(t *testing.T) { toolCallsEndToEnd(t, api) })
	}
}

func toolCallsEndToEnd(t *testing.T, api string) {
	out := filepath.Join(t.TempDir(), "tools.json")
	code, stdout, stderr := call(t, context.Background(), "run", "-out", out, "-var", "api="+api, "testdata/tools.hcl")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	res, err := results.ReadResult(out)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	if s.Completed != 24 || s.ToolCallRequests < 2 || s.ToolCallRequests > 22 || s.ToolCalls != s.ToolCallRequests {
		t.Errorf("completed %d, answers with calls %d, calls %d", s.Completed, s.ToolCallRequests, s.ToolCalls)
	}
	if s.TTFTToolCall.Count != int64(s.ToolCallRequests) || s.OutputDefects["bad_tool_call"] != 0 {
		t.Errorf("first tool-call tokens %d for %d answers with calls; %d malformed", s.TTFTToolCall.Count, s.ToolCallRequests, s.OutputDefects["bad_tool_call"])
	}
	if !strings.Contains(stdout, "Tool calls: ") || !strings.Contains(stdout, "first tool-call token P50") {
		t.Errorf("the console does not show the tool calls:\n%s", stdout)
	}
	for _, c := range res.Checks {
		if c.Verdict != results.Pass {
			t.Errorf("check %s: %s", c.Name, c.Verdict)
		}
	}
}

// TestToolRoundTrips: sessions whose answers call tools send each call's
// result back before the next user turn, with the server's own calls and
// replies in the history: the requests the server saw show the round
// trips (tool_round), at most max_tool_rounds a turn, each prompt longer
// than the request before it in its session by at least the result sent.
// The same through Anthropic's Messages API, whose history carries the
// calls as tool_use blocks and the results as tool_result blocks.
func TestToolRoundTrips(t *testing.T) {
	for _, api := range []string{"openai-chat", "anthropic-messages"} {
		t.Run(api, func(t *testing.T) { toolRoundTrips(t, api) })
	}
}

func toolRoundTrips(t *testing.T, api string) {
	out := filepath.Join(t.TempDir(), "rounds.json")
	code, stdout, stderr := call(t, context.Background(), "run", "-out", out, "-var", "api="+api, "testdata/tools-session.hcl")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	res, err := results.ReadResult(out)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(strings.TrimSuffix(out, ".json") + ".requests.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var lines []results.RequestLine
	for _, raw := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var l results.RequestLine
		if err := json.Unmarshal([]byte(raw), &l); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	type key struct {
		session int64
		turn    int
	}
	rounds := map[key]int{}
	bySession := map[int64][]results.RequestLine{}
	for _, l := range lines {
		if l.Session == nil {
			t.Fatalf("a request outside a session: %+v", l)
		}
		bySession[*l.Session] = append(bySession[*l.Session], l)
		if l.ToolRound > 0 {
			rounds[key{*l.Session, l.Turn}]++
		}
	}
	if len(bySession) != 8 {
		t.Errorf("%d sessions, want 8", len(bySession))
	}
	total := 0
	for k, n := range rounds {
		if n > 2 {
			t.Errorf("session %d turn %d: %d round trips, over max_tool_rounds 2", k.session, k.turn, n)
		}
		total += n
	}
	// Half the sessions require a call at every round: both their turns
	// run 2 round trips each.
	if total < 4*2*2 || res.Summary.ToolRounds != total {
		t.Errorf("%d round trips in the requests file, %d in the summary; want at least 16", total, res.Summary.ToolRounds)
	}
	for id, ls := range bySession {
		for i := 1; i < len(ls); i++ {
			prev, cur := ls[i-1], ls[i]
			if cur.ToolRound > 0 && cur.PromptTokens < prev.PromptTokens+prev.OutputTokens+20 {
				t.Errorf("session %d: a round trip's prompt of %d tokens after a request of %d + %d: the call and its 20-word result are not in it", id, cur.PromptTokens, prev.PromptTokens, prev.OutputTokens)
			}
		}
	}
	if !strings.Contains(stdout, "sent tool results back") {
		t.Errorf("the console does not show the round trips:\n%s", stdout)
	}
}

// TestImagesEndToEnd: a dataset's images reach the simulator as image
// parts, which it charges image_tokens of prompt each (its usage says so),
// and the result counts the images and the bytes sent.
func TestImagesEndToEnd(t *testing.T) {
	for _, api := range []string{"openai-chat", "anthropic-messages"} {
		t.Run(api, func(t *testing.T) { imagesEndToEnd(t, api) })
	}
}

func imagesEndToEnd(t *testing.T, api string) {
	out := filepath.Join(t.TempDir(), "images.json")
	code, stdout, stderr := call(t, context.Background(), "run", "-out", out, "-var", "api="+api, "testdata/images.hcl")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	res, err := results.ReadResult(out)
	if err != nil {
		t.Fatal(err)
	}
	png, err := os.ReadFile("testdata/red.png")
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Summary; s.Images != 3 || s.PromptBytes < int64(3*len(png)) {
		t.Errorf("images %d, prompt bytes %d; want 3 images of %d bytes", s.Images, s.PromptBytes, len(png))
	}
	data, err := os.ReadFile(strings.TrimSuffix(out, ".json") + ".requests.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var l results.RequestLine
		if err := json.Unmarshal([]byte(raw), &l); err != nil {
			t.Fatal(err)
		}
		// The server's prompt count: about 10 words of text, and 300
		// tokens for the image when there is one.
		if with := l.Images == 1; with != (l.PromptTokens > 300) || l.PromptSource != "usage" {
			t.Errorf("request %d: %d images, %d prompt tokens (%s)", l.ID, l.Images, l.PromptTokens, l.PromptSource)
		}
	}
	if !strings.Contains(stdout, "Images: 3 images in the completed prompts") {
		t.Errorf("the console does not count the images:\n%s", stdout)
	}
}
