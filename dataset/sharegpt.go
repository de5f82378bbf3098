package dataset

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"unsafe"

	"github.com/llmload/llmload/tokenizer"
	"github.com/tidwall/gjson"
)

// ShareGPT samples a ShareGPT-format JSON file (an array of entries with a
// "conversations" list of {"from", "value"} turns) the way vLLM's
// ShareGPTDataset does.
type ShareGPT struct {
	// Path is the JSON file.
	Path string
	// NumPrompts is how many requests to sample.
	NumPrompts int
	// Seed seeds CPython's random.seed(seed) for the shuffle and the
	// oversampling picks.
	Seed int64
	// OutputLen, when > 0, is every request's output length; 0 uses the
	// reply's token count.
	OutputLen int
	// MinPromptTokens and MinOutputTokens drop entries whose prompt (or
	// reply, when OutputLen is 0) has fewer tokens.
	MinPromptTokens, MinOutputTokens int
	// MaxPromptTokens drops longer prompts; MaxTotalTokens drops entries
	// whose prompt and output lengths add up to more.
	MaxPromptTokens, MaxTotalTokens int
	// Oversample tops up with seeded random repeats of the surviving entries
	// when fewer than NumPrompts survive.
	Oversample bool
	// MultiTurn makes each conversation a session of its turns (see
	// Request.Turns); the length rules above judge its first turn, and its
	// later turns are kept while the history and reply fit in
	// MaxTotalTokens.
	MultiTurn bool
	// MaxTurns keeps at most that many turns of a session (0: all).
	MaxTurns int
}

// DefaultShareGPT returns vLLM's defaults: 1000 prompts, seed 0, the reply's
// length, prompts and replies of at least 4 tokens, prompts of at most 1024,
// at most 2048 in all, oversampling on.
func DefaultShareGPT() ShareGPT {
	return ShareGPT{
		NumPrompts:      1000,
		MinPromptTokens: 4, MinOutputTokens: 4,
		MaxPromptTokens: 1024, MaxTotalTokens: 2048,
		Oversample: true,
	}
}

// Skip rules, as counted in Stats.Skipped.
const (
	skipNoConversations = "no_conversations"
	skipFewTurns        = "fewer_than_2_turns"
	skipPromptShort     = "prompt_too_short"
	skipOutputShort     = "output_too_short"
	skipPromptLong      = "prompt_too_long"
	skipTotalLong       = "total_too_long"
	skipNoUserTurn      = "no_user_turn"
)

// sharegptEntry locates one usable entry (>= 2 turns) in the file.
type sharegptEntry struct {
	index      int // position in the top-level array
	start, end int // byte range of the entry's JSON
}

func loadShareGPT(cfg ShareGPT, tok tokenizer.Tokenizer) ([]Request, Stats, error) {
	if err := cfg.validate(); err != nil {
		return nil, Stats{}, err
	}
	if err := checkShareGPTStart(cfg.Path); err != nil {
		return nil, Stats{}, err
	}
	data, err := os.ReadFile(cfg.Path)
	if err != nil {
		return nil, Stats{}, err
	}
	return sampleShareGPT(cfg, data, tok)
}

// bigFile is the size from which a ShareGPT file's first bytes are checked
// before it is read whole (a smaller one is parsed, with the parser's own
// messages).
var bigFile int64 = 64 << 20

// checkShareGPTStart reads a big file's first bytes: a ShareGPT file is a
// JSON array, and a file that does not start as JSON at all (2 GB of zero
// bytes, say) is refused before it is read whole into memory.
func checkShareGPTStart(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || st.Size() < bigFile {
		return nil
	}
	br := bufio.NewReaderSize(f, 4<<10)
	for off := int64(0); ; off++ {
		b, err := br.ReadByte()
		switch {
		case err != nil:
			return nil // the parser says what is wrong
		case b == ' ' || b == '\t' || b == '\r' || b == '\n':
			continue
		case b == 0xEF && off == 0: // a UTF-8 byte order mark
			continue
		case off < 3 && (b == 0xBB || b == 0xBF):
			continue
		case b == '[':
			return checkFirstEntry(path, f)
		case strings.IndexByte(`{"-0123456789tfn`, b) >= 0:
			return offsetError(path, off, "top-level value starts with %q, not an array of ShareGPT entries", b)
		}
		return offsetError(path, off, "not JSON: starts with byte 0x%02x, where a JSON array of ShareGPT entries begins with [", b)
	}
}

