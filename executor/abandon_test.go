package executor

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmload/llmload/executor/executortest"
	"github.com/llmload/llmload/metrics"
)

// waitFor polls cond for up to 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not so after 5 s", what)
		}
	}
}

// Abandoning a share of 1,000 requests after a few tokens: the share drawn
// is within 4 sigma of 20%, every abandoned request stopped at a count in
// its range, none failed,
// and none is good for goodput or counted as completed; their tokens count
// in the totals.
func TestAbandonShare(t *testing.T) {
	srv := executortest.New(executortest.Config{ITL: 2 * time.Millisecond, Tokens: 20})
	defer srv.Close()
	const n, share = 1000, 0.2
	ab := &Abandon{Share: share, AfterTokens: [2]int{2, 5}}
	out := mustRun(t, context.Background(), Plan{
		Target:      Target{BaseURL: srv.URL, Timeout: 30 * time.Second, IgnoreEOS: true},
		Requests:    requests(10, 20),
		Open:        &OpenLoop{Rate: math.Inf(1), MaxConcurrency: 64},
		MaxRequests: n,
		Seed:        11,
		Abandon:     ab,
	})
	s := out.Overall
	sigma := math.Sqrt(n * share * (1 - share))
	t.Logf("abandoned %d of %d at share %v (4 sigma: ±%.0f)", s.Abandoned, n, share, 4*sigma)
	if d := math.Abs(float64(s.Abandoned) - n*share); d > 4*sigma {
		t.Errorf("abandoned %d of %d, want %v ± %.0f (4 sigma)", s.Abandoned, n, n*share, 4*sigma)
	}
	drawn, tokens, fromResults := 0, 0, 0
	for k := range n {
		if _, _, ok := ab.draw(11, k); ok {
			drawn++
		}
	}
	for _, r := range out.Results {
		tokens += r.OutputTokens
		if !r.Abandoned {
			if !r.OK() {
				t.Errorf("request %d: %s %s", r.ID, r.Error, r.ErrorMessage)
			}
			continue
		}
		fromResults++
		if r.Error != metrics.ErrAbandoned || r.OutputEvents < 2 || r.OutputEvents > 5 || r.OutputTokens != r.OutputEvents || r.TTFT <= 0 {
			t.Errorf("abandoned request %d: error %q, %d events, %d tokens, TTFT %v; want abandoned after 2 to 5 events", r.ID, r.Error, r.OutputEvents, r.OutputTokens, r.TTFT)
		}
	}
	if s.Abandoned != drawn || fromResults != drawn {
		t.Errorf("abandoned %d in the summary, %d in the results; the seeded draws say %d", s.Abandoned, fromResults, drawn)
	}
	if s.Completed+s.Abandoned != n || s.Failed != 0 || s.ErrorRate() != 0 {
		t.Errorf("completed %d + abandoned %d of %d, failed %d, error rate %v", s.Completed, s.Abandoned, n, s.Failed, s.ErrorRate())
	}
	if s.GoodRequests != s.Completed || s.GoodOutputTokens != 20*s.Completed {
		t.Errorf("good requests %d (%d tokens), want the %d completed ones only", s.GoodRequests, s.GoodOutputTokens, s.Completed)
	}
	if s.TotalOutputTokens != tokens || s.AbandonedTokens != tokens-20*s.Completed {
		t.Errorf("output tokens %d (abandoned %d), want %d (abandoned %d)", s.TotalOutputTokens, s.AbandonedTokens, tokens, tokens-20*s.Completed)
	}
	if s.TTFT.Count != int64(n) || s.E2EL.Count != int64(s.Completed) || s.TPOT.Count != int64(s.Completed) {
		t.Errorf("TTFT %d, E2EL %d, TPOT %d samples: want TTFT for all %d, E2EL and TPOT for the %d completed", s.TTFT.Count, s.E2EL.Count, s.TPOT.Count, n, s.Completed)
	}
}

