package dataset

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/llmload/llmload/tokenizer"
	"github.com/tidwall/gjson"
)

// JSONL reads prompts from a file with one JSON object per line: a string
// field (PromptField) for completion-style prompts, or a "messages" array of
// {"role", "content"} objects for chat.
type JSONL struct {
	// Path is the JSONL file.
	Path string
	// PromptField names the string field holding the prompt.
	PromptField string
	// OutputLenField, when set, names an optional per-line integer field
	// giving that line's output length.
	OutputLenField string
	// OutputLen is the output length of lines without OutputLenField.
	OutputLen int
	// NumPrompts is how many lines to take (0 = all of them).
	NumPrompts int
	// Seed seeds the shuffle (CPython's random.shuffle, as for ShareGPT).
	Seed int64
	// Shuffle shuffles the lines before taking NumPrompts; otherwise they are
	// taken in file order.
	Shuffle bool
	// MultiTurn makes each line a session (see Request.Turns): its
	// "messages" in turns, each user message with the assistant reply that
	// follows it (a prompt-field line is a session of one turn). Every
	// turn asks for the line's output length.
	MultiTurn bool
	// MaxTurns keeps at most that many turns of a session (0: all).
	MaxTurns int
	// AllowEmptyPrompts accepts lines whose prompt is empty or blank;
	// otherwise such a line is an error (a server answers an empty prompt
	// with an error or with nothing, and the run would measure that).
	AllowEmptyPrompts bool
}

// DefaultJSONL returns the defaults: field "prompt", no per-line output
// length, 256 output tokens, 1000 prompts, seed 0, shuffled.
func DefaultJSONL() JSONL {
	return JSONL{PromptField: "prompt", OutputLen: 256, NumPrompts: 1000, Shuffle: true}
}

const skipBlankLine = "blank_line"

// jsonlEntry is one parsed line.
type jsonlEntry struct {
	line      int // from 1
	prompt    string
	messages  []Message
	outputLen int
	expected  *Expected
	tools     *Tools
	// images are the entry's images, sent with its last user message;
	// imageBytes what they weigh.
	images     []string
	imageBytes int
	// fanOut is the line's "fan_out" steps, read once its turns are.
	fanOut gjson.Result
}

func loadJSONL(cfg JSONL, tok tokenizer.Tokenizer) ([]Request, Stats, error) {
	f, err := os.Open(cfg.Path)
	if err != nil {
		return nil, Stats{}, err
	}
	defer f.Close()
	return readJSONL(cfg, f, tok)
}

func readJSONL(cfg JSONL, r io.Reader, tok tokenizer.Tokenizer) ([]Request, Stats, error) {
	stats := Stats{Source: "jsonl", Path: cfg.Path, Skipped: map[string]int{}}
	switch {
	case cfg.PromptField == "":
		return nil, stats, fmt.Errorf("jsonl %s: prompt_field must not be empty", cfg.Path)
	case cfg.OutputLen < 1:
		return nil, stats, fmt.Errorf("jsonl %s: output_len must be at least 1, got %d", cfg.Path, cfg.OutputLen)
	case cfg.NumPrompts < 0:
		return nil, stats, fmt.Errorf("jsonl %s: num_prompts must not be negative, got %d", cfg.Path, cfg.NumPrompts)
	}
	var entries []jsonlEntry
	br := bufio.NewReaderSize(r, 1<<16)
	for line := 1; ; line++ {
		text, readErr := br.ReadBytes('\n')
		if readErr != nil && readErr != io.EOF {
			return nil, stats, fmt.Errorf("%s: %w", cfg.Path, readErr)
		}
		if len(bytes.TrimSpace(text)) > 0 {
			stats.Read++
			e, err := parseJSONLine(cfg, text, line)
			if err != nil {
				return nil, stats, err
			}
			entries = append(entries, e)
		} else if readErr == nil || len(text) > 0 {
			stats.Skipped[skipBlankLine]++
		}
		if readErr == io.EOF {
			break
		}
	}
	if len(entries) == 0 {
		return nil, stats, fileError(cfg.Path, "no entries: want one JSON object per line")
	}
	if cfg.Shuffle {
		newPyRandom(cfg.Seed).shuffle(len(entries), func(i, j int) { entries[i], entries[j] = entries[j], entries[i] })
	}
	if cfg.NumPrompts > 0 && cfg.NumPrompts < len(entries) {
		entries = entries[:cfg.NumPrompts]
	}
	reqs := make([]Request, 0, len(entries))
	for _, e := range entries {
		if cfg.MultiTurn {
			msgs := e.messages
			if msgs == nil {
				msgs = []Message{{Role: RoleUser, Content: e.prompt}}
			}
			turns, err := countTurns(sessionTurns(msgs), sessionLimits{outputLen: e.outputLen, maxTurns: cfg.MaxTurns}, tok)
			if err != nil {
				return nil, stats, err
			}
			if len(turns) == 0 {
				return nil, stats, lineError(cfg.Path, e.line, "\"messages\" has no user message: a session needs one to send")
			}
			if e.fanOut.Exists() {
				if err := parseFanOut(e.fanOut, turns, tok); err != nil {
					return nil, stats, lineError(cfg.Path, e.line, "%s", err)
				}
			}
			sr := sessionRequest(e.line-1, turns)
			sr.Tools = e.tools
			reqs = append(reqs, sr)
			stats.Examined++
			continue
		}
		req := Request{Index: e.line - 1, Prompt: e.prompt, Messages: e.messages, OutputLen: e.outputLen, Expected: e.expected, Tools: e.tools,
			Images: len(e.images), PromptBytes: len(e.prompt) + e.imageBytes}
		ids, err := encode(tok, e.prompt, true)
		if err != nil {
			return nil, stats, err
		}
		req.PromptLen = len(ids)
		stats.Examined++
		reqs = append(reqs, req)
	}
	return reqs, stats, nil
}