// firstEntryBytes bounds where a big file's first entry must end: a
// ShareGPT entry is a conversation of kilobytes, not of megabytes.
const firstEntryBytes = 16 << 20

// checkFirstEntry decodes a big file's first entry from its start, in
// bounded memory, before the file is read whole: a file that is not a
// ShareGPT array after all (an array of zeros, a gigabyte of one string)
// is refused at the byte where it goes wrong.
func checkFirstEntry(path string, f *os.File) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil
	}
	br := bufio.NewReader(io.LimitReader(f, firstEntryBytes))
	if b, err := br.Peek(3); err == nil && string(b) == "\xef\xbb\xbf" {
		br.Discard(3)
	}
	dec := json.NewDecoder(br)
	if _, err := dec.Token(); err != nil { // the '['
		return offsetError(path, dec.InputOffset(), "not JSON: %v", err)
	}
	if !dec.More() {
		if _, err := dec.Token(); err != nil {
			// Not the array's end: nothing but blanks for 16 MiB.
			return offsetError(path, dec.InputOffset(), "no entry within its first %d MiB: not a ShareGPT file", firstEntryBytes>>20)
		}
		return nil // an empty array: the parser says so
	}
	var first map[string]json.RawMessage
	switch err := dec.Decode(&first); {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return offsetError(path, 0, "the first entry does not end within its first %d MiB: not a ShareGPT file", firstEntryBytes>>20)
	case err != nil:
		return offsetError(path, dec.InputOffset(), "the first entry is not a JSON object: %v", err)
	}
	return nil
}

func (cfg ShareGPT) validate() error {
	switch {
	case cfg.NumPrompts < 1:
		return fmt.Errorf("sharegpt %s: num_prompts must be at least 1, got %d", cfg.Path, cfg.NumPrompts)
	case cfg.OutputLen < 0:
		return fmt.Errorf("sharegpt %s: output_len must not be negative, got %d", cfg.Path, cfg.OutputLen)
	case cfg.MinPromptTokens < 0 || cfg.MinOutputTokens < 0:
		return fmt.Errorf("sharegpt %s: min_prompt_tokens and min_output_tokens must not be negative", cfg.Path)
	case cfg.MaxPromptTokens < cfg.MinPromptTokens:
		return fmt.Errorf("sharegpt %s: max_prompt_tokens (%d) is below min_prompt_tokens (%d)", cfg.Path, cfg.MaxPromptTokens, cfg.MinPromptTokens)
	case cfg.MaxTotalTokens < 1:
		return fmt.Errorf("sharegpt %s: max_total_tokens must be at least 1, got %d", cfg.Path, cfg.MaxTotalTokens)
	}
	return nil
}

// sampleShareGPT applies vLLM's rules to the file's bytes. data is not
// modified afterwards, so it is viewed as a string without a copy; the
// requests' prompts are fresh strings, not views into data.
func sampleShareGPT(cfg ShareGPT, data []byte, tok tokenizer.Tokenizer) ([]Request, Stats, error) {
	stats := Stats{Source: "sharegpt", Path: cfg.Path, Skipped: map[string]int{}}
	entries, err := scanShareGPT(cfg.Path, data, &stats)
	if err != nil {
		return nil, stats, err
	}
	newPyRandom(cfg.Seed).shuffle(len(entries), func(i, j int) { entries[i], entries[j] = entries[j], entries[i] })

	src := unsafe.String(unsafe.SliceData(data), len(data))
	var reqs []Request
	for _, e := range entries {
		if len(reqs) >= cfg.NumPrompts {
			break
		}
		examine := examineShareGPT
		if cfg.MultiTurn {
			examine = examineSession
		}
		req, rule, err := examine(cfg, src[e.start:e.end], e.index, tok)
		if err != nil {
			return nil, stats, err
		}
		stats.Examined++
		if rule != "" {
			stats.Skipped[rule]++
			continue
		}
		reqs = append(reqs, req)
	}
	if len(reqs) == 0 {
		return nil, stats, fileError(cfg.Path, "no usable entry: %d read, %d examined, skipped %s", stats.Read, stats.Examined, formatSkipped(stats.Skipped))
	}
	if missing := cfg.NumPrompts - len(reqs); missing > 0 && cfg.Oversample {
		// vLLM: random.seed(seed); random.choices(samples, k=missing).
		r := newPyRandom(cfg.Seed)
		n := len(reqs)
		for range missing {
			reqs = append(reqs, reqs[r.choice(n)])
		}
		stats.Oversampled = missing
	}
	return reqs, stats, nil
}