// A request abandoned after its tokens closes its connection: the server
// sees each client go, long before its stream would have ended.
func TestAbandonClosesTheConnection(t *testing.T) {
	srv := executortest.New(executortest.Config{ITL: 10 * time.Millisecond, Tokens: 100})
	defer srv.Close()
	out := mustRun(t, context.Background(), Plan{
		Target:      Target{BaseURL: srv.URL, Timeout: 30 * time.Second},
		Requests:    requests(4, 100),
		Open:        &OpenLoop{Rate: math.Inf(1)},
		MaxRequests: 16,
		Abandon:     &Abandon{Share: 1, AfterTokens: [2]int{2, 5}},
	})
	if s := out.Overall; s.Abandoned != 16 {
		t.Fatalf("abandoned %d of 16", s.Abandoned)
	}
	waitFor(t, "the server sees every client go", func() bool { return srv.Gone() == 16 })
}

// Abandoning after a time: the timer cancels the request wherever it is
// (here mid-stream), and the result says so.
func TestAbandonAfterTime(t *testing.T) {
	srv := executortest.New(executortest.Config{ITL: 20 * time.Millisecond, Tokens: 20})
	defer srv.Close()
	out := mustRun(t, context.Background(), Plan{
		Target:      Target{BaseURL: srv.URL, Timeout: 30 * time.Second},
		Requests:    requests(4, 20),
		Open:        &OpenLoop{Rate: math.Inf(1)},
		MaxRequests: 8,
		Abandon:     &Abandon{Share: 1, After: [2]time.Duration{50 * time.Millisecond, 90 * time.Millisecond}},
	})
	for _, r := range out.Results {
		if r.Error != metrics.ErrAbandoned || !r.Abandoned || r.OutputEvents == 0 || r.OutputEvents >= 20 ||
			!strings.Contains(r.ErrorMessage, "after it was sent") {
			t.Errorf("request %d: %q %q after %d events; want abandoned mid-stream", r.ID, r.Error, r.ErrorMessage, r.OutputEvents)
		}
		if r.End-r.Sent < 50*time.Millisecond {
			t.Errorf("request %d ended %v after it was sent, before its abandon time", r.ID, r.End-r.Sent)
		}
	}
	if s := out.Overall; s.Abandoned != 8 || s.Failed != 0 || s.Completed != 0 {
		t.Errorf("abandoned %d, failed %d, completed %d; want 8, 0, 0", s.Abandoned, s.Failed, s.Completed)
	}
	waitFor(t, "the server sees every client go", func() bool { return srv.Gone() == 8 })
}

// A request that completes before its drawn point is not abandoned.
func TestAbandonAfterTheEnd(t *testing.T) {
	srv := executortest.New(executortest.Config{Tokens: 3})
	defer srv.Close()
	out := mustRun(t, context.Background(), Plan{
		Target:      Target{BaseURL: srv.URL, Timeout: 30 * time.Second},
		Requests:    requests(2, 3),
		Open:        &OpenLoop{Rate: math.Inf(1)},
		MaxRequests: 6,
		Abandon:     &Abandon{Share: 1, AfterTokens: [2]int{3, 10}},
	})
	if s := out.Overall; s.Completed != 6 || s.Abandoned != 0 {
		t.Errorf("completed %d, abandoned %d; want 6, 0", s.Completed, s.Abandoned)
	}
}

func TestAbandonValidate(t *testing.T) {
	for _, tc := range []struct {
		a    Abandon
		want string
	}{
		{Abandon{Share: 0.1, AfterTokens: [2]int{1, 1}}, ""},
		{Abandon{Share: 1, After: [2]time.Duration{1, 2}}, ""},
		{Abandon{Share: 0, AfterTokens: [2]int{1, 2}}, "share"},
		{Abandon{Share: 1.5, AfterTokens: [2]int{1, 2}}, "share"},
		{Abandon{Share: 0.5}, "exactly one"},
		{Abandon{Share: 0.5, AfterTokens: [2]int{1, 2}, After: [2]time.Duration{1, 2}}, "exactly one"},
		{Abandon{Share: 0.5, AfterTokens: [2]int{5, 2}}, "after_tokens"},
		{Abandon{Share: 0.5, AfterTokens: [2]int{0, 2}}, "after_tokens"},
		{Abandon{Share: 0.5, After: [2]time.Duration{0, 2}}, "after"},
	} {
		err := tc.a.validate()
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one naming %q", tc.a, err, tc.want)
		}
	}
}

