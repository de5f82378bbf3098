package sim

import (
	"encoding/json"
	"io"
	"math/rand"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/llmload/llmload/internal/openaiwire"
)

// maxBody bounds a request body.
const maxBody = 16 << 20

func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+openaiwire.PathModels, s.models)
	mux.HandleFunc("POST "+openaiwire.PathCompletions, func(w http.ResponseWriter, r *http.Request) { s.complete(w, r, apiCompletions) })
	mux.HandleFunc("POST "+openaiwire.PathChat, func(w http.ResponseWriter, r *http.Request) { s.complete(w, r, apiChat) })
	mux.HandleFunc("POST "+openaiwire.PathResponses, func(w http.ResponseWriter, r *http.Request) { s.complete(w, r, apiResponses) })
	mux.HandleFunc("POST "+openaiwire.PathEmbeddings, func(w http.ResponseWriter, r *http.Request) { s.complete(w, r, apiEmbeddings) })
	mux.HandleFunc("POST /tokenize", s.tokenize)
	mux.HandleFunc("POST /detokenize", s.detokenize)
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, r *http.Request) {
		// As vLLM answers it, so that a run can record what it ran against.
		writeJSON(w, http.StatusOK, map[string]any{"version": "llmload-sim " + s.p.Name})
	})
	mux.HandleFunc("GET /get_server_info", s.serverInfo)
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.Handle("GET /metrics", s.metrics.handler())
	return mux
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// errorTypes names an HTTP status the way OpenAI-compatible servers do.
var errorTypes = map[int]string{
	http.StatusBadRequest:          "BadRequestError",
	http.StatusBadGateway:          "BadGatewayError",
	http.StatusNotFound:            "NotFoundError",
	http.StatusTooManyRequests:     "RateLimitError",
	http.StatusInternalServerError: "InternalServerError",
	http.StatusServiceUnavailable:  "ServiceUnavailableError",
}

// writeError answers {"error": {"message", "type", "param", "code"}}.
func writeError(w http.ResponseWriter, e *apiError) {
	var param any
	if e.param != "" {
		param = e.param
	}
	writeJSON(w, e.status, map[string]any{"error": map[string]any{
		"message": e.msg, "type": errorTypes[e.status], "param": param, "code": e.status,
	}})
}

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writeError(w, badRequest("", "reading the body: %v", err))
		return nil, false
	}
	return body, true
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{map[string]any{
		"id": s.p.Model, "object": "model", "created": time.Now().Unix(), "owned_by": "vllm",
		"root": s.p.Model, "parent": nil, "max_model_len": s.p.MaxModelLen,
	}}})
}

// serverInfo answers as SGLang's /get_server_info does: every setting of
// the profile flat at the top level (in the syntax -<param> takes), the
// model's path and the version, so that a run records the simulator's
// configuration as it records a real engine's.
func (s *Server) serverInfo(w http.ResponseWriter, r *http.Request) {
	info := map[string]any{}
	for _, k := range s.p.Keys() {
		if v, err := s.p.Get(k); err == nil {
			info[k] = v
		}
	}
	info["profile"] = s.p.Name
	info["model_path"], info["served_model_name"], info["context_length"] = s.p.Model, s.p.Model, s.p.MaxModelLen
	info["version"] = "llmload-sim " + s.p.Name
	writeJSON(w, http.StatusOK, info)
}

func (s *Server) tokenize(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	var a struct {
		Model    string        `json:"model"`
		Prompt   *string       `json:"prompt"`
		Messages []chatMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &a); err != nil {
		writeError(w, badRequest("", "invalid JSON body: %v", err))
		return
	}
	if err := checkModel(a.Model, &s.p); err != nil {
		writeError(w, err)
		return
	}
	var ids []int
	switch {
	case a.Prompt != nil:
		ids = tokenIDs(*a.Prompt)
	case len(a.Messages) > 0:
		ids = []int{}
		for i, m := range a.Messages {
			text, err := messageText(m.Content)
			if err != nil {
				writeError(w, badRequest("messages", "messages[%d].content: %v", i, err))
				return
			}
			ids = append(ids, startHeaderID, wordID(m.Role), endHeaderID)
			ids = append(ids, tokenIDs(text)...)
			ids = append(ids, eotID)
		}
	default:
		writeError(w, badRequest("prompt", "prompt (a string) or messages is required"))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"count": len(ids), "max_model_len": s.p.MaxModelLen, "tokens": ids, "token_strs": nil})
}