// scanShareGPT checks that data is a JSON array and lists, in file order,
// the entries with a "conversations" array of at least two turns, counting
// the others in stats.
func scanShareGPT(path string, data []byte, stats *Stats) ([]sharegptEntry, error) {
	first := -1
	for i, c := range data {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			first = i
			break
		}
	}
	if first < 0 {
		return nil, fileError(path, "file is empty: want a JSON array of ShareGPT entries")
	}
	// Validating takes as long as scanning: do both at once, and trust
	// what the (lenient) scan found only once the file is known to be JSON.
	valid := make(chan bool, 1)
	go func() { valid <- gjson.ValidBytes(data) }()
	entries, err := scanEntries(path, data, first, stats)
	if !<-valid {
		return nil, syntaxError(path, data)
	}
	return entries, err
}

func scanEntries(path string, data []byte, first int, stats *Stats) ([]sharegptEntry, error) {
	src := unsafe.String(unsafe.SliceData(data), len(data))
	if data[first] != '[' {
		return nil, offsetError(path, int64(first), "top-level value is %s, not an array of ShareGPT entries", kind(gjson.Parse(src)))
	}
	var (
		entries []sharegptEntry
		bad     error
	)
	gjson.Parse(src).ForEach(func(key, entry gjson.Result) bool {
		index := int(key.Num)
		stats.Read++
		if !entry.IsObject() {
			bad = recordError(path, index, "entry is %s, not an object", kind(entry))
			return false
		}
		conv := field(entry, "conversations")
		if !conv.Exists() {
			stats.Skipped[skipNoConversations]++
			return true
		}
		if !conv.IsArray() {
			bad = recordError(path, index, "\"conversations\" is %s, not an array", kind(conv))
			return false
		}
		turns := 0
		conv.ForEach(func(_, _ gjson.Result) bool {
			turns++
			return turns < 2
		})
		if turns < 2 {
			stats.Skipped[skipFewTurns]++
			return true
		}
		entries = append(entries, sharegptEntry{index: index, start: entry.Index, end: entry.Index + len(entry.Raw)})
		return true
	})
	if bad != nil {
		return nil, bad
	}
	if stats.Read == 0 {
		return nil, fileError(path, "the array is empty: no ShareGPT entries")
	}
	if len(entries) == 0 {
		return nil, fileError(path, "no usable entry: none of the %d entries has a \"conversations\" array of at least 2 turns", stats.Read)
	}
	return entries, nil
}

// examineShareGPT tokenizes one entry and applies vLLM's length rules. It
// returns the request, or the rule that drops the entry.
func examineShareGPT(cfg ShareGPT, raw string, index int, tok tokenizer.Tokenizer) (Request, string, error) {
	var turns []string
	var bad error
	field(gjson.Parse(raw), "conversations").ForEach(func(_, turn gjson.Result) bool {
		value := field(turn, "value")
		if value.Type != gjson.String {
			bad = recordError(cfg.Path, index, "turn %d has no string \"value\"", len(turns))
			return false
		}
		turns = append(turns, strings.Clone(value.String())) // not a view into the file's bytes
		return len(turns) < 2
	})
	if bad != nil {
		return Request{}, "", bad
	}
	ids, err := encode(tok, turns[0], true)
	if err != nil {
		return Request{}, "", err
	}
	promptLen := len(ids)
	// vLLM counts tokenizer(completion).input_ids: special tokens included.
	// The reply is the entry's reference answer, counted even when the
	// scenario fixes the output length.
	ids, err = encode(tok, turns[1], true)
	if err != nil {
		return Request{}, "", err
	}
	referenceLen := len(ids)
	outputLen := cfg.OutputLen
	if outputLen == 0 {
		outputLen = referenceLen
	}
	// vLLM's is_valid_sequence tests all four at once; a dropped entry is
	// counted under the first rule it breaks, in this order.
	switch {
	case promptLen < cfg.MinPromptTokens:
		return Request{}, skipPromptShort, nil
	case cfg.OutputLen == 0 && outputLen < cfg.MinOutputTokens:
		return Request{}, skipOutputShort, nil
	case promptLen > cfg.MaxPromptTokens:
		return Request{}, skipPromptLong, nil
	case promptLen+outputLen > cfg.MaxTotalTokens:
		return Request{}, skipTotalLong, nil
	}
	return Request{Index: index, Prompt: turns[0], PromptLen: promptLen, OutputLen: outputLen, ReferenceLen: referenceLen}, "", nil
}

