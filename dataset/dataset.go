package dataset

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/llmload/llmload/tokenizer"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// ToolCalls are an assistant message's tool calls, and ToolCallID
	// the call a tool message (Role "tool") answers, in OpenAI's chat
	// format.
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	// Images go with the message's text as image_url content parts (data
	// URLs, or http(s) URLs the server fetches): images.go.
	Images []string `json:"images,omitempty"`
}

// ToolCall is one call of an assistant message, as OpenAI's chat API
// writes it.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function a call runs and its arguments (a JSON
// object, as text).
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// RoleTool is the role of a message carrying a tool's result.
const RoleTool = "tool"

// Request is one sampled prompt, ready to be sent.
type Request struct {
	// Index is the entry's position in the source: array index for JSON
	// files, line number from 0 for JSONL, sequence number for random.
	Index int `json:"index"`
	// Prompt is the prompt text (for completion APIs, and the single user
	// message for chat APIs when Messages is empty).
	Prompt string `json:"prompt"`
	// Messages, when set, is sent as-is to chat APIs.
	Messages []Message `json:"messages,omitempty"`
	// PromptLen is the prompt's token count (special tokens included).
	PromptLen int `json:"prompt_len"`
	// OutputLen is the number of tokens to ask for (max_tokens). Whether
	// the server may stop earlier is the target's ignore_eos, not the
	// dataset's.
	OutputLen int `json:"output_len"`
	// At is the request's recorded arrival, from the start of the trace's
	// slice (trace sources only; 0 otherwise). A replay sends it at At
	// divided by the replay's speed.
	At time.Duration `json:"at,omitempty"`
	// PrefixTokens is how many of the prompt's tokens an ideal prefix
	// cache would serve from the requests before it (markPrefixes): what
	// the server's reported cached tokens are held against. 0 for
	// sessions.
	PrefixTokens int `json:"prefix_tokens,omitempty"`
	// Expected is the prompt's expected answer, when the dataset gives one
	// (JSONL "expected"): each answer is judged against it.
	Expected *Expected `json:"expected,omitempty"`
	// ReferenceLen is the token count of the answer the dataset recorded
	// for the prompt (a ShareGPT entry's reply, counted as vLLM counts it,
	// special tokens included), whether or not the scenario fixes the
	// output length; 0 when the source records no answer (random, JSONL,
	// trace). Each answer's length is held against it
	// (metrics.output_length_ratio).
	ReferenceLen int `json:"reference_len,omitempty"`
	// Images is how many images the request's messages carry, and
	// PromptBytes the prompt's bytes: its text and the images' bytes
	// (those sent inline).
	Images      int `json:"images,omitempty"`
	PromptBytes int `json:"prompt_bytes,omitempty"`
	// Tools, when set (a JSONL entry's "tools" and "tool_choice"), are
	// offered with the request (and every turn of its session) to an API
	// that takes tools.
	Tools *Tools `json:"tools,omitempty"`
	// Turns, when set (multi_turn sources), makes the request a session:
	// its turns are sent one after another, each with the history so far.
	// Prompt, Messages, PromptLen and OutputLen are then the first turn's.
	Turns []Turn `json:"turns,omitempty"`
}

// Turn is one exchange of a multi-turn session: the messages the user side
// adds (a system message may precede the first user message) and the
// reply recorded for them.
type Turn struct {
	Messages []Message `json:"messages"`
	// Reply is the recorded assistant reply ("" when the conversation
	// ends on this turn's question).
	Reply string `json:"reply,omitempty"`
	// ReplyCalls are the tool calls the recorded reply made (the next
	// turn's tool messages answer them).
	ReplyCalls []ToolCall `json:"reply_calls,omitempty"`
	// PromptLen counts the whole prompt of the turn with the recorded
	// history: every earlier message and reply, then Messages (contents
	// joined by newlines, special tokens included). With generated history
	// the server's usage gives the real count.
	PromptLen int `json:"prompt_len"`
	// OutputLen is the turn's max_tokens.
	OutputLen int `json:"output_len"`
	// ReferenceLen is the recorded reply's token count, for ShareGPT
	// sessions (see Request.ReferenceLen); 0 otherwise.
	ReferenceLen int `json:"reference_len,omitempty"`
	// Think is the pause recorded before the turn, after its predecessor
	// ended (a trace's; 0 for none): turn_think_time = "recorded" waits it.
	Think time.Duration `json:"think,omitempty"`
	// At, when AtSet, is the turn's recorded time (a trace row's
	// timestamp) from its session's first turn: with recorded think time
	// it goes then, or at once when its predecessor ended later.
	At    time.Duration `json:"at,omitempty"`
	AtSet bool          `json:"at_set,omitempty"`
	// OwnTools says the turn offers Tools (nil: none) instead of its
	// session's (a trace row's own "tools" and "tool_choice").
	OwnTools bool   `json:"own_tools,omitempty"`
	Tools    *Tools `json:"tools,omitempty"`
	// FanOut are the sub-requests (sub-agents) the turn's answer starts at
	// once, beside each other, when it and its tool round trips ended.
	// Their replies are joined into the next turn's first user message.
	FanOut []SubRequest `json:"fan_out,omitempty"`
}