func (s *Server) detokenize(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	var a struct {
		Model  string `json:"model"`
		Tokens []int  `json:"tokens"`
	}
	if err := json.Unmarshal(body, &a); err != nil {
		writeError(w, badRequest("tokens", "invalid JSON body: %v", err))
		return
	}
	if err := checkModel(a.Model, &s.p); err != nil {
		writeError(w, err)
		return
	}
	text, err := detokenize(a.Tokens)
	if err != nil {
		writeError(w, badRequest("tokens", "%v", err))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"prompt": text})
}

// faultStatus maps the HTTP fault kinds to their status codes.
var faultStatus = map[string]int{
	FaultKindHTTP500: http.StatusInternalServerError,
	FaultKindHTTP429: http.StatusTooManyRequests,
	FaultKindHTTP503: http.StatusServiceUnavailable,
}

// countFault records an injected fault.
func (s *Server) countFault(kind string) {
	for i, f := range s.p.faults() {
		if f.kind == kind {
			s.faults[i].Add(1)
		}
	}
}

// call is one completion request in flight.
type call struct {
	s    *Server
	w    http.ResponseWriter
	r    *http.Request
	req  request
	q    *seq
	kind api
	chat bool // kind == apiChat
	// reasoning is how many of the first output tokens are reasoning
	// (Profile.ReasoningTokens, for the chat and Responses APIs).
	reasoning int
	// seqNo numbers a Responses stream's events.
	seqNo   int
	fault   string // a mid-stream fault still to inject, or ""
	faultAt int    // inject it once this many tokens are sent
	words   wordStream
	id      string
	created int64
}

func (s *Server) complete(w http.ResponseWriter, r *http.Request, kind api) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	req, aerr := parseRequest(body, kind, &s.p)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	reasoning := 0
	if kind == apiChat || kind == apiResponses {
		reasoning = s.p.ReasoningTokens
	}
	s.requests.Add(1)
	s.rngMu.Lock()
	fault := s.p.drawFault(s.rng)
	// A greedy (or seeded) answer is the model's for its prompt: its
	// length and words come from the prompt and the model's seed alone.
	rng := s.rng
	if req.answer != 0 {
		rng = rand.New(&splitMix{state: req.answer ^ uint64(s.p.ModelSeed)*0x9e3779b97f4a7c15})
	}
	var n int
	var reason string
	switch {
	case kind == apiEmbeddings:
		// No output: the sequence is one prefill.
		n, reason = 0, openaiwire.FinishStop
	case reasoning > 0 && !req.ignoreEOS:
		// The natural answer comes after the reasoning, within max_tokens.
		n, reason = outputLength(s.p, max(req.maxTokens-reasoning, 1), false, rng)
		if n += reasoning; n >= req.maxTokens {
			n, reason = req.maxTokens, openaiwire.FinishLength
		}
	default:
		n, reason = outputLength(s.p, req.maxTokens, req.ignoreEOS, rng)
	}
	words := wordStream{state: rng.Uint64()}
	own := words.state
	switch fault {
	case FaultKindSwapOutputs:
		// Another request's words (the one before; the first request has
		// no other to take).
		if s.lastWords != 0 && s.lastWords != own {
			words.state = s.lastWords
			s.countFault(fault)
		}
		fault = ""
	case FaultKindRepeatToken, FaultKindGarbage:
		// Not a fault of the stream: its words are the fault.
		words.fault, fault = fault, ""
		s.countFault(words.fault)
	case FaultKindNeverStop:
		// The model never emits its end of sequence: every answer runs
		// to max_tokens, at the healthy speed per token.
		if kind != apiEmbeddings {
			n, reason = req.maxTokens, openaiwire.FinishLength
		}
		s.countFault(fault)
		fault = ""
	}
	faultAt := 1 + s.rng.Intn(max(n-1, 1))
	s.lastWords = own
	s.rngMu.Unlock()
	if status, ok := faultStatus[fault]; ok {
		s.countFault(fault)
		if status != http.StatusInternalServerError {
			w.Header().Set("Retry-After", "1")
		}
		writeError(w, &apiError{status: status, msg: "simulated fault: " + fault})
		return
	}
	prefix := map[api]string{apiCompletions: "cmpl-", apiChat: "chatcmpl-", apiResponses: "resp_", apiEmbeddings: "embd-"}[kind]
	c := &call{
		s: s, w: w, r: r, req: req, kind: kind, chat: kind == apiChat, reasoning: reasoning,
		fault: fault, faultAt: faultAt, words: words,
		id:      prefix + strconv.FormatUint(s.ids.Add(1), 16),
		created: time.Now().Unix(),
		q:       &seq{prompt: req.promptTokens, blocks: req.blocks, target: n, reason: reason, notify: make(chan struct{}, 1)},
	}
	s.metrics.prompt.Add(float64(req.promptTokens))
	s.submit(c.q)
	defer c.release()
	switch {
	case kind == apiEmbeddings:
		c.embed()
	case req.stream && kind == apiResponses:
		c.streamResponse()
	case req.stream:
		c.stream()
	default:
		c.respond()
	}
}