// examineSession reads a whole conversation as a session and applies
// vLLM's length rules to its first turn.
func examineSession(cfg ShareGPT, raw string, index int, tok tokenizer.Tokenizer) (Request, string, error) {
	var msgs []Message
	var bad error
	field(gjson.Parse(raw), "conversations").ForEach(func(_, turn gjson.Result) bool {
		value := field(turn, "value")
		if value.Type != gjson.String {
			bad = recordError(cfg.Path, index, "turn %d has no string \"value\"", len(msgs))
			return false
		}
		msgs = append(msgs, Message{Role: shareGPTRole(field(turn, "from").String()), Content: strings.Clone(value.String())})
		return true
	})
	if bad != nil {
		return Request{}, "", bad
	}
	turns, err := countTurns(sessionTurns(msgs), sessionLimits{outputLen: cfg.OutputLen, maxTurns: cfg.MaxTurns, maxTotal: cfg.MaxTotalTokens, reference: true}, tok)
	if err != nil {
		return Request{}, "", err
	}
	if len(turns) == 0 {
		return Request{}, skipNoUserTurn, nil
	}
	first := turns[0]
	switch {
	case first.PromptLen < cfg.MinPromptTokens:
		return Request{}, skipPromptShort, nil
	case cfg.OutputLen == 0 && first.OutputLen < cfg.MinOutputTokens:
		return Request{}, skipOutputShort, nil
	case first.PromptLen > cfg.MaxPromptTokens:
		return Request{}, skipPromptLong, nil
	case first.PromptLen+first.OutputLen > cfg.MaxTotalTokens:
		return Request{}, skipTotalLong, nil
	}
	return sessionRequest(index, turns), "", nil
}

// syntaxError locates the first syntax error in data (gjson says there is
// one but does not say where).
func syntaxError(path string, data []byte) error {
	if pos, msg, ok := findSyntaxError(data); ok {
		return offsetError(path, pos, "not valid JSON: %s", msg)
	}
	return fileError(path, "not valid JSON")
}

// findSyntaxError asks encoding/json, which checks the whole input before
// decoding anything, where data stops being JSON: the byte offset from 0 of
// the offending character (len(data) when the input ends too soon).
func findSyntaxError(data []byte) (int64, string, bool) {
	var v struct{}
	var se *json.SyntaxError
	if err := json.Unmarshal(data, &v); !errors.As(err, &se) {
		return 0, "", false
	}
	pos := se.Offset // bytes read, the offending one included
	if strings.HasPrefix(se.Error(), "invalid character") {
		pos--
	}
	return pos, se.Error(), true
}

// formatSkipped renders skip counts as "rule=n, rule=n" in rule order.
func formatSkipped(skipped map[string]int) string {
	var parts []string
	for _, rule := range slices.Sorted(maps.Keys(skipped)) {
		parts = append(parts, fmt.Sprintf("%s=%d", rule, skipped[rule]))
	}
	return strings.Join(parts, ", ")
}

// kind names a JSON value's type for messages.
func kind(v gjson.Result) string {
	switch v.Type {
	case gjson.String:
		return "a string"
	case gjson.Number:
		return "a number"
	case gjson.True, gjson.False:
		return "a boolean"
	case gjson.Null:
		return "null"
	}
	if strings.HasPrefix(v.Raw, "[") {
		return "an array"
	}
	return "an object"
}