// SubRequest is one sub-agent of a fan-out step (Turn.FanOut): a request
// of its own, sent beside its siblings once the step's answer arrived.
type SubRequest struct {
	// Messages are its prompt. With Shared the session's whole history
	// precedes them (a sub-agent forked from the conversation); without,
	// they are all it sees.
	Messages []Message `json:"messages"`
	Shared   bool      `json:"shared,omitempty"`
	// Brief appends the step's answer to its last message: the
	// orchestrator's plan handed down (the server's own answer with
	// generated history).
	Brief bool `json:"brief,omitempty"`
	// PromptLen counts Messages (without the history or the brief: the
	// server's usage gives the real count) and OutputLen is its
	// max_tokens; Reply is its recorded reply ("" for none).
	PromptLen int    `json:"prompt_len"`
	OutputLen int    `json:"output_len"`
	Reply     string `json:"reply,omitempty"`
}

// Spec says where one dataset's prompts come from: exactly one of ShareGPT,
// Random, JSONL and Trace is set.
type Spec struct {
	// Name is the dataset's name in the scenario.
	Name     string
	ShareGPT *ShareGPT
	Random   *Random
	JSONL    *JSONL
	Trace    *Trace
}

// Dataset is a loaded dataset: the sampled requests, in the order they are
// to be sent, and how they were chosen.
type Dataset struct {
	Name     string
	Requests []Request
	Stats    Stats
}

// Stats says how a dataset was sampled, for `llmload plan` and result files.
type Stats struct {
	// Source is "sharegpt", "random", "jsonl" or "trace".
	Source string `json:"source"`
	// PrefixTokens sums the requests' PrefixTokens: the prompt tokens an
	// ideal prefix cache would serve, in the dataset's order.
	PrefixTokens int `json:"prefix_tokens,omitempty"`
	// Path is the file read ("" for random).
	Path string `json:"path,omitempty"`
	// Read is the number of entries seen (array elements, non-blank lines).
	Read int `json:"read"`
	// Skipped counts the entries left out, by rule: "no_conversations",
	// "fewer_than_2_turns", "prompt_too_short", "output_too_short",
	// "prompt_too_long", "total_too_long", "blank_line".
	Skipped map[string]int `json:"skipped,omitempty"`
	// Examined is the number of entries tokenized.
	Examined int `json:"examined"`
	// Sampled is len(Requests).
	Sampled int `json:"sampled"`
	// Oversampled is how many of the sampled requests are repeats added to
	// reach the requested count.
	Oversampled int `json:"oversampled"`
	// Tokenizer is the tokenizer's Name().
	Tokenizer string `json:"tokenizer"`
	// Approximate is true when token counts come from an approximation.
	Approximate bool `json:"approximate"`
	// PromptLen and OutputLen describe the sampled requests' token counts.
	PromptLen LengthStats `json:"prompt_len"`
	OutputLen LengthStats `json:"output_len"`
	// Sessions and Turns count the multi-turn sessions and their turns
	// (multi_turn sources only).
	Sessions int `json:"sessions,omitempty"`
	Turns    int `json:"turns,omitempty"`
	// Span is the recorded time from the first to the last request of a
	// trace's slice.
	Span time.Duration `json:"span,omitempty"`
}

// LengthStats summarises token counts. Percentiles use the nearest-rank
// method (the smallest value with at least p% of the values at or below it).
type LengthStats struct {
	Min  int     `json:"min"`
	Max  int     `json:"max"`
	Mean float64 `json:"mean"`
	P50  int     `json:"p50"`
	P90  int     `json:"p90"`
	P99  int     `json:"p99"`
}

// Error is bad input data, located in its file.
type Error struct {
	// File is the path of the file.
	File string
	// Record is the array index (from 0) of the entry at fault, -1 if n/a.
	Record int
	// Offset is the byte offset (from 0) of the fault, -1 if n/a.
	Offset int64
	// Line is the line number (from 1) of the fault in a line-oriented
	// file, 0 if n/a.
	Line int
	// Msg says what is wrong.
	Msg string
}