// A reasoning model's stream: the first output (TTFT) is reasoning, the
// first answer token comes after it; each phase keeps its own counts and
// gaps. On the fake clock of a testing/synctest bubble the client measures
// the server's schedule exactly: the reasoning's first token at 20 ms, the
// answer's three 10 ms gaps later, every gap 10 ms. (Over loopback a busy
// machine could deliver the last reasoning chunk and the first answer
// chunk in one read, with one stamp, or start the second request late
// enough that its TTFT passes the first's answer.)
func TestReasoningPhases(t *testing.T) {
	const ttft, itl = 20 * time.Millisecond, 10 * time.Millisecond
	inBubble(t, executortest.Config{TTFT: ttft, ITL: itl, Tokens: 6, Reasoning: 3}, func(t *testing.T, srv *executortest.Server) {
		out := mustRun(t, context.Background(), Plan{
			Target:      Target{BaseURL: srv.URL, API: APIChat, Timeout: 10 * time.Second},
			Requests:    requests(1, 6),
			Open:        &OpenLoop{Rate: math.Inf(1)},
			MaxRequests: 2,
		})
		if len(out.Results) != 2 {
			t.Fatalf("%d results, want 2", len(out.Results))
		}
		gaps := func(n int) []time.Duration { return slices.Repeat([]time.Duration{itl}, n) }
		for _, r := range out.Results {
			if !r.OK() || r.ReasoningEvents != 3 || r.AnswerEvents != 3 || r.ReasoningTokens != 3 {
				t.Fatalf("request %d: %s; %d reasoning and %d answer events, %d reasoning tokens",
					r.ID, r.Error, r.ReasoningEvents, r.AnswerEvents, r.ReasoningTokens)
			}
			if !slices.Equal(r.ITLReasoning, gaps(2)) || !slices.Equal(r.ITLAnswer, gaps(2)) || !slices.Equal(r.ITL, gaps(5)) {
				t.Errorf("request %d: gaps %v (reasoning), %v (answer), %v (all); want 2, 2 and 5 of %v",
					r.ID, r.ITLReasoning, r.ITLAnswer, r.ITL, itl)
			}
			if r.TTFT != ttft || r.TTFTReasoning != ttft || r.TTFTAnswer != ttft+3*itl {
				t.Errorf("request %d: TTFT %v, reasoning %v, answer %v; want %v, %v, %v (the answer's first token 3 gaps after the reasoning's)",
					r.ID, r.TTFT, r.TTFTReasoning, r.TTFTAnswer, ttft, ttft, ttft+3*itl)
			}
		}
		s := out.Overall
		if s.TTFTAnswer.Count != 2 || s.TTFTReasoning.Count != 2 || s.ITLAnswer.Count != 4 || s.ITLReasoning.Count != 4 || s.ReasoningTokens.Mean != 3 {
			t.Errorf("summary: ttft_answer %d, ttft_reasoning %d, itl_answer %d, itl_reasoning %d samples, reasoning tokens mean %v",
				s.TTFTAnswer.Count, s.TTFTReasoning.Count, s.ITLAnswer.Count, s.ITLReasoning.Count, s.ReasoningTokens.Mean)
		}
		if s.TTFTAnswer.Min <= s.TTFT.Max {
			t.Errorf("ttft_answer min %v ms not after ttft max %v ms", s.TTFTAnswer.Min, s.TTFT.Max)
		}
	})
}

