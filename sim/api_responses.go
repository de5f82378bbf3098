package sim

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/llmload/llmload/internal/apis"
	"github.com/llmload/llmload/internal/openaiwire"
)

// The Responses API (POST /v1/responses), served from the same engine as
// the completions APIs.

// streamResponse sends a Responses stream as vLLM and OpenAI do: named
// events, each payload repeating its name in "type" with a sequence
// number: response.created and response.in_progress; the reasoning item
// (response.reasoning_text.delta per event) when the profile reasons; the
// message item (response.output_text.delta per event, every delta
// carrying tokens_per_event tokens); then response.completed with the
// usage, or response.incomplete when max_output_tokens cut it.
func (c *call) streamResponse() {
	h := c.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	c.w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(c.w)
	buf := make([]byte, 0, 512)
	buf = c.appendEvent(buf, openaiwire.EventCreated, c.appendResponse(nil, "in_progress"))
	buf = c.appendEvent(buf, openaiwire.EventInProgress, c.appendResponse(nil, "in_progress"))
	if _, err := c.w.Write(buf); err != nil || rc.Flush() != nil {
		return
	}
	msgID, rsID := "msg_"+c.id[len("resp_"):], "rs_"+c.id[len("resp_"):]
	item := func(buf []byte, typ, id, kind string, index int) []byte {
		return c.appendEvent(buf, typ, []byte(`"output_index":`+strconv.Itoa(index)+`,"item":{"id":"`+id+`","type":"`+kind+`","status":"in_progress"}`))
	}
	var text, reasoning strings.Builder
	k := c.s.p.TokensPerEvent
	sent := 0
	message := 0 // the message's output_index: 1 after a reasoning item
	for sent < c.q.target {
		out, ok := c.wait()
		if !ok {
			return
		}
		buf = buf[:0]
		for sent < out {
			n := min(k, out-sent)
			r := min(max(c.reasoning-sent, 0), n)
			if r > 0 {
				if sent == 0 {
					buf = item(buf, "response.output_item.added", rsID, "reasoning", 0)
					message = 1
				}
				buf = c.appendDelta(buf, openaiwire.EventReasoning, rsID, 0, r, &reasoning)
			}
			if n > r {
				if sent+r == c.reasoning && c.reasoning > 0 {
					buf = c.appendEvent(buf, "response.reasoning_text.done", []byte(`"item_id":"`+rsID+`","output_index":0,"content_index":0,"text":`+strconv.Quote(reasoning.String())))
					buf = item(buf, "response.output_item.done", rsID, "reasoning", 0)
				}
				if sent+r == 0 || sent+r == c.reasoning {
					buf = item(buf, "response.output_item.added", msgID, "message", message)
					buf = c.appendEvent(buf, "response.content_part.added", []byte(`"item_id":"`+msgID+`","output_index":`+strconv.Itoa(message)+`,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}`))
				}
				buf = c.appendDelta(buf, openaiwire.EventTextDelta, msgID, message, n-r, &text)
			}
			sent += n
			if c.fault != "" && sent >= c.faultAt {
				if _, err := c.w.Write(buf); err != nil {
					return
				}
				buf = buf[:0]
				if !c.inject(rc) {
					return
				}
			}
		}
		if _, err := c.w.Write(buf); err != nil || rc.Flush() != nil {
			return
		}
	}
	buf = buf[:0]
	if text.Len() > 0 {
		buf = c.appendEvent(buf, openaiwire.EventTextDone, []byte(`"item_id":"`+msgID+`","output_index":`+strconv.Itoa(message)+`,"content_index":0,"text":`+strconv.Quote(text.String())))
		buf = item(buf, "response.output_item.done", msgID, "message", message)
	}
	status, event := "completed", openaiwire.EventCompleted
	if c.q.reason == openaiwire.FinishLength {
		status, event = "incomplete", openaiwire.EventIncomplete
	}
	buf = c.appendEvent(buf, event, c.appendResponse(nil, status))
	_, _ = c.w.Write(buf)
	_ = rc.Flush()
}

// appendEvent appends "event: <typ>" and its data, {"type":<typ>,
// "sequence_number":<n>, fields}.
func (c *call) appendEvent(buf []byte, typ string, fields []byte) []byte {
	buf = append(buf, "event: "...)
	buf = append(buf, typ...)
	buf = append(buf, "\ndata: {\"type\":\""...)
	buf = append(buf, typ...)
	buf = append(buf, `","sequence_number":`...)
	buf = strconv.AppendInt(buf, int64(c.seqNo), 10)
	c.seqNo++
	if len(fields) > 0 {
		buf = append(buf, ',')
		buf = append(buf, fields...)
	}
	return append(buf, "}\n\n"...)
}