// parseJSONLine checks one non-blank line and takes its prompt (or
// messages) and output length.
func parseJSONLine(cfg JSONL, text []byte, line int) (jsonlEntry, error) {
	text = bytes.TrimRight(text, "\r\n")
	if !utf8.Valid(text) {
		bad := 0
		for bad < len(text) {
			r, n := utf8.DecodeRune(text[bad:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			bad += n
		}
		return jsonlEntry{}, lineError(cfg.Path, line, "not valid UTF-8 at column %d: JSON text is UTF-8", bad+1)
	}
	src := string(text)
	if !gjson.Valid(src) {
		if pos, msg, ok := findSyntaxError(text); ok {
			return jsonlEntry{}, lineError(cfg.Path, line, "not valid JSON at column %d: %s", pos+1, msg)
		}
		return jsonlEntry{}, lineError(cfg.Path, line, "not valid JSON")
	}
	obj := gjson.Parse(src)
	if !obj.IsObject() {
		return jsonlEntry{}, lineError(cfg.Path, line, "line is %s, not a JSON object", kind(obj))
	}
	e := jsonlEntry{line: line, outputLen: cfg.OutputLen}
	if p := field(obj, cfg.PromptField); p.Exists() {
		if p.Type != gjson.String {
			return e, lineError(cfg.Path, line, "%q is %s, not a string", cfg.PromptField, kind(p))
		}
		e.prompt = p.String()
	} else if m := field(obj, "messages"); m.Exists() {
		msgs, err := parseMessages(m)
		if err != nil {
			return e, lineError(cfg.Path, line, "%s", err)
		}
		e.messages = msgs
		// The prompt counted (and sent to completion APIs) is the contents
		// joined by newlines: the model's chat template is not applied.
		contents := make([]string, len(msgs))
		for i, msg := range msgs {
			contents[i] = msg.Content
		}
		e.prompt = strings.Join(contents, "\n")
	} else {
		return e, lineError(cfg.Path, line, "no string %q field and no \"messages\" array", cfg.PromptField)
	}
	if strings.TrimSpace(e.prompt) == "" && !cfg.AllowEmptyPrompts {
		return e, lineError(cfg.Path, line, "the prompt is empty; remove the line, or set allow_empty_prompts = true to send it")
	}
	if x := field(obj, "expected"); x.Exists() {
		exp, err := parseExpected(x)
		if err != nil {
			return e, lineError(cfg.Path, line, "%s", err)
		}
		e.expected = exp
	}
	if e.fanOut = field(obj, "fan_out"); e.fanOut.Exists() && !cfg.MultiTurn {
		return e, lineError(cfg.Path, line, "\"fan_out\" is a step of a session: set multi_turn = true on the source")
	}
	tools, err := parseTools(field(obj, "tools"), field(obj, "tool_choice"))
	if err != nil {
		return e, lineError(cfg.Path, line, "%s", err)
	}
	e.tools = tools
	if e.images, e.imageBytes, err = parseImages(field(obj, "images"), filepath.Dir(cfg.Path)); err != nil {
		return e, lineError(cfg.Path, line, "%s", err)
	}
	if e.images != nil {
		if e.messages == nil {
			e.messages = []Message{{Role: RoleUser, Content: e.prompt}}
		}
		for i := len(e.messages) - 1; i >= 0; i-- {
			if e.messages[i].Role == RoleUser {
				e.messages[i].Images = e.images
				break
			}
		}
	}
	if cfg.OutputLenField != "" {
		if o := field(obj, cfg.OutputLenField); o.Exists() {
			if o.Type != gjson.Number || o.Num != math.Trunc(o.Num) || o.Num < 1 || o.Num > math.MaxInt32 {
				return e, lineError(cfg.Path, line, "%q is %s, not a positive integer", cfg.OutputLenField, o.Raw)
			}
			e.outputLen = int(o.Num)
		}
	}
	return e, nil
}

func parseMessages(m gjson.Result) ([]Message, error) {
	if !m.IsArray() {
		return nil, fmt.Errorf("\"messages\" is %s, not an array", kind(m))
	}
	var msgs []Message
	var bad error
	m.ForEach(func(key, msg gjson.Result) bool {
		role, content := field(msg, "role"), field(msg, "content")
		calls := field(msg, "tool_calls")
		if !present(calls) || (calls.IsArray() && len(calls.Array()) == 0) {
			calls = gjson.Result{} // null or [], as SDK dumps write "no calls"
		}
		switch {
		case !msg.IsObject():
			bad = fmt.Errorf("messages[%d] is %s, not an object", len(msgs), kind(msg))
		case role.Type != gjson.String:
			bad = fmt.Errorf("messages[%d] has no string \"role\"", len(msgs))
		case content.Type != gjson.String && !(role.Str == RoleAssistant && calls.Exists() && (content.Type == gjson.Null || !content.Exists())):
			bad = fmt.Errorf("messages[%d] has no string \"content\" (only an assistant message with tool_calls may have none)", len(msgs))
		default:
			out := Message{Role: role.String(), Content: content.String()}
			if calls.Exists() {
				if role.Str != RoleAssistant {
					bad = fmt.Errorf("messages[%d] is a %s message with tool_calls; only the assistant calls tools", len(msgs), role.Str)
					return false
				}
				if out.ToolCalls, bad = parseToolCalls(calls); bad != nil {
					bad = fmt.Errorf("messages[%d]: %w", len(msgs), bad)
					return false
				}
			}
			if role.Str == RoleTool {
				id := field(msg, "tool_call_id")
				if id.Type != gjson.String || id.Str == "" {
					bad = fmt.Errorf("messages[%d] is a tool message without a \"tool_call_id\": it must say which call it answers", len(msgs))
					return false
				}
				out.ToolCallID = id.Str
			}
			msgs = append(msgs, out)
			return true
		}
		return false
	})
	if bad != nil {
		return nil, bad
	}
	if len(msgs) == 0 {
		return nil, errors.New("\"messages\" is empty")
	}
	return msgs, nil
}

// parseToolCalls reads an assistant message's recorded "tool_calls", as
// OpenAI's chat API writes them.
func parseToolCalls(calls gjson.Result) ([]ToolCall, error) {
	if !calls.IsArray() {
		return nil, fmt.Errorf("\"tool_calls\" is %s, not an array", kind(calls))
	}
	var out []ToolCall
	var bad error
	calls.ForEach(func(_, c gjson.Result) bool {
		i := len(out)
		id, name, args := field(c, "id"), c.Get("function.name"), c.Get("function.arguments")
		switch {
		case !c.IsObject():
			bad = fmt.Errorf("tool_calls[%d] is %s, not an object", i, kind(c))
		case id.Type != gjson.String || id.Str == "":
			bad = fmt.Errorf("tool_calls[%d] has no \"id\" (the tool message that answers it names it)", i)
		case name.Type != gjson.String || name.Str == "":
			bad = fmt.Errorf("tool_calls[%d] has no function.name", i)
		case args.Exists() && args.Type != gjson.String:
			bad = fmt.Errorf("tool_calls[%d] (%s): function.arguments is %s, not a string of JSON", i, name.Str, kind(args))
		default:
			a := args.Str
			if a == "" {
				a = "{}"
			}
			out = append(out, ToolCall{ID: id.Str, Type: "function", Function: FunctionCall{Name: name.Str, Arguments: a}})
			return true
		}
		return false
	})
	return out, bad
}

// field returns obj's member named name, matched literally (gjson's path
// syntax escaped), the first one if the name repeats; nothing if obj is not
// an object.
func field(obj gjson.Result, name string) gjson.Result {
	if !obj.IsObject() {
		return gjson.Result{}
	}
	return obj.Get(gjson.Escape(name))
}