// The Responses API end to end through the client: named events, the
// usage in response.completed, reasoning apart from the answer.
func TestResponsesStream(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/responses" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		ev := func(typ, data string) {
			fmt.Fprintf(w, "event: %s\ndata: {\"type\":%q,%s}\n\n", typ, typ, data)
			w.(http.Flusher).Flush()
			time.Sleep(2 * time.Millisecond)
		}
		ev("response.created", `"response":{"status":"in_progress"}`)
		ev("response.reasoning_text.delta", `"delta":"hm"`)
		ev("response.reasoning_text.delta", `"delta":" so"`)
		ev("response.output_item.added", `"item":{"type":"message"}`)
		for range 3 {
			ev("response.output_text.delta", `"delta":" ok"`)
		}
		ev("response.output_text.done", `"text":" ok ok ok"`)
		ev("response.completed", `"response":{"status":"completed","usage":{"input_tokens":9,"output_tokens":5,"output_tokens_details":{"reasoning_tokens":2}}}`)
	}))
	defer srv.Close()
	out := mustRun(t, context.Background(), Plan{
		Target:      Target{BaseURL: srv.URL, API: APIResponses, Timeout: 10 * time.Second},
		Requests:    requests(1, 5),
		Open:        &OpenLoop{Rate: math.Inf(1)},
		MaxRequests: 1,
		KeepText:    true,
	})
	r := out.Results[0]
	if !r.OK() || r.OutputEvents != 5 || r.OutputTokens != 5 || r.OutputTokensSource != metrics.SourceUsage || r.PromptTokens != 9 ||
		r.ReasoningTokens != 2 || r.ReasoningEvents != 2 || r.AnswerEvents != 3 || r.FinishReason != "stop" ||
		r.GeneratedText != "hm so ok ok ok" || r.TTFTAnswer < r.TTFT {
		// The answer's first token never precedes the reasoning's first;
		// on a busy machine both can arrive in one read (equal stamps).
		t.Errorf("result %+v", r)
	}
}

// Embeddings: one JSON answer, no first token; its latency is its E2EL.
func TestEmbeddingsRequest(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/embeddings" {
			http.NotFound(w, r)
			return
		}
		time.Sleep(5 * time.Millisecond)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.5,0.25]}],"model":"m","usage":{"prompt_tokens":4,"total_tokens":4}}`)
	}))
	defer srv.Close()
	out := mustRun(t, context.Background(), Plan{
		Target:      Target{BaseURL: srv.URL, API: APIEmbeddings, Timeout: 10 * time.Second},
		Requests:    requests(2, 5),
		Open:        &OpenLoop{Rate: math.Inf(1)},
		MaxRequests: 3,
	})
	s := out.Overall
	if s.Completed != 3 || s.Failed != 0 || s.TTFT.Count != 0 || s.ITL.Count != 0 || s.E2EL.Count != 3 || s.E2EL.Min < 5 ||
		s.TotalOutputTokens != 0 || s.ServerInputTokens != 12 || s.ApproxOutputCounts != 0 || s.RequestThroughput <= 0 {
		t.Errorf("summary: completed %d failed %d, TTFT %d ITL %d E2EL %d samples (min %v ms), output %d, server input %d, approx %d, %v req/s",
			s.Completed, s.Failed, s.TTFT.Count, s.ITL.Count, s.E2EL.Count, s.E2EL.Min, s.TotalOutputTokens, s.ServerInputTokens, s.ApproxOutputCounts, s.RequestThroughput)
	}
	for _, r := range out.Results {
		if r.OutputTokensSource != metrics.SourceNone || r.PromptTokensSource != metrics.SourceUsage {
			t.Errorf("request %d: output source %q, prompt source %q", r.ID, r.OutputTokensSource, r.PromptTokensSource)
		}
	}
}

// A closed-loop user whose reader left goes on at once: abandoning is not
// a failure to back off from.
func TestAbandonNoBackoff(t *testing.T) {
	srv := executortest.New(executortest.Config{ITL: time.Millisecond, Tokens: 20})
	defer srv.Close()
	out := mustRun(t, context.Background(), Plan{
		Target:   Target{BaseURL: srv.URL, Timeout: 30 * time.Second},
		Requests: requests(4, 20),
		Closed:   &ClosedLoop{Stages: []Stage{{Users: 2, Duration: 500 * time.Millisecond}}, Backoff: Backoff{Min: time.Second, Max: time.Second}},
		Abandon:  &Abandon{Share: 1, AfterTokens: [2]int{2, 3}},
	})
	if s := out.Overall; s.Abandoned < 10 || s.Failed != 0 {
		t.Errorf("abandoned %d, failed %d in 500 ms with 2 users and a 1 s backoff: want many abandoned, none failed (no backoff)", s.Abandoned, s.Failed)
	}
}