// Error renders "FILE: line 3: MSG", "FILE: record 12: MSG",
// "FILE: byte 345: MSG" or "FILE: MSG".
func (e *Error) Error() string {
	switch {
	case e.Line > 0:
		return fmt.Sprintf("%s: line %d: %s", e.File, e.Line, e.Msg)
	case e.Record >= 0:
		return fmt.Sprintf("%s: record %d: %s", e.File, e.Record, e.Msg)
	case e.Offset >= 0:
		return fmt.Sprintf("%s: byte %d: %s", e.File, e.Offset, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

func fileError(file, format string, args ...any) *Error {
	return &Error{File: file, Record: -1, Offset: -1, Msg: fmt.Sprintf(format, args...)}
}

func recordError(file string, record int, format string, args ...any) *Error {
	return &Error{File: file, Record: record, Offset: -1, Msg: fmt.Sprintf(format, args...)}
}

func offsetError(file string, offset int64, format string, args ...any) *Error {
	return &Error{File: file, Record: -1, Offset: offset, Msg: fmt.Sprintf(format, args...)}
}

func lineError(file string, line int, format string, args ...any) *Error {
	return &Error{File: file, Record: -1, Offset: -1, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// Load samples the requests spec describes, counting tokens with tok
// (tokenizer.Approximate() when tok is nil).
func Load(spec Spec, tok tokenizer.Tokenizer) (*Dataset, error) {
	if tok == nil {
		tok = tokenizer.Approximate()
	}
	set := 0
	for _, p := range []bool{spec.ShareGPT != nil, spec.Random != nil, spec.JSONL != nil, spec.Trace != nil} {
		if p {
			set++
		}
	}
	if set != 1 {
		return nil, fmt.Errorf("dataset %q: exactly one source (sharegpt, random, jsonl, trace) must be set, got %d", spec.Name, set)
	}
	var (
		reqs  []Request
		stats Stats
		err   error
	)
	switch {
	case spec.ShareGPT != nil:
		reqs, stats, err = loadShareGPT(*spec.ShareGPT, tok)
	case spec.Random != nil:
		reqs, stats, err = loadRandom(*spec.Random, tok)
	case spec.Trace != nil:
		reqs, stats, err = loadTrace(*spec.Trace, tok)
	default:
		reqs, stats, err = loadJSONL(*spec.JSONL, tok)
	}
	if err != nil {
		return nil, err
	}
	stats.Tokenizer = tok.Name()
	stats.Approximate = !tok.Exact()
	stats.Sampled = len(reqs)
	markPrefixes(reqs, tok)
	for _, r := range reqs {
		stats.PrefixTokens += r.PrefixTokens
	}
	stats.PromptLen = lengthStats(reqs, func(r Request) int { return r.PromptLen })
	stats.OutputLen = lengthStats(reqs, func(r Request) int { return r.OutputLen })
	for _, r := range reqs {
		if len(r.Turns) > 0 {
			stats.Sessions++
			stats.Turns += len(r.Turns)
		}
	}
	return &Dataset{Name: spec.Name, Requests: reqs, Stats: stats}, nil
}

func lengthStats(reqs []Request, length func(Request) int) LengthStats {
	if len(reqs) == 0 {
		return LengthStats{}
	}
	v := make([]int, len(reqs))
	sum := 0
	for i, r := range reqs {
		v[i] = length(r)
		sum += v[i]
	}
	slices.Sort(v)
	rank := func(p int) int { // nearest rank: ceil(p/100 * n), from 1
		return v[(p*len(v)+99)/100-1]
	}
	return LengthStats{
		Min: v[0], Max: v[len(v)-1], Mean: float64(sum) / float64(len(v)),
		P50: rank(50), P90: rank(90), P99: rank(99),
	}
}

// encode counts with tok and reports a failure of a tokenizer that can fail
// (the server tokenizer, which has an Err method).
func encode(tok tokenizer.Tokenizer, text string, addSpecial bool) ([]int, error) {
	ids := tok.Encode(text, addSpecial)
	if f, ok := tok.(interface{ Err() error }); ok {
		if err := f.Err(); err != nil {
			return nil, fmt.Errorf("tokenizer %s: %w", tok.Name(), err)
		}
	}
	return ids, nil
}

// dumpRecord is one line of WriteJSONL.
type dumpRecord struct {
	Index     int       `json:"index"`
	Prompt    *string   `json:"prompt,omitempty"`
	Messages  []Message `json:"messages,omitempty"`
	PromptLen int       `json:"prompt_len"`
	OutputLen int       `json:"output_len"`
	AtMs      float64   `json:"at_ms,omitempty"`
	Reference int       `json:"reference_len,omitempty"`
	Turns     []Turn    `json:"turns,omitempty"`
}

// WriteJSONL writes reqs in order, one JSON object per line with index,
// prompt (or messages), prompt_len and output_len, and a trace's recorded
// arrival (at_ms), the recorded answer's length (reference_len) and a
// session's turns when set.
func WriteJSONL(w io.Writer, reqs []Request) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, r := range reqs {
		rec := dumpRecord{Index: r.Index, Messages: r.Messages, PromptLen: r.PromptLen, OutputLen: r.OutputLen,
			AtMs: float64(r.At) / float64(time.Millisecond), Reference: r.ReferenceLen, Turns: r.Turns}
		if len(r.Messages) == 0 {
			rec.Prompt = &r.Prompt
		}
		if err := enc.Encode(rec); err != nil {
			return err
		}
	}
	return bw.Flush()
}