// release frees the sequence when the handler leaves (a sequence that
// finished is already gone): the engine drops it at its next step, as
// vLLM aborts a request whose client disconnected. With the
// LeakOnDisconnect fault, a sequence whose client went away is leaked
// instead: it stays in the running batch for good, holding its place and
// its KV cache.
func (c *call) release() {
	if c.s.p.LeakOnDisconnect && c.r.Context().Err() != nil && !c.q.cancelled.Load() {
		c.q.leaked.Store(true)
	} else {
		c.q.cancelled.Store(true)
	}
	c.s.kick()
}

// wait blocks until more tokens are out; it returns how many are out in
// total, or false when the client went away or the server is closing.
func (c *call) wait() (int, bool) {
	select {
	case <-c.q.notify:
		return int(c.q.produced.Load()), true
	case <-c.r.Context().Done():
		return 0, false
	case <-c.s.stop:
		return 0, false
	}
}

// pause sleeps for d unless the client goes away or the server closes.
func (c *call) pause(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.r.Context().Done():
		return false
	case <-c.s.stop:
		return false
	}
}

// abort closes the connection without a proper end of response.
func (c *call) abort() {
	c.q.cancelled.Store(true)
	panic(http.ErrAbortHandler)
}

// stream sends the SSE events: for chat a role-only first delta, then one
// event per TokensPerEvent tokens (the last carries finish_reason), the
// usage chunk when asked for, and [DONE]. Each event is built in one reused
// buffer from a pre-rendered prefix and flushed at once.
func (c *call) stream() {
	h := c.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	c.w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(c.w)
	_ = rc.Flush()

	head := c.chunkHead()
	buf := make([]byte, 0, len(head)+256)
	k := c.s.p.TokensPerEvent
	sent := 0
	for sent < c.q.target {
		out, ok := c.wait()
		if !ok {
			return
		}
		for sent < out {
			if sent == 0 && c.chat {
				buf = append(append(buf[:0], head...), `"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`+"\n\n"...)
				if _, err := c.w.Write(buf); err != nil {
					return
				}
			}
			n := min(k, out-sent)
			buf = c.appendChunk(append(buf[:0], head...), sent, n, sent+n == c.q.target)
			sent += n
			if _, err := c.w.Write(buf); err != nil {
				return
			}
			if c.fault != "" && sent >= c.faultAt && !c.inject(rc) {
				return
			}
		}
		if rc.Flush() != nil {
			return
		}
	}
	buf = buf[:0]
	if c.req.includeUsage {
		buf = append(buf, "data: "...)
		buf = c.appendIDs(buf, c.object())
		buf = append(buf, `"choices":[],"usage":`...)
		buf = c.appendUsage(buf)
		if c.s.p.PerRequestMetrics {
			buf = c.appendMetrics(buf)
		}
		buf = append(buf, "}\n\n"...)
	}
	buf = append(buf, openaiwire.DoneEvent...)
	_, _ = c.w.Write(buf)
	_ = rc.Flush()
}

