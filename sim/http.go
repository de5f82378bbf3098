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
	for k := range rows {
		// Every API of the table at its endpoint (one without a front end
		// answers 404, as before it had one).
		if api(k).frontend() != nil {
			mux.HandleFunc("POST "+rows[k].Path, func(w http.ResponseWriter, r *http.Request) { s.complete(w, r, api(k)) })
		}
	}
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
	chat bool // the chat flavour of the choices format (api_chat.go)
	// reasoning is how many of the first output tokens are reasoning
	// (Profile.ReasoningTokens, for the APIs that stream it apart).
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
	if hc, ok := kind.frontend().(headerChecker); ok {
		if aerr := hc.checkHeader(r.Header); aerr != nil {
			kind.writeError(w, aerr)
			return
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		kind.writeError(w, badRequest("", "reading the body: %v", err))
		return
	}
	req, aerr := parseRequest(body, kind, &s.p)
	if aerr != nil {
		kind.writeError(w, aerr)
		return
	}
	fe, generates := kind.frontend(), kind.row().Streaming
	reasoning := 0
	if fe.reasons() {
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
	case !generates:
		// No output (embeddings): the sequence is one prefill.
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
		if generates {
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
		kind.writeError(w, &apiError{status: status, msg: "simulated fault: " + fault})
		return
	}
	c := &call{
		s: s, w: w, r: r, req: req, kind: kind, reasoning: reasoning,
		fault: fault, faultAt: faultAt, words: words,
		id:      fe.idPrefix() + strconv.FormatUint(s.ids.Add(1), 16),
		created: time.Now().Unix(),
		q:       &seq{prompt: req.promptTokens, blocks: req.blocks, target: n, reason: reason, notify: make(chan struct{}, 1)},
	}
	s.metrics.prompt.Add(float64(req.promptTokens))
	s.submit(c.q)
	defer c.release()
	fe.answer(c)
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

// whole waits for the whole output and returns its reasoning and answer
// text, having injected a pending fault that a whole answer can show (a
// dropped connection, a stall, a cut body); false means the answer is
// over (the client went away, or the fault ended it).
func (c *call) whole() (reasoning, text string, ok bool) {
	for sent := 0; sent < c.q.target; {
		out, ok := c.wait()
		if !ok {
			return "", "", false
		}
		sent = out
	}
	var answer, thought strings.Builder
	for i := range c.q.target {
		if i < c.reasoning {
			thought.WriteString(c.words.next())
			continue
		}
		answer.WriteString(c.words.next())
	}
	switch c.fault {
	case FaultKindDrop:
		c.s.countFault(c.fault)
		c.abort()
	case FaultKindStall:
		c.s.countFault(c.fault)
		if !c.pause(c.s.p.StallDuration) {
			return "", "", false
		}
	case FaultKindMalformed:
		c.s.countFault(c.fault)
		c.w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(c.w, `{"id":"`+c.id+`","object":`)
		return "", "", false
	}
	return thought.String(), answer.String(), true
}
