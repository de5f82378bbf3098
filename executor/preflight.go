package executor

import (
	"context"
	"fmt"
	"time"

	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/metrics"
)

// ProbeTokens is the most output tokens the preflight probe asks for.
const ProbeTokens = 4

// PreflightError is a target that did not answer the probe request: the
// run sent no load.
type PreflightError struct {
	Tries  int
	Waited time.Duration    // from the first try to the last failure
	Last   *metrics.Request // the last probe's result
}

func (e *PreflightError) Error() string {
	r := e.Last
	msg := fmt.Sprintf("preflight: the target did not answer the probe request (%s", r.Error)
	if r.StatusCode != 0 {
		msg += fmt.Sprintf(", HTTP %d", r.StatusCode)
	}
	msg += "): " + r.ErrorMessage
	if e.Tries > 1 {
		msg += fmt.Sprintf(" (%d tries over %v)", e.Tries, e.Waited.Round(time.Millisecond))
	}
	return msg
}

// ProbeMark begins the probe's prompt.
const ProbeMark = "(llmload preflight probe) "

// probeRequest is the probe: the first request, its output cut to
// ProbeTokens and its prompt begun with ProbeMark. The request's shape is
// the run's (API, fields, extra_body, about its length), but no block of
// its prompt is one the run sends: a server's prefix cache (vLLM's, which
// caches whole blocks chained from the start, llama.cpp's, which reuses a
// slot's common prefix) does not hold the first request before the run
// sends it, so the run's first request is not served warm and
// prefix_reuse is not above what the run itself achieved.
func probeRequest(r dataset.Request) dataset.Request {
	r.OutputLen = min(max(r.OutputLen, 1), ProbeTokens)
	r.Turns = nil
	if len(r.Messages) > 0 {
		r.Messages = append([]dataset.Message(nil), r.Messages...)
		r.Messages[0].Content = ProbeMark + r.Messages[0].Content
		return r
	}
	r.Prompt = ProbeMark + r.Prompt
	return r
}

// preflight sends the probe until it succeeds, ReadyTimeout has passed
// (one try when it is 0) or ctx ends (an interruption: ctx's error).
func preflight(ctx context.Context, c *client, p Plan) error {
	preps, err := prepare(p.Target, []dataset.Request{probeRequest(p.Requests[0])})
	if err != nil {
		return err
	}
	start := time.Now()
	deadline := start.Add(p.ReadyTimeout)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	wait := 250 * time.Millisecond
	for try := 1; ; try++ {
		res := &metrics.Request{RequestID: fmt.Sprintf("llmload-preflight-%d", try)}
		c.do(ctx, time.Now(), &preps[0], res)
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("preflight: %w", err)
		}
		if res.OK() {
			return nil
		}
		if !time.Now().Add(wait).Before(deadline) {
			return &PreflightError{Tries: try, Waited: time.Since(start), Last: res}
		}
		if !sleepUntil(ctx, timer, time.Now().Add(wait)) {
			return fmt.Errorf("preflight: %w", ctx.Err())
		}
		wait = min(2*wait, 2*time.Second)
	}
}