// inject performs the pending mid-stream fault; false means the stream is over.
func (c *call) inject(rc *http.ResponseController) bool {
	kind := c.fault
	c.fault = ""
	c.s.countFault(kind)
	switch kind {
	case FaultKindDrop:
		_ = rc.Flush()
		c.abort()
	case FaultKindStall:
		if rc.Flush() != nil {
			return false
		}
		return c.pause(c.s.p.StallDuration)
	case FaultKindMalformed:
		_, err := io.WriteString(c.w, `data: {"id":"`+c.id+`","object":"`+c.object()+`","choices":[{"index":0,`+"\n\n")
		return err == nil
	}
	return true
}

func (c *call) object() string {
	if c.chat {
		return openaiwire.ObjectChatChunk
	}
	return openaiwire.ObjectCompletion
}

// appendIDs appends {"id":...,"object":...,"created":...,"model":..., (open object).
func (c *call) appendIDs(buf []byte, object string) []byte {
	buf = append(buf, `{"id":"`...)
	buf = append(buf, c.id...)
	buf = append(buf, `","object":"`...)
	buf = append(buf, object...)
	buf = append(buf, `","created":`...)
	buf = strconv.AppendInt(buf, c.created, 10)
	buf = append(buf, `,"model":`...)
	buf = strconv.AppendQuote(buf, c.s.p.Model)
	return append(buf, ',')
}

// chunkHead is every streamed chunk's prefix, up to the choice's fields.
func (c *call) chunkHead() []byte {
	head := c.appendIDs([]byte("data: "), c.object())
	return append(head, `"choices":[{"index":0,`...)
}

// appendChunk appends the choice fields of an event carrying n tokens,
// the first of which is output token from (0-based): a chat event's tokens
// before c.reasoning are reasoning (delta.reasoning_content), the others
// answer (delta.content; an event across the boundary carries both, as
// vLLM's reasoning parsers send it).
func (c *call) appendChunk(buf []byte, from, n int, last bool) []byte {
	if c.chat {
		r := min(max(c.reasoning-from, 0), n)
		buf = append(buf, `"delta":{`...)
		if r > 0 {
			buf = append(buf, `"reasoning_content":"`...)
			for range r {
				buf = append(buf, c.words.next()...)
			}
			buf = append(buf, '"')
			if n > r {
				buf = append(buf, ',')
			}
		}
		if n > r {
			buf = append(buf, `"content":"`...)
			for range n - r {
				buf = append(buf, c.words.next()...)
			}
			buf = append(buf, '"')
		}
	} else {
		buf = append(buf, `"text":"`...)
		for range n {
			buf = append(buf, c.words.next()...)
		}
		buf = append(buf, '"')
	}
	if c.chat {
		buf = append(buf, `},"logprobs":null,"finish_reason":`...)
	} else {
		buf = append(buf, `,"logprobs":null,"finish_reason":`...)
	}
	if last {
		buf = append(buf, '"')
		buf = append(buf, c.q.reason...)
		buf = append(buf, '"')
	} else {
		buf = append(buf, "null"...)
	}
	if !c.chat {
		buf = append(buf, `,"stop_reason":null`...)
	}
	return append(buf, "}]}\n\n"...)
}