// appendDelta appends one delta event of n tokens of item id, keeping its
// text in all.
func (c *call) appendDelta(buf []byte, typ, id string, index, n int, all *strings.Builder) []byte {
	var d strings.Builder
	for range n {
		d.WriteString(c.words.next())
	}
	all.WriteString(d.String())
	fields := `"item_id":"` + id + `","output_index":` + strconv.Itoa(index) + `,"content_index":0,"delta":` + strconv.Quote(d.String())
	if typ == openaiwire.EventTextDelta {
		fields += `,"logprobs":[]`
	}
	return c.appendEvent(buf, typ, []byte(fields))
}

// appendResponse appends "response": the response object with status
// (and, once it is over, the usage).
func (c *call) appendResponse(buf []byte, status string) []byte {
	buf = append(buf, `"response":{"id":"`...)
	buf = append(buf, c.id...)
	buf = append(buf, `","object":"`+openaiwire.ObjectResponse+`","created_at":`...)
	buf = strconv.AppendInt(buf, c.created, 10)
	buf = append(buf, `,"model":`...)
	buf = strconv.AppendQuote(buf, c.s.p.Model)
	buf = append(buf, `,"status":"`...)
	buf = append(buf, status...)
	buf = append(buf, '"')
	if status == "in_progress" {
		return append(buf, `,"output":[],"usage":null}`...)
	}
	if status == "incomplete" {
		buf = append(buf, `,"incomplete_details":{"reason":"`+openaiwire.IncompleteMaxTokens+`"}`...)
	}
	buf = append(buf, `,"usage":{"input_tokens":`...)
	buf = strconv.AppendInt(buf, int64(c.req.promptTokens), 10)
	buf = append(buf, `,"input_tokens_details":{"cached_tokens":`...)
	buf = strconv.AppendInt(buf, int64(c.q.cached), 10)
	buf = append(buf, `},"output_tokens":`...)
	buf = strconv.AppendInt(buf, int64(c.q.target), 10)
	buf = append(buf, `,"output_tokens_details":{"reasoning_tokens":`...)
	buf = strconv.AppendInt(buf, int64(min(c.reasoning, c.q.target)), 10)
	buf = append(buf, `},"total_tokens":`...)
	buf = strconv.AppendInt(buf, int64(c.req.promptTokens+c.q.target), 10)
	return append(buf, "}}"...)
}

// respondResponse answers a Responses request that did not ask for a
// stream: the whole response object, its output text as one message.
func (c *call) respondResponse(reasoning, text string) {
	status := "completed"
	var incomplete any
	if c.q.reason == openaiwire.FinishLength {
		status, incomplete = "incomplete", map[string]any{"reason": openaiwire.IncompleteMaxTokens}
	}
	var output []any
	if reasoning != "" {
		output = append(output, map[string]any{"type": "reasoning", "id": "rs_" + c.id[len("resp_"):], "status": "completed",
			"summary": []any{}, "content": []any{map[string]any{"type": "reasoning_text", "text": reasoning}}})
	}
	output = append(output, map[string]any{"type": "message", "id": "msg_" + c.id[len("resp_"):], "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}})
	writeJSON(c.w, http.StatusOK, map[string]any{
		"id": c.id, "object": openaiwire.ObjectResponse, "created_at": c.created, "model": c.s.p.Model,
		"status": status, "incomplete_details": incomplete, "output": output,
		"usage": map[string]any{
			"input_tokens": c.req.promptTokens, "output_tokens": c.q.target,
			"input_tokens_details":  map[string]int{"cached_tokens": c.q.cached},
			"output_tokens_details": map[string]int{"reasoning_tokens": min(c.reasoning, c.q.target)},
			"total_tokens":          c.req.promptTokens + c.q.target,
		},
	})
}

func init() { register(apis.Responses, responsesAPI{}) }

// responsesAPI is POST /v1/responses: input in, named events out
// (streamResponse), or one response object (respondResponse).
type responsesAPI struct{}

func (responsesAPI) prompt(a *apiRequest) ([]int, *apiError) { return inputIDs(a.Input) }

// limits: max_output_tokens; a stream always ends with the usage (in
// response.completed).
func (responsesAPI) limits(a *apiRequest) (*int, bool) { return a.MaxOutputTokens, true }
func (responsesAPI) idPrefix() string                  { return "resp_" }
func (responsesAPI) reasons() bool                     { return true }

func (responsesAPI) answer(c *call) {
	if c.req.stream {
		c.streamResponse()
		return
	}
	if reasoning, text, ok := c.whole(); ok {
		c.respondResponse(reasoning, text)
	}
}