// appendMetrics appends vLLM's per-request metrics object (the field
// and its value), as vLLM's docs define it: the TTFT from the request's
// scheduling (its first admission to the batch), the queue time before
// it, the generation time after the first token, the mean gap between
// tokens and the tokens per second from scheduling to the last token.
// The sequence is done: the engine no longer writes its times.
func (c *call) appendMetrics(buf []byte) []byte {
	q := c.q
	msOf := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	gen := q.last - q.firstAt
	meanITL := 0.0
	if q.target > 1 {
		meanITL = msOf(gen) / float64(q.target-1)
	}
	tps := 0.0
	if total := q.last - q.scheduled; total > 0 {
		tps = float64(q.target) / total.Seconds()
	}
	// As vLLM: TTFT from the request's scheduling, after its queue time.
	buf = append(buf, `,"metrics":{"time_to_first_token_ms":`...)
	buf = strconv.AppendFloat(buf, msOf(q.firstAt-q.scheduled), 'f', 3, 64)
	buf = append(buf, `,"queue_time_ms":`...)
	buf = strconv.AppendFloat(buf, msOf(q.scheduled-q.arrival), 'f', 3, 64)
	buf = append(buf, `,"generation_time_ms":`...)
	buf = strconv.AppendFloat(buf, msOf(gen), 'f', 3, 64)
	buf = append(buf, `,"mean_itl_ms":`...)
	buf = strconv.AppendFloat(buf, meanITL, 'f', 3, 64)
	buf = append(buf, `,"tokens_per_second":`...)
	buf = strconv.AppendFloat(buf, tps, 'f', 3, 64)
	if k := c.s.p.TokensPerEvent - 1; k > 0 {
		// tokens_per_event > 1 is speculative decoding with k draft
		// tokens a step: each step gained its accepted drafts and a bonus
		// token (spec_acceptance).
		buf = append(buf, `,"speculative_decoding":{"num_spec_steps":`...)
		buf = strconv.AppendInt(buf, int64(q.specSteps), 10)
		buf = append(buf, `,"num_draft_tokens":`...)
		buf = strconv.AppendInt(buf, int64(q.drafted), 10)
		buf = append(buf, `,"num_accepted_draft_tokens":`...)
		buf = strconv.AppendInt(buf, int64(q.accepted), 10)
		buf = append(buf, `,"num_spec_tokens":`...)
		buf = strconv.AppendInt(buf, int64(k), 10)
		buf = append(buf, '}')
	}
	return append(buf, '}')
}

func (c *call) appendUsage(buf []byte) []byte {
	buf = append(buf, `{"prompt_tokens":`...)
	buf = strconv.AppendInt(buf, int64(c.req.promptTokens), 10)
	buf = append(buf, `,"total_tokens":`...)
	buf = strconv.AppendInt(buf, int64(c.req.promptTokens+c.q.target), 10)
	buf = append(buf, `,"completion_tokens":`...)
	buf = strconv.AppendInt(buf, int64(c.q.target), 10)
	if c.s.p.PrefixCaching {
		// vLLM sends the details with --enable-prompt-tokens-details.
		buf = append(buf, `,"prompt_tokens_details":{"cached_tokens":`...)
		buf = strconv.AppendInt(buf, int64(c.q.cached), 10)
		buf = append(buf, '}')
	}
	return append(buf, '}')
}

// usage is a whole answer's usage object.
func (c *call) usage() map[string]any {
	u := map[string]any{
		"prompt_tokens": c.req.promptTokens, "completion_tokens": c.q.target,
		"total_tokens": c.req.promptTokens + c.q.target,
	}
	if c.s.p.PrefixCaching {
		u["prompt_tokens_details"] = map[string]int{"cached_tokens": c.q.cached}
	}
	return u
}

// respond waits for the whole output and answers one JSON body.
func (c *call) respond() {
	for sent := 0; sent < c.q.target; {
		out, ok := c.wait()
		if !ok {
			return
		}
		sent = out
	}
	var text, reasoning strings.Builder
	for i := range c.q.target {
		if i < c.reasoning {
			reasoning.WriteString(c.words.next())
			continue
		}
		text.WriteString(c.words.next())
	}
	switch c.fault {
	case FaultKindDrop:
		c.s.countFault(c.fault)
		c.abort()
	case FaultKindStall:
		c.s.countFault(c.fault)
		if !c.pause(c.s.p.StallDuration) {
			return
		}
	case FaultKindMalformed:
		c.s.countFault(c.fault)
		c.w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(c.w, `{"id":"`+c.id+`","object":`)
		return
	}
	if c.kind == apiResponses {
		c.respondResponse(reasoning.String(), text.String())
		return
	}
	choice := map[string]any{"index": 0, "logprobs": nil, "finish_reason": c.q.reason}
	object := openaiwire.ObjectCompletion
	if c.chat {
		object = openaiwire.ObjectChatCompletion
		msg := map[string]any{"role": "assistant", "content": text.String()}
		if c.reasoning > 0 {
			msg["reasoning_content"] = reasoning.String()
		}
		choice["message"] = msg
	} else {
		choice["text"] = text.String()
		choice["stop_reason"] = nil
	}
	writeJSON(c.w, http.StatusOK, map[string]any{
		"id": c.id, "object": object, "created": c.created, "model": c.s.p.Model,
		"choices": []any{choice},
		"usage":   c.usage(),
	})
}
